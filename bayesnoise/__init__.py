"""bayesnoise: how much of a gap between two LLM eval scores is real.

The layers, in the order data flows: :mod:`bayesnoise.data` (the dataset contract) ->
:mod:`bayesnoise.io` (readers, one :func:`load`) -> estimators :mod:`bayesnoise.frequentist`,
:mod:`bayesnoise.conjugate` (closed forms, empirical Bayes) and :mod:`bayesnoise.mcmc` (full Bayes
in PyMC, imported lazily) -> :mod:`bayesnoise.decide` (both answers side by side) ->
:mod:`bayesnoise.report` -> the ``bayesnoise`` command line.

Examples
--------
>>> import bayesnoise as bn
>>> ds = bn.from_arrays([[3, 1], [2, 2]], [[4, 4], [4, 4]], models=["a", "b"])
>>> sorted(ds.sizes.items())
[('model', 2), ('question', 2)]
"""

from bayesnoise._common import ConfidenceInterval
from bayesnoise.data import DataError, complete, from_arrays, scores, select_models
from bayesnoise.io import load, save

__version__ = "0.1.0"
__all__ = [
    "ConfidenceInterval",
    "DataError",
    "__version__",
    "complete",
    "from_arrays",
    "load",
    "save",
    "scores",
    "select_models",
]
