"""The one-sided paired tests behind the regression gate (:mod:`bayesnoise.decide.gate`).

:func:`paired_regression_test` (the paired t test, or an exact test where t is not trusted:
the sign test or the exact sign-flip test; with a margin the fixed-N margin tests of
:mod:`bayesnoise.frequentist.margin_tests`; the module docs of :mod:`bayesnoise.decide.gate`
give the rule), :func:`bayes_regression_test` (the
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
    "margin_interval",
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


def _is_binary(d) -> bool:
    """Every difference is -1, 0 or 1 (0/1 scores, one sample per question)."""
    return bool(np.all((d == -1.0) | (d == 0.0) | (d == 1.0)))


def _hoeffding(d, margin, alpha) -> tuple[float, float, float]:
    """Hoeffding's one-sided p-value of ``delta >= -margin`` for differences in [-1, 1] and
    the two-sided ``1 - 2 alpha`` interval; valid at any N, used where every difference is
    equal (no estimate of spread)."""
    n, mean = d.size, float(d.mean())
    gap = mean + margin
    p = float(np.exp(-n * gap * gap / 2.0)) if gap < 0 else 1.0
    half = float(np.sqrt(2.0 * np.log(1.0 / alpha) / n))
    return p, max(-1.0, mean - half), min(1.0, mean + half)


def margin_interval(d, test: str, *, alpha: float = 0.05, margin: float = 0.0, n_resamples=9999):
    """Two-sided ``1 - 2 alpha`` interval that goes with a margin test of
    :func:`paired_regression_test`: Tango's score interval (``"exact unconditional"``,
    ``"Tango score"``), the hull of the t and bootstrap-t intervals (``"max(t, bootstrap-t)"``),
    Hoeffding's (``"Hoeffding"``).

    Examples
    --------
    >>> margin_interval([1.0, 0.0, -1.0, -1.0, 0.0], "Tango score", alpha=0.05)[0] < -0.2
    True
    """
    from bayesnoise.frequentist.margin_tests import (
        paired_proportions_interval,
        t_bootstrap_max_test,
    )

    d = np.asarray(d, dtype=float)
    if test in ("exact unconditional", "Tango score"):
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        return paired_proportions_interval(wins, losses, d.size, confidence_level=1 - 2 * alpha)
    if test == "max(t, bootstrap-t)":
        r = t_bootstrap_max_test(
            d, -margin, n_resamples=n_resamples, confidence_level=1 - 2 * alpha
        )
        return r["low"], r["high"]
    if test == "Hoeffding":
        return _hoeffding(d, margin, alpha)[1:]
    raise ValueError(f"no margin interval for the test {test!r}")


def paired_regression_test(
    d,
    *,
    margin: float = 0.0,
    alpha: float = 0.05,
    n_resamples: int = 9999,
    rng=0,
    binary: bool | None = None,
) -> dict:
    """One-sided paired test of ``delta >= -margin`` against ``delta < -margin``.

    Without a margin: the paired t test, or where it is not trusted (every difference equal,
    or fewer than ``SMALL_DISCORDANT`` = 30 questions that differ: module docs of
    :mod:`bayesnoise.decide.gate`) the sign test (K = 1) or the exact sign-flip test
    (:func:`bayesnoise.frequentist.exact_paired.sign_flip_test`), with the betting interval.
    With a margin, a fixed-N test made for a non-zero null
    (:mod:`bayesnoise.frequentist.margin_tests`): on 0/1 scores (``binary``) the exact
    unconditional test of paired proportions ordered by Tango's score (up to ``EXACT_N`` =
    1000 questions) or Tango's score test, with Tango's score interval; otherwise the paired t
    test from ``T_MIN_N`` = 100 questions with at least 30 that differ, else the larger of
    the t test's and the studentized bootstrap (bootstrap-t) test's p-values with the hull of
    their intervals (Hoeffding's bound when every difference is equal).

    Parameters
    ----------
    d : array_like, shape (N,)
        Per-question differences candidate - baseline in [-1, 1], N >= 2.
    margin : float, default 0.0
        Tolerated drop, in (-1, 1).
    alpha : float, default 0.05
    n_resamples : int, default 9999
        Random sign patterns of the sign-flip test beyond its exact range; resamples of the
        bootstrap-t.
    rng : int or numpy.random.Generator, default 0
        Order of the questions for the betting interval (no margin); the Monte Carlo sign
        flips. The margin tests do not depend on it (the bootstrap draws a fixed stream over
        the sorted differences).
    binary : bool, optional
        The scores are 0/1 with one sample per question (K = 1). Default: every difference
        is -1, 0 or 1.

    Returns
    -------
    dict
        ``questions``, ``change`` (mean of d), ``se_change`` (ddof-1 SE), ``t_change`` (the
        statistic of the test named in ``test``: ``(change + margin) / se`` for the t and
        max(t, bootstrap-t) tests, Tango's Z for the paired-proportion tests, NaN for the
        sign, sign-flip and Hoeffding tests), ``df`` (N - 1 for t and max(t, bootstrap-t);
        inf for Tango's normal reference; NaN where there is none), ``p_value_regression`` (lower tail), ``mcse``
        (Monte Carlo SE of that p-value, 0 when exact or asymptotic), ``change_low``,
        ``change_high`` (two-sided ``1 - 2 alpha`` interval of the test), ``test`` (``"t"``,
        ``"sign"``, ``"sign-flip"``, ``"exact unconditional"``, ``"Tango score"``,
        ``"max(t, bootstrap-t)"``, ``"Hoeffding"``), ``discordant`` (questions with a
        nonzero difference).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> d = np.random.default_rng(0).normal(-0.05, 0.3, size=300).clip(-1, 1)
    >>> r = paired_regression_test(d, margin=0.01)
    >>> ref = stats.ttest_1samp(d + 0.01, 0.0, alternative="less")
    >>> bool(np.isclose(r["p_value_regression"], ref.pvalue)), bool(np.isclose(r["t_change"], ref.statistic))
    (True, True)
    >>> r = paired_regression_test([-1.0, -1.0])  # two questions the candidate loses
    >>> r["test"], r["p_value_regression"], bool(r["change_high"] > 0.9)
    ('sign', 0.25, True)
    >>> d = np.repeat([1.0, -1.0, 0.0], [2, 18, 480])  # 2 wins, 18 losses, 480 ties
    >>> r = paired_regression_test(d, margin=0.01)
    >>> r["test"], bool(r["p_value_regression"] < 0.01)
    ('exact unconditional', True)
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
    mcse = 0.0
    if margin != 0.0:
        binary = _is_binary(d) if binary is None else bool(binary)
        t, p, low, high, test, df = _margin_test(d, margin, alpha, n_resamples, binary)
        if test == "max(t, bootstrap-t)":
            mcse = p[1]
            p = p[0]
    elif not _exact_needed(d):
        t = shifted / se
        p = float(special.stdtr(df, t))
        half = float(_t_quantile(1.0 - alpha, df)) * se
        low, high, test = change - half, change + half, "t"
    else:
        from bayesnoise.frequentist.exact_paired import sign_flip_test

        res = sign_flip_test(d, alternative="less", n_resamples=n_resamples, rng=rng)
        p, test, mcse = float(res["p_value"]), str(res["test"]), float(res["mcse"])
        t, df = np.nan, np.nan
        low, high = betting_interval(d, alpha=alpha, null=-margin, rng=rng)
    return {
        "questions": n,
        "change": change,
        "se_change": se,
        "t_change": float(t),
        "df": float(df),
        "p_value_regression": float(p),
        "mcse": float(mcse),
        "change_low": float(low),
        "change_high": float(high),
        "test": test,
        "discordant": discordant,
    }


#: Most questions for the exact unconditional test of paired proportions (about 1 s); beyond,
#: Tango's score test (studies/gate_margin_size.py).
EXACT_N = 1000
#: Fewest questions for the paired t test alone with a margin at K > 1 (with at least
#: SMALL_DISCORDANT that differ); fewer: max(t, bootstrap-t) (module docs of
#: bayesnoise.frequentist.margin_tests). The t test alone at N = 100, K = 5, margin 0.01 rejects
#: 0.044-0.0515 of null evals in the three shapes of studies/gate_margin_size.py (skewed
#: differences included; 2,000 replicates, limit alpha + 2 MCSE = 0.0597).
T_MIN_N = 100


def _margin_test(d, margin, alpha, n_resamples, binary):
    """(statistic, p, low, high, test, df) of the margin test (:func:`paired_regression_test`)."""
    from bayesnoise.frequentist.margin_tests import (
        paired_proportions_exact_test,
        paired_proportions_interval,
        paired_proportions_score_test,
        t_bootstrap_max_test,
    )

    n = d.size
    if binary:
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        if n <= EXACT_N:
            r = paired_proportions_exact_test(wins, losses, n, -margin)
            test, df = "exact unconditional", np.nan
        else:
            r = paired_proportions_score_test(wins, losses, n, -margin)
            test, df = "Tango score", np.inf
        low, high = paired_proportions_interval(wins, losses, n, confidence_level=1 - 2 * alpha)
        return r["statistic"], r["p_value"], low, high, test, df
    var = float(d.var(ddof=1))
    if var <= _ZERO_VAR:
        p, low, high = _hoeffding(d, margin, alpha)
        return np.nan, p, low, high, "Hoeffding", np.nan
    se = float(np.sqrt(var / n))
    if n >= T_MIN_N and np.count_nonzero(d) >= SMALL_DISCORDANT:
        df = float(n - 1)
        t = (float(d.mean()) + margin) / se
        half = float(_t_quantile(1.0 - alpha, df)) * se
        return t, float(special.stdtr(df, t)), d.mean() - half, d.mean() + half, "t", df
    # Small N: neither the t reference nor the bootstrap-t alone holds its size on every
    # shape of eval differences (tie-heavy: bootstrap-t 0.065 at N = 30, K = 5; skewed: t 0.061 at K = 10);
    # the larger p-value rejects only where both do (numbers: margin_tests' module docs).
    r = t_bootstrap_max_test(d, -margin, n_resamples=n_resamples, confidence_level=1 - 2 * alpha)
    p = (r["p_value"], r["mcse"])
    return r["statistic"], p, r["low"], r["high"], "max(t, bootstrap-t)", r["df"]


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
    # each benchmark's t reference: N - 1 where its own test had none (exact or normal)
    df = np.array([r["df"] if np.isfinite(r["df"]) else r["questions"] - 1.0 for r in rows])
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
