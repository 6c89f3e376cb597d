"""Readers: one module per source format behind one :func:`load`, and :func:`save`.

- :mod:`.load`: finding the files and dispatching by format;
- :mod:`.columns`: which column holds what (roles, ``columns=`` mapping, layouts);
- :mod:`.sources`: tables read in batches (CSV/TSV/Parquet via pyarrow, JSON, DataFrames);
- :mod:`.stream`: checking and aggregating the batches to (model, question) cells;
- :mod:`.tables`: long tables from files or DataFrames;
- :mod:`.arrays`: in-memory score arrays and wide matrices;
- :mod:`.inspect_logs`, :mod:`.lm_eval`: Inspect AI logs and lm-eval-harness (and lmms-eval)
  sample logs; :mod:`.lighteval`, :mod:`.helm`: lighteval details and HELM run directories;
- :mod:`.save`: NetCDF and count tables that load back identical.
"""

from .arrays import from_sample_array, from_wide
from .load import load
from .save import save
from .tables import from_samples

# The documented API of this layer (the surface is counted over these lists,
# tests/test_surface.py); the other names stay importable for the package's own layers.
__all__ = [
    "from_sample_array",
    "from_samples",
    "from_wide",
]
