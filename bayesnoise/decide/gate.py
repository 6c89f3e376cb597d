"""The regression gate: is the candidate worse than the baseline, beyond noise?

On the questions both answered, ``d_i = p_candidate,i - p_baseline,i`` (each score averaged
over its samples). The gate asks one one-sided question: is the population difference
``delta`` below ``-margin``? (``margin = 0``: is the candidate worse at all; ``margin = 0.01``:
worse by more than one point, the tolerance of a non-inferiority gate.) A regression is
*shown* when that test rejects ``delta >= -margin`` at level ``alpha``; otherwise the gate
passes ("no regression shown"), and it says more when the data allow: *non-inferior* (the
candidate is shown to be no worse than the margin) or an *improvement*.

``method="freq"``: the one-sided paired t test (``scipy.stats.ttest_1samp(d + margin,
0, alternative="less")``), with the matching two-sided interval at level ``1 - 2 alpha``
(its upper end is the one-sided ``1 - alpha`` bound, so "regression" is exactly "the interval
lies below ``-margin``"). ``method="bayes"``: the shape-free Dirichlet-process posterior of
the population paired difference (:func:`bayesnoise.conjugate.paired_population_posterior`,
its Monte Carlo draws), regression when ``P(delta < -margin | data) >= 1 - alpha``; the
posterior probability of no regression plays the p-value's part.

Several benchmarks: one test per benchmark and a *combined* test of the mean of their
differences, ``delta_bar = mean_b delta_b``, whose statistic is the meta-analysis ``z =
sum_b d_b / sqrt(sum_b se_b^2)`` (the all-the-noises paper's meta z with weights ``w_b =
se_b``; the benchmarks are independent question sets), referred to Student t with the
Welch-Satterthwaite degrees of freedom ``(sum se_b^2)^2 / sum(se_b^4 / df_b)``. Holm's
step-down over the benchmarks and the combined test bounds the chance of any false
"regression" by ``alpha`` under any dependence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special

from bayesnoise._common import ConfidenceInterval, check_confidence_level
from bayesnoise.frequentist.multiplicity import adjust_pvalues

__all__ = [
    "GATE_COLUMNS",
    "GATE_COLUMNS_BAYES",
    "METHODS",
    "GateResult",
    "bayes_regression_test",
    "combine_tests",
    "gate",
    "paired_regression_test",
]

METHODS = ("freq", "bayes")
COMBINED = "combined"
#: A variance of differences in [-1, 1] is zero up to rounding below this.
_ZERO_VAR = 1e-12
GATE_COLUMNS = [
    "benchmark",
    "questions",
    "accuracy_baseline",
    "accuracy_candidate",
    "change",
    "change_low",
    "change_high",
    "se_change",
    "t_change",
    "df",
    "p_value_regression",
    "p_value_regression_adjusted",
    "regression",
    "verdict",
]
GATE_COLUMNS_BAYES = [
    "benchmark",
    "questions",
    "accuracy_baseline",
    "accuracy_candidate",
    "change",
    "change_bayes",
    "change_bayes_low",
    "change_bayes_high",
    "prob_no_regression",
    "prob_no_regression_adjusted",
    "regression",
    "verdict",
]


def _t_quantile(q, df):
    return special.stdtrit(df, q) if np.isfinite(df) else special.ndtri(q)


def paired_regression_test(d, *, margin: float = 0.0, alpha: float = 0.05) -> dict:
    """One-sided paired t test of ``delta >= -margin`` against ``delta < -margin``.

    Parameters
    ----------
    d : array_like, shape (N,)
        Per-question differences candidate - baseline, N >= 2.
    margin : float, default 0.0
        Tolerated drop, in (-1, 1).
    alpha : float, default 0.05

    Returns
    -------
    dict
        ``questions``, ``change`` (mean of d), ``se_change`` (ddof-1 SE), ``t_change`` (``(change
        + margin) / se``; -inf / +inf / NaN when the differences do not vary), ``df`` (N - 1),
        ``p_value_regression`` (lower tail), ``change_low``, ``change_high`` (two-sided ``1 - 2
        alpha`` t interval).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> d = np.random.default_rng(0).choice([-1.0, 0.0, 1.0], p=[0.2, 0.7, 0.1], size=300)
    >>> r = paired_regression_test(d, margin=0.01)
    >>> ref = stats.ttest_1samp(d + 0.01, 0.0, alternative="less")
    >>> bool(np.isclose(r["p_value_regression"], ref.pvalue)), bool(np.isclose(r["t_change"], ref.statistic))
    (True, True)
    """
    d = np.asarray(d, dtype=float)
    n = d.size
    if n < 2:
        raise ValueError(f"the paired t test needs at least 2 questions, got {n}")
    change = float(d.mean())
    var = float(d.var(ddof=1))
    se = float(np.sqrt(var / n))
    df = float(n - 1)
    shifted = change + margin
    if var <= _ZERO_VAR:  # every question differs by the same amount
        se = 0.0
        t = np.nan if abs(shifted) <= 1e-12 else np.copysign(np.inf, shifted)
        p = np.nan if np.isnan(t) else float(t > 0)
    else:
        t = shifted / se
        p = float(special.stdtr(df, t))
    half = float(_t_quantile(1.0 - alpha, df)) * se
    return {
        "questions": n,
        "change": change,
        "se_change": se,
        "t_change": float(t),
        "df": df,
        "p_value_regression": p,
        "change_low": change - half,
        "change_high": change + half,
    }


def bayes_regression_test(
    d, *, margin: float = 0.0, alpha: float = 0.05, draws: int = 4000, random_seed=0
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
    >>> r = bayes_regression_test(d, draws=2000)
    >>> ref = paired_population_posterior(d, draws=2000)["prob_a_better"]
    >>> bool(np.isclose(r["prob_no_regression"], ref))
    True
    """
    from bayesnoise.conjugate.dirichlet import PRIOR_MASS, dirichlet_weights
    from bayesnoise.conjugate.pairs import end_atom

    d = np.asarray(d, dtype=float)
    n = d.size
    rng = np.random.default_rng(random_seed)
    atom = float(end_atom((d * d).sum(), (d**4).sum()))
    wts, ends = dirichlet_weights(rng, (1, int(draws)), n, PRIOR_MASS)
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


def combine_tests(rows: list[dict], *, margin: float = 0.0, alpha: float = 0.05) -> dict:
    """The combined test of the mean difference over benchmarks (module docs).

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
    if total_var <= _ZERO_VAR:
        t = np.nan if abs(shifted) <= 1e-12 else float(np.copysign(np.inf, shifted))
        p, df_c, se_mean = (np.nan if np.isnan(t) else float(t > 0)), float(df.sum()), 0.0
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
    }


def _fmt_p(p) -> str:
    if not np.isfinite(p):
        return "undefined"
    return f"{p:.1e}" if p < 0.001 else f"{p:.3f}"


def _outcome(low, regression, margin) -> str:
    if regression:
        return "regression" if margin == 0 else f"regression beyond the margin {margin:g}"
    if margin > 0 and low > -margin:
        return f"no regression; non-inferior within the margin {margin:g}"
    if low > max(0.0, -margin):
        return "no regression; improvement"
    return "no regression shown"


def _line(change, low, high, level, evidence, outcome) -> str:
    if change < 0:
        text = f"candidate is worse than baseline by {-change:.3f} [{-high:.3f}, {-low:.3f}]"
    else:
        text = f"candidate is better than baseline by {change:.3f} [{low:.3f}, {high:.3f}]"
    return f"{text} ({level:.0%} interval), {evidence}: {outcome}"


@dataclass
class GateResult:
    """Result of :func:`gate`, scipy-style.

    Attributes
    ----------
    statistic : float
        The t statistic ``(change + margin) / se`` (freq) or the posterior mean of the
        difference (bayes); of the combined test when there are several benchmarks.
    pvalue : float
        One-sided p-value of "no regression" (freq), or the posterior probability of no
        regression (bayes); unadjusted.
    df : float
        Degrees of freedom of the t reference (NaN for bayes).
    alternative : str
        ``"less"``: the alternative is ``candidate - baseline < -margin``.
    difference : float
        Observed candidate - baseline (the mean over benchmarks when several).
    regression : bool
        A regression shown at ``alpha`` on some benchmark or on the combined test (Holm).
    verdict : str
        One line per benchmark (and the combined test), as printed.
    rows : pandas.DataFrame
        One row per benchmark (and ``combined``): the ``GATE_COLUMNS`` (freq) or
        ``GATE_COLUMNS_BAYES``.
    exit_status : int
        1 when a regression is shown, else 0 (the command line's exit status).
    """

    statistic: float
    pvalue: float
    df: float
    difference: float
    se: float
    margin: float
    alpha: float
    method: str
    regression: bool
    verdict: str
    rows: pd.DataFrame
    baseline: str = "baseline"
    candidate: str = "candidate"
    alternative: str = "less"
    draws: np.ndarray | None = field(default=None, repr=False)

    @property
    def exit_status(self) -> int:
        return int(self.regression)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Two-sided interval for candidate - baseline (the combined mean when several
        benchmarks); default level ``1 - 2 alpha``, whose upper end is the bound the gate
        tests."""
        level = 1.0 - 2.0 * self.alpha if confidence_level is None else confidence_level
        level = check_confidence_level(level)
        tail = (1.0 - level) / 2.0
        if self.method == "bayes":
            low, high = np.quantile(self.draws, [tail, 1.0 - tail])
            return ConfidenceInterval(float(low), float(high))
        half = float(_t_quantile(1.0 - tail, self.df)) * self.se
        return ConfidenceInterval(self.difference - half, self.difference + half)

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values (NaN and inf as None)."""

        def clean(v):
            if isinstance(v, np.generic):
                v = v.item()
            if isinstance(v, float) and not np.isfinite(v):
                return None
            return v

        low, high = self.confidence_interval()
        head = {
            "baseline": self.baseline,
            "candidate": self.candidate,
            "method": self.method,
            "alternative": self.alternative,
            "margin": self.margin,
            "alpha": self.alpha,
            "confidence_level": 1.0 - 2.0 * self.alpha,
            "difference": self.difference,
            "low": low,
            "high": high,
            "statistic": self.statistic,
            "df": self.df,
            "pvalue": self.pvalue,
            "regression": self.regression,
            "exit_status": self.exit_status,
            "verdict": self.verdict,
        }
        rows = [{k: clean(v) for k, v in r.items()} for r in self.rows.to_dict("records")]
        return {**{k: clean(v) for k, v in head.items()}, "benchmarks": rows}


def gate(
    differences,
    *,
    names=None,
    accuracies=None,
    margin: float = 0.0,
    alpha: float = 0.05,
    method: str = "freq",
    draws: int = 4000,
    random_seed=0,
    baseline: str = "baseline",
    candidate: str = "candidate",
) -> GateResult:
    """Regression gate over one or several benchmarks (module docs).

    Parameters
    ----------
    differences : array_like or list of array_like
        Per-question differences candidate - baseline, one array per benchmark (each with at
        least 2 questions).
    names : list of str, optional
        Benchmark names (default ``benchmark``, or ``b0, b1, ...``).
    accuracies : list of (float, float), optional
        (baseline, candidate) accuracy per benchmark, shown in the rows.
    margin : float, default 0.0
        Tolerated drop in accuracy (fraction), in (-1, 1).
    alpha : float, default 0.05
        Family-wise level of the one-sided tests.
    method : {"freq", "bayes"}
    draws : int, default 4000
        Posterior draws (bayes).
    random_seed : int, default 0
    baseline, candidate : str
        Names used in the verdict and the JSON.

    Returns
    -------
    GateResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> d = rng.choice([-1.0, 0.0, 1.0], p=[0.15, 0.8, 0.05], size=500)
    >>> res = gate(d)
    >>> res.regression, res.exit_status, res.verdict.endswith(": regression")
    (True, 1, True)
    >>> ci = res.confidence_interval(confidence_level=0.9)
    >>> bool(ci.high < 0)
    True
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if not -1.0 < margin < 1.0:
        raise ValueError(f"margin must be in (-1, 1), got {margin}")
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha}")
    if isinstance(differences, np.ndarray) and differences.ndim == 1:
        differences = [differences]
    arrays = [np.asarray(d, dtype=float) for d in differences]
    if names is None:
        names = ["benchmark"] if len(arrays) == 1 else [f"b{i}" for i in range(len(arrays))]
    names = [str(n) for n in names]
    if len(names) != len(arrays):
        raise ValueError(f"{len(arrays)} benchmarks but {len(names)} names")
    rows = []
    for i, d in enumerate(arrays):
        if method == "freq":
            row = paired_regression_test(d, margin=margin, alpha=alpha)
        else:
            row = bayes_regression_test(
                d, margin=margin, alpha=alpha, draws=draws, random_seed=random_seed + i
            )
        rows.append(row)
    if len(rows) > 1:
        if method == "freq":
            combined = combine_tests(rows, margin=margin, alpha=alpha)
        else:
            delta = np.mean([r["draws"] for r in rows], axis=0)
            low, high = np.quantile(delta, [alpha, 1.0 - alpha])
            combined = {
                "questions": int(sum(r["questions"] for r in rows)),
                "change": float(np.mean([r["change"] for r in rows])),
                "change_bayes": float(np.mean([r["change_bayes"] for r in rows])),
                "change_bayes_low": float(low),
                "change_bayes_high": float(high),
                "prob_no_regression": _p_no_regression(delta, margin),
                "draws": delta,
            }
        rows.append(combined)
        names = [*names, COMBINED]
    return _result(rows, names, accuracies, margin, alpha, method, baseline, candidate)


def _result(rows, names, accuracies, margin, alpha, method, baseline, candidate):
    p_key = "p_value_regression" if method == "freq" else "prob_no_regression"
    suffix = "" if method == "freq" else "_bayes"
    adjusted = adjust_pvalues([r[p_key] for r in rows], "holm")
    level = 1.0 - 2.0 * alpha
    lines = []
    for i, (row, name) in enumerate(zip(rows, names, strict=True)):
        row["benchmark"] = name
        if accuracies is not None and i < len(accuracies):
            row["accuracy_baseline"], row["accuracy_candidate"] = accuracies[i]
        else:
            row["accuracy_baseline"] = row["accuracy_candidate"] = np.nan
        row[f"{p_key}_adjusted"] = float(adjusted[i])
        row["regression"] = bool(adjusted[i] < alpha)
        low, high = row[f"change{suffix}_low"], row[f"change{suffix}_high"]
        row["verdict"] = _outcome(low, row["regression"], margin)
        if method == "freq":
            evidence = f"p = {_fmt_p(row[p_key])}"
        else:
            evidence = f"P(no regression) = {_fmt_p(row[p_key])}"
        if len(rows) > 1:
            evidence += f", Holm {_fmt_p(adjusted[i])}"
        text = _line(row["change"], low, high, level, evidence, row["verdict"])
        lines.append(text if len(rows) == 1 else f"{name}: {text}")
    columns = GATE_COLUMNS if method == "freq" else GATE_COLUMNS_BAYES
    table = pd.DataFrame([{c: r[c] for c in columns} for r in rows], columns=columns)
    top = rows[-1]
    regression = bool(table["regression"].any())
    if len(rows) > 1:
        flagged = [n for n, r in zip(names, rows, strict=True) if r["regression"]]
        family = f"Holm over {len(rows) - 1} benchmarks and the combined test"
        head = f"regression on {', '.join(flagged)}" if flagged else "no regression shown"
        lines.append(f"{head} ({family}, alpha {alpha:g})")
    if method == "freq":
        stat, pvalue, df, se = (
            top["t_change"],
            top["p_value_regression"],
            top["df"],
            top["se_change"],
        )
        draws = None
    else:
        stat, pvalue, df, se = top["change_bayes"], top[p_key], np.nan, np.nan
        draws = top["draws"]
    return GateResult(
        statistic=float(stat),
        pvalue=float(pvalue),
        df=float(df),
        difference=float(top["change"]),
        se=float(se),
        margin=float(margin),
        alpha=float(alpha),
        method=method,
        regression=regression,
        verdict="\n".join(lines),
        rows=table,
        baseline=str(baseline),
        candidate=str(candidate),
        draws=draws,
    )
