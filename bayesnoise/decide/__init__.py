"""Decisions from the estimators: both answers side by side, and multiplicity control.

- :mod:`.side_by_side`: frequentist and Bayesian intervals for each model or pair in one table;
- :mod:`bayesnoise.frequentist.multiplicity`: adjusted p-values for many pairs at once (Holm, Benjamini-Hochberg);
- :mod:`.simultaneous`: simultaneous intervals for all pair differences (``max |T|``, Bonferroni);
- :mod:`.ranks`: P(best), expected rank, rank intervals and the group tied with the top;
- :mod:`.letters`: compact letter display of the models the pairwise tests cannot separate.
"""

from bayesnoise.frequentist.multiplicity import ADJUST_METHODS, adjust_pvalues

from .letters import (
    compact_letters,
    letters_from_pairs,
    ordered_separation,
    pvalue_matrix,
    top_group,
)
from .ranks import (
    RANK_COLUMNS,
    RANK_METHODS,
    bootstrap_means,
    hierarchical_draws,
    rank_summary,
    rank_table,
)
from .side_by_side import compare_models, compare_pairs
from .simultaneous import SIMULTANEOUS_METHODS, max_abs_t_draws, simultaneous_intervals
from .verdicts import CLOSE_FACTOR, close_pairs, verdict

# The documented API of this layer (the surface is counted over these lists,
# tests/test_surface.py); the other names stay importable for the package's own layers.
__all__ = [
    "compare_models",
    "compare_pairs",
    "letters_from_pairs",
    "rank_table",
    "simultaneous_intervals",
]
