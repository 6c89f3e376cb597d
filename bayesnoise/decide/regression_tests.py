"""The one-sided paired tests behind the regression gate (:mod:`bayesnoise.decide.gate`).

:func:`paired_regression_test` (the paired t test, or an exact test where t is not trusted:
the sign test, the exact sign-flip test, or the betting test with a margin; the module docs of
:mod:`bayesnoise.decide.gate` give the rule), :func:`bayes_regression_test` (the
Dirichlet-process posterior of the population paired difference), :func:`combine_tests` (the
meta-analysis test over several benchmarks) and :func:`betting_interval`.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = [
    "bayes_regression_test",
    "betting_interval",
    "combine_tests",
    "paired_regression_test",
]

#: A variance of differences in [-1, 1] is zero up to rounding below this.
_ZERO_VAR = 1e-12
#: Fewer questions than this with a nonzero difference: an exact test decides (gate's docs).
SMALL_DISCORDANT = 30


def _t_quantile(q, df):
    return special.stdtrit(df, q) if np.isfinite(df) else special.ndtri(q)


def _exact_needed(d) -> bool:
    """Where the t reference is not trusted: the differences do not vary, or fewer than
    ``SMALL_DISCORDANT`` questions differ (module docs)."""
    return bool(d.var(ddof=1) <= _ZERO_VAR or np.count_nonzero(d) < SMALL_DISCORDANT)


def betting_interval(d, *, alpha: float = 0.05, null: float = 0.0, rng=0) -> tuple[float, float]:
    """Two-sided ``1 - 2 alpha`` betting interval for the mean of differences in [-1, 1].

    The confidence sequence of :func:`bayesnoise.decide.sequential.confidence_sequence` at
    level ``1 - 2 alpha`` after the last question, the questions taken in a random order
    (``rng``): valid at any N for any distribution on [-1, 1], never of zero width (its ends
    are on a grid of step 0.001 that holds ``null``). Its upper end is below ``null`` whenever
    the one-sided betting test of ``delta >= null`` rejects at ``alpha``.

    Examples
    --------
    >>> betting_interval([-1.0, -1.0])  # two questions: no information
    (-1.0, 1.0)
    """
    from .sequential import RESOLUTION, confidence_sequence

    d = np.random.default_rng(rng).permutation(np.asarray(d, dtype=float))
    cs = confidence_sequence(d, null=null, alpha=2.0 * alpha)
    low, high = float(cs["low"][-1]), float(cs["high"][-1])
    # The grid stops one step short of -1 and 1 (the stakes are capped by 1 / (1 +- m));
    # an end still at the last grid point is extended to the bound (a superset, still valid).
    edge = 1.0 - 1.5 * RESOLUTION
    return (-1.0 if low < -edge else low), (1.0 if high > edge else high)


def paired_regression_test(
    d, *, margin: float = 0.0, alpha: float = 0.05, n_resamples: int = 9999, rng=0
) -> dict:
    """One-sided paired test of ``delta >= -margin`` against ``delta < -margin``.

    The paired t test, or where it is not trusted (every difference equal, or fewer than
    ``SMALL_DISCORDANT`` = 30 questions that differ: module docs) an exact test: with
    ``margin = 0`` the sign test (K = 1) or the sign-flip test
    (:func:`bayesnoise.frequentist.exact_paired.sign_flip_test`), with a margin the betting
    test of the bounded mean; the interval is then :func:`betting_interval`.

    Parameters
    ----------
    d : array_like, shape (N,)
        Per-question differences candidate - baseline in [-1, 1], N >= 2.
    margin : float, default 0.0
        Tolerated drop, in (-1, 1).
    alpha : float, default 0.05
    n_resamples : int, default 9999
        Random sign patterns of the sign-flip test beyond its exact range.
    rng : int or numpy.random.Generator, default 0
        Order of the questions for the betting test and interval; the Monte Carlo sign flips.

    Returns
    -------
    dict
        ``questions``, ``change`` (mean of d), ``se_change`` (ddof-1 SE), ``t_change`` (``(change
        + margin) / se``; NaN when the differences do not vary), ``df`` (N - 1),
        ``p_value_regression`` (lower tail), ``change_low``, ``change_high`` (two-sided ``1 - 2
        alpha`` t interval, or the betting interval), ``test`` (``"t"``, ``"sign"``,
        ``"sign-flip"``, ``"betting"``), ``discordant`` (questions with a nonzero difference).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> d = np.random.default_rng(0).choice([-1.0, 0.0, 1.0], p=[0.2, 0.7, 0.1], size=300)
    >>> r = paired_regression_test(d, margin=0.01)
    >>> ref = stats.ttest_1samp(d + 0.01, 0.0, alternative="less")
    >>> bool(np.isclose(r["p_value_regression"], ref.pvalue)), bool(np.isclose(r["t_change"], ref.statistic))
    (True, True)
    >>> r = paired_regression_test([-1.0, -1.0])  # two questions the candidate loses
    >>> r["test"], r["p_value_regression"], bool(r["change_high"] > 0.9)
    ('sign', 0.25, True)
    """
    d = np.asarray(d, dtype=float)
    n = d.size
    if n < 2:
        raise ValueError(f"the paired test needs at least 2 questions, got {n}")
    change = float(d.mean())
    var = float(d.var(ddof=1))
    se = float(np.sqrt(var / n))
    df = float(n - 1)
    shifted = change + margin
    discordant = int(np.count_nonzero(d))
    if not _exact_needed(d):
        t = shifted / se
        p = float(special.stdtr(df, t))
        half = float(_t_quantile(1.0 - alpha, df)) * se
        low, high, test = change - half, change + half, "t"
    else:
        t = shifted / se if var > _ZERO_VAR else np.nan
        if margin == 0.0:
            from bayesnoise.frequentist.exact_paired import sign_flip_test

            res = sign_flip_test(d, alternative="less", n_resamples=n_resamples, rng=rng)
            p, test = float(res["p_value"]), str(res["test"])
        else:
            from .sequential import always_valid_pvalues

            order = np.random.default_rng(rng).permutation(d)
            p = float(always_valid_pvalues(order, null=-margin, alternative="less")[0][-1])
            test = "betting"
        low, high = betting_interval(d, alpha=alpha, null=-margin, rng=rng)
    return {
        "questions": n,
        "change": change,
        "se_change": se,
        "t_change": float(t),
        "df": df,
        "p_value_regression": p,
        "change_low": low,
        "change_high": high,
        "test": test,
        "discordant": discordant,
    }


def bayes_regression_test(
    d, *, margin: float = 0.0, alpha: float = 0.05, n_resamples: int = 4000, rng=0
) -> dict:
    """Posterior probability of a regression beyond ``margin``: Dirichlet-process posterior.

    The draws of :func:`bayesnoise.conjugate.paired_population_posterior` (the same weights
    for the same seed and number of draws): ``delta = sum_j w_j d_j`` over the N differences
    and two end atoms at ``-e`` and ``+e``, ``w ~ Dirichlet(1, ..., 1, 1/2, 1/2)``.

    Returns
    -------
    dict
        ``questions``, ``change`` (observed mean), ``change_bayes`` (posterior mean
        ``sum d / (N + 1)``), ``change_bayes_low`` / ``_high`` (equal-tailed ``1 - 2 alpha``),
        ``prob_no_regression`` (``P(delta >= -margin | data)``) and ``draws`` (the
        posterior draws of delta).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import paired_population_posterior
    >>> d = np.random.default_rng(0).choice([-1.0, 0.0, 1.0], p=[0.2, 0.7, 0.1], size=300)
    >>> r = bayes_regression_test(d, n_resamples=2000)
    >>> ref = paired_population_posterior(d, n_resamples=2000)["prob_a_better"]
    >>> bool(np.isclose(r["prob_no_regression"], ref))
    True
    """
    from bayesnoise.conjugate.dirichlet import PRIOR_MASS, dirichlet_weights
    from bayesnoise.conjugate.pairs import end_atom

    d = np.asarray(d, dtype=float)
    n = d.size
    rng = np.random.default_rng(rng)
    atom = float(end_atom((d * d).sum(), (d**4).sum()))
    wts, ends = dirichlet_weights(rng, (1, int(n_resamples)), n, PRIOR_MASS)
    wts, ends = wts[0], ends[0]
    delta = (wts @ d + (ends[:, 1] - ends[:, 0]) * atom) / (wts.sum(-1) + ends.sum(-1))
    low, high = np.quantile(delta, [alpha, 1.0 - alpha])
    return {
        "questions": n,
        "change": float(d.mean()),
        "change_bayes": float(d.sum() / (n + PRIOR_MASS)),
        "change_bayes_low": float(low),
        "change_bayes_high": float(high),
        "prob_no_regression": _p_no_regression(delta, margin),
        "draws": delta,
    }


def _p_no_regression(delta, margin) -> float:
    """P(delta >= -margin) from draws, ties counted half (as ``prob_a_better`` counts them)."""
    return float((delta > -margin).mean() + 0.5 * (delta == -margin).mean())


def combine_tests(
    rows: list[dict],
    *,
    margin: float = 0.0,
    alpha: float = 0.05,
    differences=None,
    n_resamples: int = 9999,
    rng=0,
) -> dict:
    """The combined test of the mean difference over benchmarks (module docs).

    With ``differences`` (the per-question arrays) and fewer than ``SMALL_DISCORDANT``
    questions that differ in all, or none that vary: with ``margin = 0`` the exact sign-flip
    test of ``sum_b mean(d_b)`` (the differences weighted by ``1 / N_b``; exchangeability on
    each question makes every sign pattern equally likely), no interval (NaN); with a margin
    no exact test is available and the combined row does not flag (p = 1, test ``"none"``).

    Examples
    --------
    >>> from bayesnoise.frequentist import meta_z
    >>> rows = [{"change": -0.02, "se_change": 0.01, "df": 99, "questions": 100},
    ...         {"change": -0.01, "se_change": 0.02, "df": 399, "questions": 400}]
    >>> c = combine_tests(rows)
    >>> z = [r["change"] / r["se_change"] for r in rows]
    >>> bool(np.isclose(c["t_change"], meta_z(z, weights=[0.01, 0.02])))
    True
    """
    change = np.array([r["change"] for r in rows])
    se = np.array([r["se_change"] for r in rows])
    df = np.array([r["df"] for r in rows])
    b = change.size
    total_var = float((se**2).sum())
    mean = float(change.mean())
    se_mean = float(np.sqrt(total_var)) / b
    shifted = mean + margin
    if differences is not None:
        nonzero = sum(int(np.count_nonzero(d)) for d in differences)
        exact = total_var <= _ZERO_VAR or nonzero < SMALL_DISCORDANT
    else:
        exact = total_var <= _ZERO_VAR
    if exact:
        t = shifted / se_mean if total_var > _ZERO_VAR else np.nan
        df_c = float(df.sum())
        if differences is None or margin != 0.0:
            p, test = 1.0, "none"
        else:
            from bayesnoise.frequentist.exact_paired import sign_flip_test

            weighted = np.concatenate([np.asarray(d, float) / np.size(d) for d in differences])
            res = sign_flip_test(weighted, n_resamples=n_resamples, rng=rng)
            p, test = float(res["p_value"]), "sign-flip"
        return {
            "questions": int(sum(r["questions"] for r in rows)),
            "change": mean,
            "se_change": se_mean,
            "t_change": float(t),
            "df": df_c,
            "p_value_regression": p,
            "change_low": np.nan,
            "change_high": np.nan,
            "test": test,
        }
    else:
        df_c = total_var**2 / float((se**4 / df).sum())
        t = shifted / se_mean
        p = float(special.stdtr(df_c, t))
    half = float(_t_quantile(1.0 - alpha, df_c)) * se_mean
    return {
        "questions": int(sum(r["questions"] for r in rows)),
        "change": mean,
        "se_change": se_mean,
        "t_change": float(t),
        "df": float(df_c),
        "p_value_regression": p,
        "change_low": mean - half,
        "change_high": mean + half,
        "test": "t",
    }
