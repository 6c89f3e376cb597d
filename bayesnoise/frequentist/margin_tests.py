"""Fixed-N one-sided tests of a paired mean difference against a non-zero null (a margin).

The regression gate asks whether ``delta = E[d]``, the population mean of the per-question
differences candidate - baseline, lies below ``null = -margin``. These are its fixed-N tests
when the null is not 0 (with ``null = 0`` the sign and sign-flip tests of
:mod:`bayesnoise.frequentist.exact_paired` are exact).

**Paired proportions (K = 1, 0/1 scores).** Each question is a win (``d = 1``, probability
``p_w``), a loss (``d = -1``, ``p_l``) or a tie; ``delta = p_w - p_l``. With ``w`` wins and
``l`` losses among ``n`` questions, Tango's score statistic (Tango 1998, Statistics in
Medicine 17:891-908; Nam 1997, Biometrics 53:1422-1430) is::

    Z = (w - l - n * null) / sqrt(n * (2 q + null * (1 - null)))

where ``q`` is the maximum-likelihood ``p_l`` under ``p_w - p_l = null``, the root in
``[max(0, -null), (1 - null) / 2]`` of ``2 n q^2 + B q + C = 0`` with ``B = -(w (1 - null) +
l (1 - 3 null) - 2 t null)``, ``C = -l null (1 - null)`` and ``t = n - w - l`` ties (the score
equation of the trinomial likelihood). With ``null = 0``, ``Z = (w - l) / sqrt(w + l)``,
McNemar's statistic. :func:`paired_proportions_score_test` refers ``Z`` to the standard normal;
:func:`paired_proportions_exact_test` is the exact unconditional test ordered by ``Z`` (the
p-value is the largest, over the nuisance ``p_l`` on the boundary ``p_w - p_l = null``, of the
trinomial probability of a ``Z`` at most the observed one; Chan 1998, Sidik 2003), computed by
exact enumeration of ``(w, l)``: for each discordant total ``s`` the region is ``w <= k_s``
(checked; a general sum otherwise), so its probability is ``sum_s Binom(s; n, 2 q + null) *
BinomCDF(k_s; s, (q + null) / (2 q + null))``, maximised over a grid of ``GRID`` nuisance
values refined by bounded Brent around the best point. :func:`paired_proportions_interval`
inverts the score test (Tango's interval).

**Any differences in [-1, 1] (K > 1).** :func:`studentized_bootstrap_test`: the bootstrap-t
test of ``delta >= null`` (Efron and Tibshirani 1993, ch. 12 and 16): ``T = (mean(d) - null) /
se``, referred to ``T* = (mean(d*) - mean(d)) / se*`` over resamples ``d*`` of the questions;
second-order accurate without symmetry. Its resamples are drawn by a fixed stream over the
*sorted* differences, so the same data give the same p-value whatever the order of the
questions, their ids or the caller's seed; the p-value's Monte Carlo SE is returned.

:func:`t_bootstrap_max_test` is the gate's small-N test at K > 1: the larger of the paired t
test's and the bootstrap-t test's p-values: it rejects only where both reject, so at
every distribution its rejection rate is at most the smaller of theirs. Neither alone holds its size on the differences evals produce
(``python -m studies.gate_margin_size --candidates``, ``benchmarks/results/
gate_margin_candidates.md``: margin 0.01, alpha 0.05, 2,000 null replicates per cell, limit
alpha + 2 MCSE = 0.0597, N = 30 and 50, K = 2, 5, 10). On tie-heavy, near-symmetric
differences (mean accuracy 0.9, kappa 3; at K = 5, N = 30 about 11 of 30 questions differ) the
bootstrap-t rejects 0.0535-0.0715 (its resamples with few nonzero values studentize badly),
Hall's (1992) skewness-removing transformation 0.0565-0.073 (bootstrapped: 0.0535-0.0775),
Johnson's (1978) skewness-corrected t 0.0535-0.0705, where the t test rejects 0.0395-0.049; on
skewed differences (94% of questions a little lower, 6% much higher) the t test rejects up to
0.061 (N = 30, K = 10), the bootstrap-t at most 0.0575, the percentile bootstrap up to 0.0715.
The maximum rejects 0.0395-0.054 in all 12 cells and loses little power: at a drop of 0.06
(N = 30, K = 5) 0.323 against the t test's 0.327 (tie-heavy), 0.187 against 0.191.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special, stats

__all__ = [
    "paired_proportions_exact_test",
    "paired_proportions_interval",
    "paired_proportions_score",
    "paired_proportions_score_test",
    "restricted_loss_rate",
    "studentized_bootstrap_test",
    "t_bootstrap_max_test",
]

#: Nuisance grid of the exact unconditional test (then refined by bounded Brent).
GRID = 400
#: Fixed seed of the studentized bootstrap (module docs: the same data, the same p-value).
BOOTSTRAP_SEED = 20240537


def _check_counts(wins, losses, n):
    wins, losses, n = np.asarray(wins), np.asarray(losses), np.asarray(n)
    if np.any(wins < 0) or np.any(losses < 0) or np.any(wins + losses > n):
        raise ValueError("wins and losses must be >= 0 with wins + losses <= n")
    return wins.astype(float), losses.astype(float), n.astype(float)


def _check_null(null):
    if not -1.0 < float(null) < 1.0:
        raise ValueError(f"null must be in (-1, 1), got {null}")
    return float(null)


def restricted_loss_rate(wins, losses, n, null):
    """Maximum-likelihood loss probability ``p_l`` under ``p_w - p_l = null`` (module docs).

    Examples
    --------
    >>> from scipy import optimize
    >>> w, l, n, null = 3, 9, 40, -0.05
    >>> loglik = lambda q: -(w * np.log(q + null) + l * np.log(q) + (n - w - l) * np.log(1 - 2 * q - null))
    >>> brute = optimize.minimize_scalar(loglik, bounds=(0.05 + 1e-12, 0.525 - 1e-12), method="bounded").x
    >>> bool(abs(restricted_loss_rate(w, l, n, null) - brute) < 1e-5)
    True
    """
    w, lo, n = _check_counts(wins, losses, n)
    null = _check_null(null)
    ties = n - w - lo
    a = 2.0 * n
    b = -(w * (1.0 - null) + lo * (1.0 - 3.0 * null) - 2.0 * ties * null)
    c = -lo * null * (1.0 - null)
    disc = np.maximum(b * b - 4.0 * a * c, 0.0)
    q = (-b + np.sqrt(disc)) / (2.0 * a)
    return np.clip(q, max(0.0, -null), (1.0 - null) / 2.0)


def paired_proportions_score(wins, losses, n, null):
    """Tango's score statistic of ``p_w - p_l = null`` (module docs); vectorised.

    Examples
    --------
    >>> bool(np.isclose(paired_proportions_score(12, 5, 100, 0.0), (12 - 5) / np.sqrt(12 + 5)))
    True
    """
    w, lo, n = _check_counts(wins, losses, n)
    null = _check_null(null)
    q = restricted_loss_rate(w, lo, n, null)
    num = w - lo - n * null
    var = n * (2.0 * q + null * (1.0 - null))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, num / np.sqrt(np.where(var > 0, var, 1.0)), 0.0)
    return z if z.ndim else float(z)


def paired_proportions_score_test(wins, losses, n, null) -> dict:
    """One-sided score test of ``p_w - p_l >= null`` against ``< null`` (module docs).

    Parameters
    ----------
    wins, losses, n : int
        Questions the candidate wins (``d = 1``), loses (``d = -1``), and in all.
    null : float
        The null difference ``p_w - p_l`` (``-margin``), in (-1, 1).

    Returns
    -------
    dict
        ``statistic`` (Tango's Z), ``p_value`` (``Phi(Z)``), ``restricted_loss_rate``.

    Examples
    --------
    >>> from statsmodels.stats.contingency_tables import mcnemar
    >>> r = paired_proportions_score_test(12, 25, 200, 0.0)  # null 0: McNemar's z
    >>> ref = mcnemar([[150, 12], [25, 13]], exact=False, correction=False).pvalue / 2
    >>> bool(abs(r["p_value"] - ref) < 1e-12)
    True
    """
    z = float(paired_proportions_score(wins, losses, n, null))
    return {
        "statistic": z,
        "p_value": float(special.ndtr(z)),
        "restricted_loss_rate": float(restricted_loss_rate(wins, losses, n, null)),
    }


def _tail_thresholds(n: int, null: float, z_obs: float):
    """For each discordant total s: the largest w with Z(w, s - w) <= z_obs (-1: none), and
    whether the region is {w <= k_s} for every s (else the boolean region per s)."""
    tol = 1e-9 * max(1.0, abs(z_obs))
    s_all, w_all = np.tril_indices(n + 1)  # every (s, w) with w <= s
    inside = paired_proportions_score(w_all, s_all - w_all, n, null) <= z_obs + tol
    k = np.full(n + 1, -1, dtype=int)
    np.maximum.at(k, s_all[inside], w_all[inside])
    count = np.bincount(s_all[inside], minlength=n + 1)
    if np.array_equal(count, k + 1):  # every region a prefix {w <= k_s}
        return k, None
    starts = np.concatenate([[0], np.cumsum(np.arange(1, n + 1))])
    return k, [inside[starts[s] : starts[s] + s + 1] for s in range(n + 1)]


def _tail_probability(q, n: int, null: float, k, regions) -> np.ndarray:
    """P(Z <= z_obs) at loss probability ``q`` (array) on the boundary ``p_w - p_l = null``."""
    q = np.atleast_1d(np.asarray(q, dtype=float))
    disc = np.clip(2.0 * q + null, 0.0, 1.0)  # P(d != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.where(disc > 0, np.clip((q + null) / disc, 0.0, 1.0), 0.0)  # P(win | d != 0)
    s = np.arange(n + 1)
    p_s = stats.binom.pmf(s[None, :], n, disc[:, None])
    if regions is None:
        inner = stats.binom.cdf(k[None, :], s[None, :], theta[:, None])
    else:
        inner = np.empty_like(p_s)
        for j in range(n + 1):
            w = np.arange(j + 1)
            pmf = stats.binom.pmf(w[None, :], j, theta[:, None])
            inner[:, j] = (pmf * regions[j][None, :]).sum(1)
    return np.clip((p_s * inner).sum(1), 0.0, 1.0)


def paired_proportions_exact_test(wins, losses, n, null, *, grid: int = GRID) -> dict:
    """Exact unconditional one-sided test of ``p_w - p_l >= null`` ordered by Tango's Z.

    The p-value is ``max_q P_q(Z <= z_obs)`` over the loss probability ``q`` on the null
    boundary ``p_w - p_l = null`` (module docs); its size is at most the level at every ``q``.

    Parameters
    ----------
    wins, losses, n : int
        Questions the candidate wins, loses, and in all.
    null : float
        The null difference ``p_w - p_l`` (``-margin``), in (-1, 1).
    grid : int, default GRID
        Nuisance values scanned before the Brent refinement.

    Returns
    -------
    dict
        ``statistic`` (Tango's Z, the ordering), ``p_value``, ``nuisance`` (the maximising
        loss probability).

    Examples
    --------
    Brute force over every (wins, losses) of n = 8 questions:

    >>> from scipy import stats
    >>> r = paired_proportions_exact_test(0, 3, 8, -0.1)
    >>> cells = [(w, l) for w in range(9) for l in range(9 - w)]
    >>> z = {c: paired_proportions_score(c[0], c[1], 8, -0.1) for c in cells}
    >>> tail = [c for c in cells if z[c] <= r["statistic"] + 1e-9]
    >>> def size(q):
    ...     p = [q - 0.1, q, 1 - 2 * q + 0.1]
    ...     return sum(stats.multinomial.pmf([w, l, 8 - w - l], 8, p) for w, l in tail)
    >>> brute = max(size(q) for q in np.linspace(0.1, 0.55, 2001))
    >>> bool(abs(r["p_value"] - brute) < 1e-6)
    True
    """
    null = _check_null(null)
    n = int(n)
    z_obs = float(paired_proportions_score(wins, losses, n, null))
    k, regions = _tail_thresholds(n, null, z_obs)
    lo, hi = max(0.0, -null), (1.0 - null) / 2.0
    qs = np.linspace(lo, hi, int(grid))
    tails = _tail_probability(qs, n, null, k, regions)
    best = int(np.argmax(tails))
    p, q_best = float(tails[best]), float(qs[best])
    step = (hi - lo) / (int(grid) - 1)
    a, b = max(lo, q_best - step), min(hi, q_best + step)
    if b > a:
        res = optimize.minimize_scalar(
            lambda x: -_tail_probability(x, n, null, k, regions)[0],
            bounds=(a, b),
            method="bounded",
            options={"xatol": 1e-10},
        )
        if -res.fun > p:
            p, q_best = float(-res.fun), float(res.x)
    return {"statistic": z_obs, "p_value": min(1.0, p), "nuisance": q_best}


def paired_proportions_interval(wins, losses, n, *, confidence_level=0.9) -> tuple[float, float]:
    """Two-sided score interval for ``p_w - p_l`` (Tango 1998): the nulls whose score test
    does not reject at ``(1 - confidence_level) / 2`` on either side.

    Examples
    --------
    >>> low, high = paired_proportions_interval(12, 25, 200, confidence_level=0.9)
    >>> z = paired_proportions_score(12, 25, 200, high)
    >>> bool(abs(z + 1.6448536) < 1e-5), bool(low < (12 - 25) / 200 < high)
    (True, True)
    """
    crit = float(special.ndtri(1.0 - (1.0 - float(confidence_level)) / 2.0))
    eps = 1e-12

    def z(x):
        return float(paired_proportions_score(wins, losses, n, x))

    # Z decreases in the null: high solves Z = -crit, low solves Z = crit.
    hi_end = 1.0 - eps
    high = (
        hi_end
        if z(hi_end) >= -crit
        else optimize.brentq(lambda x: z(x) + crit, -1.0 + eps, hi_end, xtol=1e-12)
    )
    lo_end = -1.0 + eps
    low = (
        lo_end
        if z(lo_end) <= crit
        else optimize.brentq(lambda x: z(x) - crit, lo_end, 1.0 - eps, xtol=1e-12)
    )
    low = -1.0 if low <= lo_end else float(low)
    high = 1.0 if high >= hi_end else float(high)
    return low, high


def studentized_bootstrap_test(
    d, null: float, *, n_resamples: int = 9999, confidence_level: float = 0.9
) -> dict:
    """One-sided bootstrap-t test of ``mean >= null`` against ``< null`` (module docs).

    Parameters
    ----------
    d : array_like, shape (N,)
        Differences in [-1, 1], N >= 2, not all equal.
    null : float
        The null mean (``-margin``).
    n_resamples : int, default 9999
        Bootstrap resamples (a fixed stream over the sorted ``d``).
    confidence_level : float, default 0.9
        Of the two-sided bootstrap-t interval returned.

    Returns
    -------
    dict
        ``statistic`` (``(mean - null) / se``), ``p_value`` (``(1 + #{T* <= T}) / (1 + B)``),
        ``mcse`` (its Monte Carlo SE), ``low``, ``high`` (the bootstrap-t interval).

    Examples
    --------
    The same p-value in any order of the questions:

    >>> d = np.array([-0.4, -0.2, 0.0, 0.2, -0.6, -0.4, -0.8, 0.0, 0.2, -0.2] * 3)
    >>> a = studentized_bootstrap_test(d, -0.05, n_resamples=2000)
    >>> b = studentized_bootstrap_test(d[::-1], -0.05, n_resamples=2000)
    >>> a["p_value"] == b["p_value"], bool(a["mcse"] < 0.01)
    (True, True)
    """
    d = np.sort(np.asarray(d, dtype=float))
    n = d.size
    mean = float(d.mean())
    se = float(d.std(ddof=1)) / np.sqrt(n)
    if not se > 0:
        raise ValueError("the bootstrap-t test needs differences that vary")
    t_obs = (mean - float(null)) / se
    gen = np.random.default_rng(BOOTSTRAP_SEED)
    b = int(n_resamples)
    t_star = np.empty(b)
    chunk = max(1, 2_000_000 // max(n, 1))
    for start in range(0, b, chunk):
        stop = min(b, start + chunk)
        x = d[gen.integers(0, n, size=(stop - start, n))]
        m = x.mean(1)
        s = x.std(1, ddof=1) / np.sqrt(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (m - mean) / s
        # a resample of equal values: its mean is the SE-0 limit (+-inf; 0 when it is the mean)
        flat = ~(s > 0)
        gap = m[flat] - mean
        t[flat] = np.where(np.abs(gap) <= 1e-12, 0.0, np.where(gap > 0, np.inf, -np.inf))
        t_star[start:stop] = t
    tol = 1e-9 * max(1.0, abs(t_obs))
    p = (1 + int((t_star <= t_obs + tol).sum())) / (b + 1)
    tail = (1.0 - float(confidence_level)) / 2.0
    q_low, q_high = np.quantile(t_star, [tail, 1.0 - tail])
    low = max(-1.0, mean - q_high * se) if np.isfinite(q_high) else -1.0
    high = min(1.0, mean - q_low * se) if np.isfinite(q_low) else 1.0
    return {
        "statistic": float(t_obs),
        "p_value": float(p),
        "mcse": float(np.sqrt(p * (1.0 - p) / b)),
        "low": float(low),
        "high": float(high),
    }


def t_bootstrap_max_test(
    d, null: float, *, n_resamples: int = 9999, confidence_level: float = 0.9
) -> dict:
    """One-sided test of ``mean >= null``: the larger of the paired t test's and the
    bootstrap-t test's p-values (module docs).

    Rejecting only where both reject, its size is at most the smaller of the two tests'
    sizes: the t test holds where the differences are tie-heavy and near-symmetric (the
    bootstrap-t does not: 0.065 at N = 30, K = 5), the bootstrap-t where they are skewed
    (the t test does not). Its interval is the hull of the two tests' intervals, so it
    excludes a null exactly where the test rejects it.

    Parameters
    ----------
    d : array_like, shape (N,)
        Differences in [-1, 1], N >= 2, not all equal.
    null : float
        The null mean (``-margin``).
    n_resamples : int, default 9999
        Resamples of the bootstrap-t (a fixed stream over the sorted ``d``).
    confidence_level : float, default 0.9
        Of the two-sided interval returned.

    Returns
    -------
    dict
        ``statistic`` (``(mean - null) / se``, both tests' statistic), ``df`` (N - 1, the t
        reference), ``p_value`` (the larger p-value), ``p_value_t``, ``p_value_bootstrap``,
        ``mcse`` (Monte Carlo SE of the bootstrap-t p-value: a bound on that of the maximum,
        which moves by no more than its argument), ``low``, ``high``.

    Examples
    --------
    >>> from scipy import stats
    >>> d = np.array([-0.4, -0.2, 0.0, 0.2, -0.6, -0.4, -0.8, 0.0, 0.2, -0.2] * 3)
    >>> r = t_bootstrap_max_test(d, -0.05, n_resamples=2000)
    >>> ref = stats.ttest_1samp(d + 0.05, 0.0, alternative="less").pvalue
    >>> b = studentized_bootstrap_test(d, -0.05, n_resamples=2000)["p_value"]
    >>> bool(np.isclose(r["p_value"], max(ref, b))), r["df"]
    (True, 29.0)
    """
    d = np.asarray(d, dtype=float)
    n = d.size
    boot = studentized_bootstrap_test(
        d, null, n_resamples=n_resamples, confidence_level=confidence_level
    )
    t = boot["statistic"]
    df = float(n - 1)
    p_t = float(special.stdtr(df, t))
    se = float(d.std(ddof=1)) / np.sqrt(n)
    half = float(special.stdtrit(df, 1.0 - (1.0 - float(confidence_level)) / 2.0)) * se
    mean = float(d.mean())
    return {
        "statistic": t,
        "df": df,
        "p_value": max(p_t, boot["p_value"]),
        "p_value_t": p_t,
        "p_value_bootstrap": boot["p_value"],
        "mcse": boot["mcse"],
        "low": min(max(-1.0, mean - half), boot["low"]),
        "high": max(min(1.0, mean + half), boot["high"]),
    }
