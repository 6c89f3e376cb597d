"""Decisions from the estimators: both answers side by side, and multiplicity control.

- :mod:`.side_by_side`: frequentist and Bayesian intervals for each model or pair in one table;
- :mod:`.multiplicity`: adjusted p-values for many pairs at once (Holm, Benjamini-Hochberg).
"""

from .multiplicity import ADJUST_METHODS, adjust_pvalues
from .side_by_side import compare_models, compare_pairs

__all__ = ["ADJUST_METHODS", "adjust_pvalues", "compare_models", "compare_pairs"]
