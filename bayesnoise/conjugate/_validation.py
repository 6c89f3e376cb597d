"""Counts for the conjugate layer, through the one validator of :mod:`bayesnoise.data`."""

from __future__ import annotations

import numpy as np

from bayesnoise.data import check_counts


def as_counts(correct, count) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(c, K, answered)`` as float arrays (last axis = questions), every model answered."""
    c, k = check_counts(correct, count, require_answered=True)
    return c, k.astype(float), k > 0
