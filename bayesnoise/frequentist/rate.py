"""One success rate against a target p0, and two rates against each other (frequentist side of
the success-probability note, DESIGN section 7).

K = 1 (one independent trial per question): the exact binomial test of H0: p <= p0 (scipy's
``binomtest``), the note's score statistic ``(p^ - p0) / sqrt(p0 (1 - p0) / n)`` and its
likelihood-ratio statistic ``g = -ln Lambda``, and the Clopper-Pearson interval dual to the exact
test. K > 1: the samples of one question are not independent trials, so the test is the
one-sample t-test on the per-question mean scores (one question = one independent unit).
Two models on shared questions: the exact McNemar (sign) test on the discordant questions at
K = 1, the paired t-test on per-question mean differences at K > 1.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from bayesnoise._common import check_alternative, check_confidence_level

__all__ = [
    "binomial_rate_test",
    "clopper_pearson",
    "mean_rate_test",
    "paired_rate_test",
]


def _normal_p(z: float, alternative: str) -> float:
    if alternative == "greater":
        return float(stats.norm.sf(z))
    if alternative == "less":
        return float(stats.norm.cdf(z))
    return float(2.0 * stats.norm.sf(abs(z)))


def clopper_pearson(
    successes: int, n: int, confidence_level: float = 0.95, alternative="two-sided"
):
    """Clopper-Pearson (exact) interval for a binomial rate, dual to the exact test.

    ``"two-sided"``: equal tails; ``"greater"``: ``[L, 1]`` with L the one-sided lower bound
    (the exact test of H0: p <= p0 at level 1 - confidence_level rejects iff p0 < L);
    ``"less"``: ``[0, U]``.

    Parameters
    ----------
    successes, n : int
    confidence_level : float, default 0.95
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> [round(x, 4) for x in clopper_pearson(7, 20, 0.95, "greater")]
    [0.1773, 1.0]
    """
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    s, n = int(successes), int(n)
    tail = 1.0 - level if alternative != "two-sided" else (1.0 - level) / 2.0
    low = 0.0 if s == 0 else float(stats.beta.ppf(tail, s, n - s + 1))
    high = 1.0 if s == n else float(stats.beta.isf(tail, s + 1, n - s))
    if alternative == "greater":
        high = 1.0
    elif alternative == "less":
        low = 0.0
    return low, high


def binomial_rate_test(successes: int, n: int, target: float, alternative: str = "greater") -> dict:
    """Tests of H0: p <= p0 (``"greater"``; ``"less"``: p >= p0; ``"two-sided"``: p = p0) from
    ``successes`` out of ``n`` independent trials.

    Parameters
    ----------
    successes, n : int
    target : float
        p0, in (0, 1).
    alternative : {"greater", "less", "two-sided"}, default "greater"

    Returns
    -------
    dict
        ``p_value_binomial`` (exact, scipy ``binomtest``), ``z_rate`` (the score statistic),
        ``p_value_score`` (its normal p-value), ``lr_statistic`` (the note's
        ``g = -ln Lambda``, 0 when p^ is on the null side) and ``p_value_lr`` (from the signed
        root ``sign(p^ - p0) sqrt(2 g)`` of the unrestricted g, standard normal; two-sided:
        chi-square(1) of ``2 g``).

    Examples
    --------
    >>> r = binomial_rate_test(9, 20, 0.3)
    >>> round(r["p_value_binomial"], 4), round(r["z_rate"], 4)
    (0.1133, 1.4639)
    """
    check_alternative(alternative)
    p0 = float(target)
    if not 0.0 < p0 < 1.0:
        raise ValueError(f"target must be in (0, 1), got {target}")
    s, n = int(successes), int(n)
    p_exact = float(stats.binomtest(s, n, p0, alternative=alternative).pvalue)
    phat = s / n
    z = (phat - p0) / np.sqrt(p0 * (1.0 - p0) / n)
    # g = n p^ ln(p^/p0) + n (1 - p^) ln((1 - p^)/(1 - p0)): n times the Kullback-Leibler
    # divergence of Bernoulli(p^) from Bernoulli(p0) (scipy's entropy takes 0 ln 0 = 0)
    g_free = float(n * stats.entropy([phat, 1.0 - phat], [p0, 1.0 - p0]))
    side = float(np.sign(phat - p0))
    root = side * np.sqrt(2.0 * g_free)  # signed root of -2 ln Lambda, N(0, 1) under p = p0
    g = g_free
    if (alternative == "greater" and side <= 0) or (alternative == "less" and side >= 0):
        g = 0.0  # the one-sided Lambda is 1 when p^ is on the null side
    if alternative == "two-sided":
        p_lr = float(stats.chi2.sf(2.0 * g_free, 1))
    else:
        p_lr = _normal_p(root, alternative)
    return {
        "p_value_binomial": p_exact,
        "z_rate": float(z),
        "p_value_score": _normal_p(float(z), alternative),
        "lr_statistic": g,
        "p_value_lr": p_lr,
    }


def _open_end(low: float, high: float) -> tuple[float, float]:
    """A one-sided t interval's infinite end is the rate's bound (0 or 1), not clipped values."""
    return (0.0 if np.isneginf(low) else float(low), 1.0 if np.isposinf(high) else float(high))


def mean_rate_test(
    question_means, target: float | None, alternative: str = "greater", confidence_level=0.95
) -> dict:
    """One-sample t-test of the mean per-question score against p0, and its interval.

    For K > 1 samples per question: each question's mean score is one independent
    observation (pooling the samples as independent trials would overstate the evidence).

    Parameters
    ----------
    question_means : array_like
        Mean score of each answered question.
    target : float or None
        p0; None: the interval only.
    alternative : {"greater", "less", "two-sided"}, default "greater"
    confidence_level : float, default 0.95

    Returns
    -------
    dict
        ``p_value_t`` (NaN without a target), ``rate_t_low``, ``rate_t_high`` (scipy's
        ``TtestResult.confidence_interval``, one-sided like the test; the open end is 0 or 1);
        all NaN when every question has the same mean score (the t-test is undefined).

    Examples
    --------
    >>> r = mean_rate_test([0.2, 0.6, 0.8, 1.0, 0.4], 0.4)
    >>> round(r["p_value_t"], 4)
    0.1151
    """
    check_alternative(alternative)
    level = check_confidence_level(confidence_level)
    x = np.asarray(question_means, dtype=float)
    if x.size < 2 or np.ptp(x) == 0:  # every question the same score: the t-test is undefined
        return {"p_value_t": np.nan, "rate_t_low": np.nan, "rate_t_high": np.nan}
    res = stats.ttest_1samp(x, 0.5 if target is None else float(target), alternative=alternative)
    low, high = _open_end(*res.confidence_interval(level))
    return {
        "p_value_t": np.nan if target is None else float(res.pvalue),
        "rate_t_low": low,
        "rate_t_high": high,
    }


def paired_rate_test(mean_a, mean_b, *, k1: bool, alternative: str = "greater") -> dict:
    """Test of H0: p_A <= p_B (``"greater"``) on the questions both models answered.

    Parameters
    ----------
    mean_a, mean_b : array_like
        Per-question mean scores of A and B on the shared questions (0/1 at K = 1).
    k1 : bool
        One sample per question: the exact McNemar test (a binomial test of the questions only
        A solved among the discordant ones, p = 1/2); else the paired t-test on the per-question
        differences.
    alternative : {"greater", "less", "two-sided"}, default "greater"

    Returns
    -------
    dict
        ``a_only``, ``b_only`` (K = 1: discordant counts) and ``p_value_mcnemar_exact``, or
        ``p_value_paired_t``.

    Examples
    --------
    >>> r = paired_rate_test([1, 1, 1, 0, 1, 1], [0, 1, 0, 0, 0, 1], k1=True)
    >>> r["a_only"], r["b_only"], r["p_value_mcnemar_exact"]
    (3, 0, 0.125)
    """
    check_alternative(alternative)
    a, b = np.asarray(mean_a, dtype=float), np.asarray(mean_b, dtype=float)
    if k1:
        a_only = int(np.sum((a == 1) & (b == 0)))
        b_only = int(np.sum((a == 0) & (b == 1)))
        n = a_only + b_only
        # no discordant question: P(X >= 0) = 1 under H0 whatever the side
        p = (
            1.0
            if n == 0
            else float(stats.binomtest(a_only, n, 0.5, alternative=alternative).pvalue)
        )
        return {"a_only": a_only, "b_only": b_only, "p_value_mcnemar_exact": p}
    d = a - b
    p = np.nan if d.size < 2 else float(stats.ttest_1samp(d, 0.0, alternative=alternative).pvalue)
    return {"p_value_paired_t": p}
