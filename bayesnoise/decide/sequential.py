"""Anytime-valid paired comparison: a betting confidence sequence and always-valid p-values.

Questions arrive one at a time (or are replayed from a log in order). After question t the
per-question differences ``d_1 .. d_t`` (``d_i = p_A,i - p_B,i``, each model's score on the
question averaged over its K_i samples, so ``d_i`` lies in [-1, 1] for any K_i >= 1) give a
*confidence sequence* for the population paired difference ``delta`` -- an interval for every
t at once, ``P(delta in C_t for all t) >= 1 - alpha`` -- and an *always-valid p-value* for the
null ``delta = m0`` (``m0 = -margin``) that may be looked at after every question and acted
on (stop, ship) without inflating the error rate: ``P(p_t <= alpha for some t) <= alpha``.

Method: betting (testing by betting, Shafer and Vovk; the hedged capital process of
Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting", J. R.
Stat. Soc. B 86(1), 2024, arXiv:2010.09686, 2023 version). For a candidate mean m a bettor
starts with capital 1 and before question i stakes a fraction ``lambda_i`` on the sign of
``d_i - m``::

    K+_t(m) = prod_{i <= t} (1 + lambda+_i (d_i - m)),   K-_t(m) = prod_{i <= t} (1 - lambda-_i (d_i - m))
    K_t(m)  = (K+_t(m) + K-_t(m)) / 2                  (hedged: both directions)

The guarantee, derived:

1. *Null.* The questions are a random sample from the question population, in an order that
   does not depend on their results (shuffled, or streamed as they come), so that
   ``E[d_i | d_1 .. d_{i-1}] = delta`` for every i. Nothing else is assumed: not normality,
   not a constant K_i, not a known variance (the prediction noise of the K_i samples is inside
   ``d_i``, which is bounded whatever K_i is).
2. *Martingale.* The stakes are predictable (computed from ``d_1 .. d_{i-1}`` only) and
   truncated, ``0 <= lambda+_i <= c / (1 + m)`` and ``0 <= lambda-_i <= c / (1 - m)`` with
   ``c = 0.75``, so each factor is at least ``1 - c > 0`` for any ``d_i`` in [-1, 1]. At
   ``m = delta`` each factor has conditional mean ``1 +- lambda_i (delta - m) = 1``, so
   ``K+``, ``K-`` and their average are nonnegative martingales starting at 1 (for
   ``delta <= m``, ``K+`` is a supermartingale; for ``delta >= m``, ``K-`` is).
3. *Ville's inequality.* A nonnegative supermartingale starting at 1 exceeds ``1 / alpha``
   at some time with probability at most ``alpha``: ``P(sup_t K_t(delta) >= 1 / alpha)
   <= alpha``.
4. *Confidence sequence.* ``C_t = {m : max_{s <= t} K_s(m) < 1 / alpha}`` therefore contains
   ``delta`` at every t at once with probability >= 1 - alpha (apply 3 at ``m = delta``).
   It is computed on a grid of m (``resolution`` 0.001, holding ``m0`` exactly) and
   reported as its smallest and largest member.
5. *Always-valid p-value.* ``p_t = min(1, 1 / max_{s <= t} K_s(m0))`` is non-increasing and
   ``P(p_t <= alpha for some t) <= alpha`` under ``delta = m0`` (3 at ``m = m0``): checking
   after every question, stopping whenever, is allowed. ``p_t <= alpha`` exactly when ``m0``
   has left ``C_t``. The direction of a rejection is the side whose capital is larger; a
   claim ``delta > m0`` can be wrong only when ``delta <= m0``, where ``K+`` is a
   supermartingale, so directional errors are bounded by ``alpha`` too.
6. *One-sided.* ``alternative="greater"`` (``"less"``) uses ``K+`` (``K-``) alone, valid for
   the composite null ``delta <= m0`` (``>= m0``) by 2-3; its sequence is one-sided.

The stakes (any predictable choice keeps 1-6; they only decide how fast the capital grows
when the null is false):

* ``difference=None`` (default, adaptive): aGRAPA of Waudby-Smith and Ramdas, the plug-in
  Kelly bet ``lambda_i(m) = g / (s2 + g^2)`` with ``g = mu_{i-1} - m``, ``mu`` and ``s2``
  the running mean (one pseudo-question at 0) and variance (one pseudo-question of variance
  1); ``lambda+`` its positive part, ``lambda-`` its negative part. The sequence keeps
  shrinking (width of order sqrt(log t / t)) and any nonzero difference is found
  eventually.
* ``difference=D`` (planned): the Kelly bet for the planned alternative ``delta = m0 +- D``,
  ``lambda_i = D / (s2 + D^2)`` on both sides and for every m (a predictable plug-in
  sequential probability ratio test; a point-mass mixture in the mSPRT sense). Like a fixed-N
  power calculation it puts everything on the difference that matters: it stops soonest when
  the true difference is about D (on average at about the fixed-N test's N at 80% power,
  ``benchmarks/simulation_decide_ci.py``), but the sequence stops shrinking at a width of
  about D.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> d = rng.choice([-1.0, 0.0, 1.0], p=[0.10, 0.75, 0.15], size=3000)  # A better by 0.05
>>> cs = confidence_sequence(d)
>>> t = int(np.argmax(cs["p_value"] <= 0.05))  # first question where p <= alpha
>>> bool(cs["low"][t] > 0), bool(cs["p_value"][t - 1] > 0.05)
(True, True)
"""

from __future__ import annotations

import numpy as np

from bayesnoise._common import check_alternative

__all__ = [
    "always_valid_pvalues",
    "confidence_sequence",
    "stopping_times",
]

#: Largest stake, as a fraction of what keeps the capital positive (Waudby-Smith and Ramdas
#: recommend 1/2 to 3/4).
TRUNCATION = 0.75
#: Grid step of the candidate means m of the confidence sequence.
RESOLUTION = 0.001


def _check(d, null, alpha, difference, alternative) -> np.ndarray:
    d = np.asarray(d, dtype=float)
    if d.ndim == 0 or d.shape[-1] == 0:
        raise ValueError("d needs a question axis (the last) with at least one question")
    if not np.all(np.isfinite(d)) or np.any(np.abs(d) > 1.0):
        raise ValueError("the per-question differences d must be finite and in [-1, 1]")
    if not -1.0 < float(null) < 1.0:
        raise ValueError(f"the null difference must be in (-1, 1), got {null}")
    if not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if difference is not None and not 0.0 < float(difference) < 2.0:
        raise ValueError(f"the planned difference must be in (0, 2), got {difference}")
    check_alternative(alternative)
    return d


def _stakes(mean, var, m, difference, truncation):
    """Predictable stakes (lambda+, lambda-) for candidate means ``m`` from the running mean
    and variance of the questions before this one (broadcast over replicates and m)."""
    if difference is None:  # aGRAPA: plug-in Kelly bet against m
        gap = mean - m
        lam = gap / (var + gap * gap)
        plus, minus = np.maximum(lam, 0.0), np.maximum(-lam, 0.0)
    else:  # Kelly bet for the planned alternative m0 +- D, the same for every m
        lam = difference / (var + difference * difference)
        plus = minus = np.broadcast_to(lam, np.broadcast_shapes(np.shape(lam), np.shape(m)))
    return np.minimum(plus, truncation / (1.0 + m)), np.minimum(minus, truncation / (1.0 - m))


def _capital_paths(d, m, difference, truncation):
    """Yield ``(t, log K+_t(m), log K-_t(m))`` after each question.

    ``d`` is (R, T); ``m`` broadcasts against (R, G). The running mean has one
    pseudo-question at 0 and the running variance one of variance 1 (the largest a
    difference in [-1, 1] can have), so the first stakes are small.
    """
    reps, n = d.shape
    shape = np.broadcast_shapes((reps, 1), m.shape)
    log_plus, log_minus = np.zeros(shape), np.zeros(shape)
    total = np.zeros((reps, 1))
    squares = np.ones((reps, 1))
    mean = np.zeros((reps, 1))
    var = np.ones((reps, 1))
    for t in range(n):
        plus, minus = _stakes(mean, var, m, difference, truncation)
        x = d[:, t : t + 1]
        log_plus += np.log1p(plus * (x - m))
        log_minus += np.log1p(-minus * (x - m))
        yield t, log_plus, log_minus
        squares += (x - mean) ** 2
        total += x
        mean = total / (t + 2)
        var = squares / (t + 2)


def _log_capital(log_plus, log_minus, alternative):
    if alternative == "greater":
        return log_plus
    if alternative == "less":
        return log_minus
    return np.logaddexp(log_plus, log_minus) - np.log(2.0)


def _direction(log_plus, log_minus, alternative):
    """+1 where the evidence is for delta > null: the larger capital (two-sided), or the one
    side a one-sided test bets on."""
    if alternative != "two-sided":
        return np.full(np.shape(log_plus), 1 if alternative == "greater" else -1, dtype=np.int8)
    return np.where(np.asarray(log_plus) >= np.asarray(log_minus), 1, -1).astype(np.int8)


def always_valid_pvalues(
    d,
    *,
    null: float = 0.0,
    difference: float | None = None,
    alternative: str = "two-sided",
    truncation: float = TRUNCATION,
) -> tuple[np.ndarray, np.ndarray]:
    """Always-valid p-values of ``delta = null`` after each question, for many logs at once.

    The p-value of the confidence sequence of :func:`confidence_sequence` at the null alone
    (the same stakes, so the same numbers), vectorised over leading axes: simulation studies
    call it on (replicates, questions) arrays.

    Parameters
    ----------
    d : array_like, shape (..., T)
        Per-question differences in [-1, 1], in the order the questions arrive.
    null : float, default 0.0
        The difference under the null (``-margin``), in (-1, 1).
    difference : float, optional
        Planned difference: stake the Kelly bet for ``null +- difference`` (module docs).
    alternative : {"two-sided", "greater", "less"}
    truncation : float, default 0.75

    Returns
    -------
    p_value : numpy.ndarray, shape (..., T)
        ``min(1, 1 / max_{s <= t} K_s(null))``, non-increasing along the last axis.
    direction : numpy.ndarray of int8, shape (..., T)
        +1 where the capital betting on ``delta > null`` leads, -1 otherwise (one-sided: the
        side tested).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> d = rng.choice([-1.0, 0.0, 1.0], p=[0.1, 0.8, 0.1], size=(200, 500))  # the null
    >>> p, _ = always_valid_pvalues(d)
    >>> bool((np.diff(p, axis=-1) <= 0).all()), float((p[:, -1] <= 0.05).mean()) <= 0.05
    (True, True)
    """
    d = _check(d, null, 0.05, difference, alternative)
    lead, n = d.shape[:-1], d.shape[-1]
    flat = d.reshape(-1, n)
    m = np.full((1, 1), float(null))
    p = np.empty(flat.shape)
    direction = np.empty(flat.shape, dtype=np.int8)
    best = np.full((flat.shape[0], 1), -np.inf)
    for t, lp, lm in _capital_paths(flat, m, difference, truncation):
        best = np.maximum(best, _log_capital(lp, lm, alternative))
        p[:, t] = np.minimum(1.0, np.exp(-best[:, 0]))
        direction[:, t] = _direction(lp[:, 0], lm[:, 0], alternative)
    return p.reshape(*lead, n), direction.reshape(*lead, n)


def stopping_times(p_value, alpha: float = 0.05) -> np.ndarray:
    """Questions used until ``p <= alpha`` (1-based), ``T + 1`` where it never is.

    Examples
    --------
    >>> stopping_times([[0.5, 0.04, 0.01], [0.9, 0.8, 0.7]]).tolist()
    [2, 4]
    """
    hit = np.asarray(p_value) <= alpha
    n = hit.shape[-1]
    return np.where(hit.any(axis=-1), hit.argmax(axis=-1) + 1, n + 1)


def confidence_sequence(
    d,
    *,
    null: float = 0.0,
    alpha: float = 0.05,
    difference: float | None = None,
    alternative: str = "two-sided",
    resolution: float = RESOLUTION,
    truncation: float = TRUNCATION,
) -> dict[str, np.ndarray]:
    """Confidence sequence and always-valid p-value of one paired log, after each question.

    Parameters
    ----------
    d : array_like, shape (T,)
        Per-question differences A - B in [-1, 1] (each model's score averaged over its
        samples of the question), in the order the questions arrive.
    null : float, default 0.0
        Difference under the null, ``-margin``; the grid of m holds it exactly.
    alpha : float, default 0.05
        Error level of the sequence (coverage at all times >= 1 - alpha) and of the test.
    difference : float, optional
        Planned difference (module docs); None: adaptive stakes.
    alternative : {"two-sided", "greater", "less"}
        "greater": the sequence bounds delta from below only (high = 1) and the test is of
        ``delta <= null``; "less": from above (low = -1), ``delta >= null``.
    resolution : float, default 0.001
        Grid step of the candidate means.
    truncation : float, default 0.75

    Returns
    -------
    dict of str to numpy.ndarray, each (T,)
        ``questions`` (1..T), ``difference`` (running mean of d), ``low``, ``high`` (the
        smallest and largest grid value still in the sequence; NaN if none is),
        ``p_value`` (always valid, for ``delta = null``), ``direction`` (+1: the evidence
        says delta > null).

    Examples
    --------
    >>> import numpy as np
    >>> d = np.random.default_rng(2).choice([-1.0, 0.0, 1.0], p=[0.1, 0.8, 0.1], size=400)
    >>> cs = confidence_sequence(d)
    >>> bool((np.diff(cs["low"]) >= 0).all() and (np.diff(cs["high"]) <= 0).all())
    True
    """
    d = _check(d, null, alpha, difference, alternative)
    if d.ndim != 1:
        raise ValueError("confidence_sequence takes one log (a 1-d array of differences)")
    if not 0.0 < resolution < 0.5:
        raise ValueError(f"resolution must be in (0, 0.5), got {resolution}")
    null = float(null)
    below = np.arange(np.floor((null + 1.0) / resolution), 0, -1)
    above = np.arange(1, np.floor((1.0 - null) / resolution) + 1)
    grid = null + resolution * np.concatenate([-below, [0.0], above])
    grid = grid[(grid > -1.0) & (grid < 1.0)]
    at_null = int(np.flatnonzero(grid == null)[0])
    n = d.size
    out = {k: np.empty(n) for k in ("low", "high", "p_value")}
    direction = np.empty(n, dtype=np.int8)
    threshold = np.log(1.0 / alpha)
    # Only candidate means never rejected can still be in the sequence (a running
    # intersection), so rejected ones are dropped as they go; the null is kept for its p-value.
    m = grid
    is_null = np.arange(grid.size) == at_null
    alive = np.ones(grid.size, dtype=bool)
    log_plus, log_minus = np.zeros(grid.size), np.zeros(grid.size)
    total, squares, mean, var = np.float64(0.0), np.float64(1.0), np.float64(0.0), np.float64(1.0)
    best = -np.inf
    for t, x in enumerate(d):
        plus, minus = _stakes(mean, var, m, difference, truncation)
        log_plus += np.log1p(plus * (x - m))
        log_minus += np.log1p(-minus * (x - m))
        log_k = _log_capital(log_plus, log_minus, alternative)
        alive &= log_k < threshold
        j = int(np.flatnonzero(is_null)[0])
        best = max(best, float(log_k[j]))
        out["p_value"][t] = min(1.0, float(np.exp(-best)))
        direction[t] = _direction(log_plus[j], log_minus[j], alternative)
        live = m[alive]
        low, high = (live[0], live[-1]) if live.size else (np.nan, np.nan)
        out["low"][t] = -1.0 if alternative == "less" else low
        out["high"][t] = 1.0 if alternative == "greater" else high
        keep = alive | is_null
        if not keep.all():
            m, is_null, alive = m[keep], is_null[keep], alive[keep]
            log_plus, log_minus = log_plus[keep], log_minus[keep]
        squares += (x - mean) ** 2
        total += x
        mean, var = total / (t + 2), squares / (t + 2)
    questions = np.arange(1, n + 1)
    return {
        "questions": questions,
        "difference": np.cumsum(d) / questions,
        **out,
        "direction": direction,
    }
