"""Decision accuracy: how often two score tables rank a pair of models the same way.

The signal-and-noise definition (allenai/signal-and-noise ``snr/metrics.py``,
``decision_acc_fast``): with the models matched and ordered by name, s the small-scale
scores and t the target scores,

    decision_accuracy = mean over pairs i < j of [ (s_i > s_j) == (t_i > t_j) ]

Ties are treated exactly as that code treats them: a tie on one side counts as "not greater",
so a pair tied on both sides agrees, and a pair tied on one side agrees when the other side
has s_j > s_i (or t_j > t_i) for the later model j, and disagrees when it has the earlier model
ahead. The result therefore depends on the name order when there are ties, as in the seed.

Beside it: a percentile bootstrap interval over models (the models are the sampled unit:
resample them with replacement, keep the pairs of two different models, each pair weighted
by how often both were drawn), and :func:`noise_ceiling`, the decision accuracy to expect
from the measured noise alone: if the small-scale ranking were exactly the target's, how
often would noisy re-measurements of both still agree?
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesnoise._common import check_confidence_level
from bayesnoise.frequentist import _core

__all__ = [
    "agreement",
    "decision_accuracy",
    "decision_table",
    "model_bootstrap",
    "noise_ceiling",
    "question_noise",
]

DECISION_COLUMNS = [
    "models",
    "model_pairs",
    "decision_accuracy",
    "decision_accuracy_low",
    "decision_accuracy_high",
    "expected_decision_accuracy",
]
# Bootstrap work per block: replicates x models x models cells.
_BLOCK_CELLS = 2**24


def _vector(x, name) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"{name} must be one score per model, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError(f"{name} holds a missing or infinite score")
    return x


def agreement(scores_small, scores_target) -> np.ndarray:
    """M x M booleans ``(s_i > s_j) == (t_i > t_j)``, True only on the upper triangle (i < j).

    Examples
    --------
    >>> agreement([1, 2, 3], [1, 3, 2]).astype(int).tolist()
    [[0, 1, 1], [0, 0, 0], [0, 0, 0]]
    """
    s = _vector(scores_small, "scores_small")
    t = _vector(scores_target, "scores_target")
    if s.shape != t.shape:
        raise ValueError(f"need one target score per small score: {s.shape} vs {t.shape}")
    same = (s[:, None] > s[None, :]) == (t[:, None] > t[None, :])
    return np.triu(same, k=1)


def decision_accuracy(scores_small, scores_target) -> float:
    """Fraction of model pairs i < j ranked the same way (signal-and-noise ``decision_acc_fast``).

    The scores must be in the same model order (the seed orders by model name).

    Examples
    --------
    >>> decision_accuracy([0.1, 0.2, 0.3], [0.5, 0.7, 0.6])
    0.6666666666666666
    >>> decision_accuracy([0.1, 0.1, 0.3], [0.5, 0.7, 0.6])  # (0, 1): tied, and t_0 < t_1: agree
    0.6666666666666666
    """
    s = _vector(scores_small, "scores_small")
    if s.size < 2:
        raise ValueError("decision accuracy needs at least two models")
    return float(agreement(s, scores_target).sum() / (s.size * (s.size - 1) / 2))


def model_bootstrap(agree: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Decision accuracy over bootstrap resamples of the models.

    A replicate draws M models with replacement (multinomial counts w); a pair of two different
    models a < b counts w_a w_b times; pairs of a model with itself are left out (they carry no
    ranking). NaN for a replicate that drew a single model.

    Examples
    --------
    >>> a = agreement([1, 2, 3, 4], [1, 2, 3, 4])
    >>> model_bootstrap(a, 5, np.random.default_rng(0)).tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    m = agree.shape[0]
    upper = np.triu(np.ones((m, m)), k=1)
    agree = agree.astype(float)
    out = np.empty(int(n_resamples))
    step = max(1, _BLOCK_CELLS // (m * m))
    for b0 in range(0, out.size, step):
        b = min(step, out.size - b0)
        w = rng.multinomial(m, np.full(m, 1.0 / m), size=b).astype(float)
        num = ((w @ agree) * w).sum(axis=1)
        den = ((w @ upper) * w).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[b0 : b0 + b] = np.where(den > 0, num / den, np.nan)
    return out


def question_noise(p, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, M) deviations of the models' accuracies under a paired bootstrap over
    questions (every model sees the same resampled questions): the measured noise of the
    scores, data and prediction together, with the models' correlation kept.

    Examples
    --------
    >>> p = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]])
    >>> question_noise(p, 3, np.random.default_rng(0)).shape
    (3, 2)
    """
    p = np.asarray(p, dtype=float)
    draws = _core.bootstrap_means(p, n_resamples=int(n_resamples), rng=rng)
    return (draws - p.mean(axis=1)[:, None]).T


def noise_ceiling(scores_small, scores_target, small_noise=None, target_noise=None) -> float:
    """Expected decision accuracy when the small-scale ranking is exactly the target's and only
    the measured noise separates them.

    The truth on the target side is the target scores; on the small side it is the small
    scores re-assigned so that they order the models exactly as the target does (the smallest
    small score goes to the model the target ranks lowest, and so on: same spread, perfect
    ranking).
    Replicate r adds ``small_noise[r]`` and ``target_noise[r]`` (deviations such as
    :func:`question_noise`; None: that side has no measured noise) and the decision accuracy
    is averaged over replicates. 1 means the noise cannot flip any pair; 0.5 is a coin flip.

    Examples
    --------
    >>> s, t = np.array([0.2, 0.4, 0.6]), np.array([0.5, 0.6, 0.7])
    >>> noise_ceiling(s, t, np.zeros((4, 3)), None)
    1.0
    """
    s = _vector(scores_small, "scores_small")
    t = _vector(scores_target, "scores_target")
    if small_noise is None and target_noise is None:
        return float("nan")
    rank = np.argsort(np.argsort(t, kind="stable"), kind="stable")
    truth_s = np.sort(s)[rank]
    reps = (small_noise if small_noise is not None else target_noise).shape[0]
    e_s = np.zeros((reps, s.size)) if small_noise is None else np.asarray(small_noise, float)
    e_t = np.zeros((reps, t.size)) if target_noise is None else np.asarray(target_noise, float)
    if e_s.shape != e_t.shape or e_s.shape[1] != s.size:
        raise ValueError(f"noise draws must be (replicates, {s.size}) on both sides")
    m = s.size
    upper = np.triu(np.ones((m, m), dtype=bool), k=1)
    total = 0.0
    step = max(1, _BLOCK_CELLS // (m * m))
    for r0 in range(0, reps, step):
        xs = truth_s[None, :] + e_s[r0 : r0 + step]
        xt = t[None, :] + e_t[r0 : r0 + step]
        same = (xs[:, :, None] > xs[:, None, :]) == (xt[:, :, None] > xt[:, None, :])
        total += same[:, upper].sum()
    return float(total / (reps * upper.sum()))


def decision_table(
    models,
    scores_small,
    scores_target,
    *,
    small_p=None,
    target_p=None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    rng: int | None = 0,
) -> pd.DataFrame:
    """Decision accuracy of two score tables with its bootstrap interval and noise ceiling.

    Parameters
    ----------
    models : sequence of str, length M (M >= 2)
        Model names; the pairs are taken in sorted name order, as the seed does.
    scores_small, scores_target : array_like, shape (M,)
        Each model's score in the two tables, in ``models`` order.
    small_p, target_p : array_like, shape (M, N), optional
        Per-question scores behind each side (complete), for the measured noise of
        :func:`noise_ceiling`; without either, ``expected_decision_accuracy`` is NaN.
    n_resamples : int, default 1000
        Replicates of the model bootstrap and of the question bootstrap of each side.
    confidence_level : float, default 0.95
    rng : int or numpy.random.Generator, default 0

    Returns
    -------
    pandas.DataFrame
        One row: ``models, model_pairs, decision_accuracy, decision_accuracy_low,
        decision_accuracy_high, expected_decision_accuracy``; ``attrs`` hold the bootstrap
        size, the replicates that drew a single model (left out of the interval) and which
        sides had measured noise.

    Examples
    --------
    >>> t = decision_table(["a", "b", "c", "d"], [1, 2, 3, 4], [1, 2, 4, 3], n_resamples=200)
    >>> float(t["decision_accuracy"][0]), int(t["model_pairs"][0])
    (0.8333333333333334, 6)
    """
    names = np.asarray(models, dtype=object).astype(str)
    s = _vector(scores_small, "scores_small")
    t = _vector(scores_target, "scores_target")
    if not (names.size == s.size == t.size):
        raise ValueError("need one name, one small and one target score per model")
    if names.size < 2:
        raise ValueError("decision accuracy needs at least two models")
    level = check_confidence_level(confidence_level)
    if int(n_resamples) != n_resamples or n_resamples < 0:
        raise ValueError(f"n_resamples must be a whole number >= 0, got {n_resamples!r}")
    order = np.argsort(names, kind="stable")
    s, t = s[order], t[order]
    agree = agreement(s, t)
    m = names.size
    value = float(agree.sum() / (m * (m - 1) / 2))
    rng_models, rng_small, rng_target = np.random.default_rng(rng).spawn(3)
    reps = model_bootstrap(agree, n_resamples, rng_models) if n_resamples else np.array([])
    ok = np.isfinite(reps)
    if ok.any():
        low, high = np.quantile(reps[ok], [(1 - level) / 2, (1 + level) / 2])
    else:
        low = high = np.nan
    noise = {}
    for side, p, gen in (("small", small_p, rng_small), ("target", target_p, rng_target)):
        if p is not None and n_resamples:
            p = np.asarray(p, dtype=float)[order]
            noise[side] = question_noise(p, n_resamples, gen)
    expected = noise_ceiling(s, t, noise.get("small"), noise.get("target"))
    table = pd.DataFrame(
        [[m, m * (m - 1) // 2, value, low, high, expected]], columns=DECISION_COLUMNS
    )
    table.attrs.update(
        n_resamples=int(n_resamples),
        bootstrap_single_model=int((~ok).sum()),
        confidence_level=level,
        measured_noise=", ".join(noise) or "none",
    )
    return table
