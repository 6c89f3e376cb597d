"""bayesnoise: how much of a gap between two LLM eval scores is real.

Layers: :mod:`bayesnoise.data` (load, validate) -> estimators (:mod:`bayesnoise.frequentist`,
:mod:`bayesnoise.conjugate`, :mod:`bayesnoise.hierarchical`) -> :mod:`bayesnoise.report` and the
``bayesnoise`` command line. PyMC is imported only when a PyMC model is built.
"""

from bayesnoise.data import DataError, complete, load, scores

__version__ = "0.1.0"
__all__ = ["DataError", "__version__", "complete", "load", "scores"]
