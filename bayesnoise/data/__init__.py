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
    clusters_with_factor,
    factor_dims,
    from_arrays,
    refuse_clusters_with_factors,
    refuse_factors,
    renamed_legacy,
)
from .threshold import (
    SUCCESS,
    check_range,
    check_threshold,
    mark_thresholded,
    passes,
    summed_graded,
    threshold_dataset,
    threshold_note,
    threshold_samples,
)

# The documented API of this layer (the surface is counted over these lists,
# tests/test_surface.py); the other names stay importable for the package's own layers.
__all__ = [
    "DataError",
    "check_dataset",
]
