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
    factor_dims,
    from_arrays,
    refuse_factors,
    renamed_legacy,
)
from .threshold import SUCCESS, threshold_dataset, threshold_note, threshold_samples

__all__ = [
    "ATTR_DEFAULTS",
    "MODEL",
    "QUESTION",
    "SAMPLE",
    "SUCCESS",
    "DataError",
    "attr",
    "beta_binomial_counts",
    "check_counts",
    "check_dataset",
    "complete",
    "factor_dims",
    "from_arrays",
    "is_chunked",
    "refuse_factors",
    "renamed_legacy",
    "scores",
    "select_models",
    "threshold_dataset",
    "threshold_note",
    "threshold_samples",
]
