"""Input checks shared by the conjugate layer (numpy only)."""

from __future__ import annotations

import numpy as np


def check_confidence_level(confidence_level: float) -> float:
    """Return ``confidence_level`` as float after checking it lies in (0, 1)."""
    level = float(confidence_level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level!r}")
    return level


def as_counts(correct, count) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate and broadcast question-level counts.

    Parameters
    ----------
    correct, count : array_like
        Correct samples ``c`` and samples drawn ``K`` per question, last axis = questions,
        leading axes = models (broadcast together). ``K = 0`` marks a question the model did
        not answer (masked).

    Returns
    -------
    c, k : numpy.ndarray of float, shape (..., N)
        With ``c`` set to 0 where ``k == 0``.
    mask : numpy.ndarray of bool
        ``k > 0``.
    """
    c = np.asarray(correct, dtype=float)
    k = np.asarray(count, dtype=float)
    try:
        c, k = np.broadcast_arrays(c, k)
    except ValueError as err:
        raise ValueError(
            f"correct {c.shape} and count {k.shape} do not broadcast together"
        ) from err
    if c.ndim == 0:
        raise ValueError("need at least one question: correct/count must have a question axis")
    if c.shape[-1] == 0:
        raise ValueError("no questions (last axis has length 0)")
    if not (np.all(np.isfinite(c)) and np.all(np.isfinite(k))):
        raise ValueError("correct and count must be finite (use count = 0 for missing cells)")
    if np.any(k < 0):
        raise ValueError("count must be >= 0 (0 = question not answered)")
    if np.any(c < 0) or np.any(c > k):
        bad = np.argwhere((c < 0) | (c > k))[0]
        raise ValueError(
            f"need 0 <= correct <= count; first offending cell {tuple(int(i) for i in bad)}: "
            f"correct={c[tuple(bad)]}, count={k[tuple(bad)]}"
        )
    mask = k > 0
    c = np.where(mask, c, 0.0)
    n_answered = mask.sum(axis=-1)
    if np.any(n_answered == 0):
        raise ValueError(
            "a model has no answered question (all count == 0 on the question axis); "
            "drop it before fitting"
        )
    return c, k, mask
