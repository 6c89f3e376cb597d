"""The dataset contract (:mod:`.schema`) and operations on datasets (:mod:`.ops`)."""

from .ops import complete, is_chunked, scores, select_models
from .schema import (
    ATTR_DEFAULTS,
    MODEL,
    QUESTION,
    SAMPLE,
    DataError,
    attr,
    beta_binomial_counts,
    check_counts,
    check_dataset,
    from_arrays,
    renamed_legacy,
)

__all__ = [
    "ATTR_DEFAULTS",
    "MODEL",
    "QUESTION",
    "SAMPLE",
    "DataError",
    "attr",
    "beta_binomial_counts",
    "check_counts",
    "check_dataset",
    "complete",
    "from_arrays",
    "is_chunked",
    "renamed_legacy",
    "scores",
    "select_models",
]
