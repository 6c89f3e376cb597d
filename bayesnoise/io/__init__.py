"""Readers: one module per source format behind one :func:`load`.

- :mod:`.tables`: long tables (per-sample rows, count tables, Eval-Arena JSONL);
- :mod:`.arrays`: in-memory score arrays and wide matrices;
- :mod:`.load`: reading files and dispatching by layout.
"""

from .arrays import from_sample_array, from_wide
from .load import load, read_table
from .tables import from_samples

__all__ = [
    "from_sample_array",
    "from_samples",
    "from_wide",
    "load",
    "read_table",
]
