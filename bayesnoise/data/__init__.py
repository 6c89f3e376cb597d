"""The dataset contract (:mod:`.schema`) and operations on datasets (:mod:`.ops`)."""

from .ops import complete, scores, select_models
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
)

# The user-facing names; the rest of the contract (dims, attribute defaults, the Beta-Binomial
# refusal) is imported by the other layers from here and documented in :mod:`.schema`.
__all__ = ["DataError", "check_counts", "complete", "from_arrays", "scores", "select_models"]
