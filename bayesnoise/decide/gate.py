"""The regression gate: is the candidate worse than the baseline, beyond noise?

On the questions both answered, ``d_i = p_candidate,i - p_baseline,i`` (each score averaged
over its samples). The gate asks one one-sided question: is the population difference
``delta`` below ``-margin``? (``margin = 0``: is the candidate worse at all; ``margin = 0.01``:
worse by more than one point, the tolerance of a non-inferiority gate.) A regression is
*shown* when that test rejects ``delta >= -margin`` at level ``alpha``; otherwise the gate
passes ("no regression shown"), and it says more when the data allow: *non-inferior* (the
candidate is shown to be no worse than the margin) or an *improvement*.

``method="frequentist"``: the one-sided paired t test (``scipy.stats.ttest_1samp(d + margin,
0, alternative="less")``), with the matching two-sided interval at level ``1 - 2 alpha``
(its upper end is the one-sided ``1 - alpha`` bound, so "regression" is exactly "the interval
lies below ``-margin``"). Where the t reference is not trusted an exact test decides (column
``test``): when every difference is equal (the SE is 0 and t is +-inf: p = 0 from two
questions) or fewer than ``SMALL_DISCORDANT`` = 30 questions differ. The rule: at K = 1 the t
test of n discordant questions among many is the normal approximation of a sign test, and its
one-sided size at 0.05 is 0.055, 0.059, 0.058, 0.054 for n = 10, 15, 20, 25 and 0.049, 0.040
at n = 30, 40 (binomial probabilities of the region t <= t_0.05); fewer than 30 questions in
all means fewer than 30 that differ. The exact tests: the sign test
(``scipy.stats.binomtest`` on the discordant questions; K = 1) or the exact sign-flip test
of ``sum d`` (K > 1), exact under "the two models are exchangeable on each question"
(:mod:`bayesnoise.frequentist.exact_paired`), with the betting interval at ``1 - 2 alpha``
(:func:`betting_interval`), never of zero width (the sign tests may reject while it still
holds 0). When every difference is 0 the verdict says "no difference observed".

With a margin (``margin != 0``) the null ``delta = -margin`` is not a symmetry, and the gate
uses fixed-N tests made for it (:mod:`bayesnoise.frequentist.margin_tests`; none depends on
``rng`` or on the order or ids of the questions):

- 0/1 scores, one sample per question (``binary``; by default every difference is -1, 0 or
  1): the *exact unconditional* test of paired proportions ordered by Tango's score (the
  largest tail probability over the tie rate on the null boundary), up to ``EXACT_N`` = 1000
  questions; beyond, *Tango's score* test (normal reference). The exact size of the score
  test at the margin, the largest over the nuisance, is 0.053-0.089 at N = 30-1000 and
  0.052-0.056 at N = 2000 (margins 0.01 and 0.05; studies/gate_margin_size.py), so the exact
  test decides wherever it takes about a second. The interval is Tango's score interval.
- Otherwise: the paired t test with the margin from ``T_MIN_N`` = 100 questions of which at
  least 30 differ; fewer, *max(t, bootstrap-t)*: the larger of the t test's and the
  studentized bootstrap's p-values (each alone over-rejected skewed or tie-heavy null evals
  at N = 30; the bootstrap's Monte Carlo SE printed and in ``mcse``), the hull of their
  intervals; every difference equal, Hoeffding's bound.

Its upper end is below ``-margin`` when the test rejects, up to the score interval's
approximation next to the exact test.

``method="bayes"``: the shape-free Dirichlet-process posterior of
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

from bayesnoise._common import ConfidenceInterval, check_confidence_level
from bayesnoise.frequentist.multiplicity import adjust_pvalues

from .regression_tests import (
    _p_no_regression,
    _t_quantile,
    bayes_regression_test,
    betting_interval,
    combine_tests,
    margin_interval,
    paired_regression_test,
)
from .verdicts import _p_text, difference_words

__all__ = ["GateResult", "gate"]

METHODS = ("frequentist", "bayes")
COMBINED = "combined"
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
    "test",
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


def _outcome(low, regression, margin) -> str:
    if regression:
        return "regression" if margin == 0 else f"regression beyond the margin {margin:g}"
    if margin > 0 and low > -margin:
        return f"no regression; non-inferior within the margin {margin:g}"
    if low > max(0.0, -margin):
        return "no regression; improvement"
    return "no regression shown"


def _line(
    change, low, high, confidence_level, evidence, outcome, *, all_zero=False, questions=0
) -> str:
    # the interval of candidate - baseline, as the row's change_low/high (never flipped)
    level = f"{confidence_level:.0%} interval"
    if all_zero:
        interval = (
            "no interval from so few differences"
            if np.isnan(low) or np.isnan(high)
            else f"[{low:.3f}, {high:.3f}] ({level})"
        )
        text = (
            f"no difference observed: candidate and baseline score the same on all "
            f"{questions} questions; difference {interval}"
        )
    else:
        text = difference_words("candidate", "baseline", change, low, high, level)
    return f"{text}, {evidence}: {outcome}"


@dataclass
class GateResult:
    """Result of :func:`gate`, scipy-style.

    Attributes
    ----------
    statistic : float
        The statistic of the test named in ``test`` (freq): the t statistic ``(change +
        margin) / se`` (t, max(t, bootstrap-t)), Tango's score Z (exact unconditional, Tango
        score), the PPI++ z, NaN for the sign, sign-flip and Hoeffding tests; the posterior
        mean of the difference (bayes); of the combined test when there are several
        benchmarks.
    pvalue : float
        One-sided p-value of "no regression" (frequentist), unadjusted; NaN under bayes,
        which has no p-value (see ``prob_no_regression``).
    prob_no_regression : float
        Posterior probability of no regression (bayes), unadjusted; NaN when frequentist.
    df : float
        Degrees of freedom of the t reference; inf for a normal reference (Tango score,
        PPI++); N - 1 for max(t, bootstrap-t); NaN where the test has none (exact, Hoeffding)
        and for bayes.
    mcse : float
        Monte Carlo SE of ``pvalue`` (the bootstrap of max(t, bootstrap-t), Monte Carlo sign
        flips); 0 when
        exact or asymptotic, NaN for bayes.
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
    test : str
        The test that decided the top row (frequentist): ``"t"``, ``"sign"``,
        ``"sign-flip"``, ``"exact unconditional"``, ``"Tango score"``, ``"max(t,
        bootstrap-t)"``, ``"Hoeffding"`` (module docs), ``"none"``; ``"PPI++ paired z"`` on
        judge-graded scores (:mod:`bayesnoise.decide.judge_gate`); ``"posterior"`` for bayes.
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
    test: str = "t"
    draws: np.ndarray | None = field(default=None, repr=False)
    differences: np.ndarray | None = field(default=None, repr=False)
    rng: int = 0
    prob_no_regression: float = float("nan")
    mcse: float = float("nan")
    n_resamples: int = 9999

    @property
    def exit_status(self) -> int:
        return int(self.regression)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Two-sided interval for candidate - baseline (the combined mean when several
        benchmarks); default level ``1 - 2 alpha``, whose upper end is the bound the gate
        tests. Where a margin test decided, its interval (:func:`margin_interval`); where a
        sign or sign-flip test did, the betting interval (:func:`betting_interval`); NaN for
        a combined exact test."""
        level = 1.0 - 2.0 * self.alpha if confidence_level is None else confidence_level
        level = check_confidence_level(level)
        tail = (1.0 - level) / 2.0
        if self.method == "bayes":
            low, high = np.quantile(self.draws, [tail, 1.0 - tail])
            return ConfidenceInterval(float(low), float(high))
        # PPI++: df inf, a z interval; Satterthwaite t: crossed designs (decide.crossed_gate)
        if self.test not in ("t", "PPI++ paired z", "Satterthwaite t"):
            if self.differences is None:
                return ConfidenceInterval(np.nan, np.nan)
            if self.margin != 0.0 and self.test not in ("sign", "sign-flip"):
                low, high = margin_interval(
                    self.differences,
                    self.test,
                    alpha=tail,
                    margin=self.margin,
                    n_resamples=self.n_resamples,
                )
                return ConfidenceInterval(float(low), float(high))
            low, high = betting_interval(
                self.differences, alpha=tail, null=-self.margin, rng=self.rng
            )
            return ConfidenceInterval(low, high)
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
            "test": self.test,
            "df": self.df,
            **(
                {"p_value": self.pvalue, "mcse": self.mcse}
                if self.method == "frequentist"
                else {"prob_no_regression": self.prob_no_regression}
            ),
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
    method: str = "frequentist",
    n_resamples: int = 4000,
    rng=0,
    baseline: str = "baseline",
    candidate: str = "candidate",
    binary=None,
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
    method : {"frequentist", "bayes"}
    n_resamples : int, default 4000
        Posterior draws (bayes); random sign patterns of a sign-flip test beyond its exact
        range (frequentist).
    rng : int or numpy.random.Generator, default 0
        Benchmark i uses the seed ``rng + i`` (a generator: one seed drawn from it).
    baseline, candidate : str
        Names used in the verdict and the JSON.
    binary : bool or list of bool, optional
        Per benchmark: the scores are 0/1 with one sample per question (K = 1), so a margin
        is tested as a difference of paired proportions (module docs). Default: every
        difference is -1, 0 or 1.

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
    if isinstance(rng, np.random.Generator):
        rng = int(rng.integers(2**31))
    if binary is None or isinstance(binary, bool):
        binary = [binary] * len(arrays)
    if len(binary) != len(arrays):
        raise ValueError(f"{len(arrays)} benchmarks but {len(binary)} values of binary")
    rows = []
    for i, d in enumerate(arrays):
        if method == "frequentist":
            row = paired_regression_test(
                d,
                margin=margin,
                alpha=alpha,
                n_resamples=n_resamples,
                rng=rng + i,
                binary=binary[i],
            )
        else:
            row = bayes_regression_test(
                d, margin=margin, alpha=alpha, n_resamples=n_resamples, rng=rng + i
            )
        row["all_zero"] = not np.any(d)
        rows.append(row)
    if len(rows) > 1:
        if method == "frequentist":
            combined = combine_tests(
                rows,
                margin=margin,
                alpha=alpha,
                differences=arrays,
                n_resamples=n_resamples,
                rng=rng + len(arrays),
            )
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
        combined["all_zero"] = not any(np.any(d) for d in arrays)
        rows.append(combined)
        names = [*names, COMBINED]
    result = _result(rows, names, accuracies, margin, alpha, method, baseline, candidate)
    if len(arrays) == 1:
        result.differences, result.rng = arrays[0], rng
    result.n_resamples = int(n_resamples)
    return result


def _result(rows, names, accuracies, margin, alpha, method, baseline, candidate, extra=()):
    p_key = "p_value_regression" if method == "frequentist" else "prob_no_regression"
    suffix = "" if method == "frequentist" else "_bayes"
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
        if method == "frequentist":
            test = row.get("test", "t")
            named = "" if test == "t" else f"{test.replace(' (Monte Carlo)', '')} test "
            evidence = f"{named}p = {_p_text(row[p_key])}"
            if row.get("mcse", 0.0) > 0:  # a Monte Carlo p-value: its SE
                evidence += f" (MCSE {row['mcse']:.3f})"
        else:
            evidence = f"P(no regression) = {_p_text(row[p_key])}"
        if len(rows) > 1:
            evidence += f", Holm {_p_text(adjusted[i])}"
        text = _line(
            row["change"],
            low,
            high,
            level,
            evidence,
            row["verdict"],
            all_zero=row.get("all_zero", False),
            questions=row["questions"],
        )
        lines.append(text if len(rows) == 1 else f"{name}: {text}")
    columns = [*(GATE_COLUMNS if method == "frequentist" else GATE_COLUMNS_BAYES), *extra]
    table = pd.DataFrame([{c: r[c] for c in columns} for r in rows], columns=columns)
    top = rows[-1]
    regression = bool(table["regression"].any())
    if len(rows) > 1:
        flagged = [n for n, r in zip(names, rows, strict=True) if r["regression"]]
        family = f"Holm over {len(rows) - 1} benchmarks and the combined test"
        head = f"regression on {', '.join(flagged)}" if flagged else "no regression shown"
        lines.append(f"{head} ({family}, alpha {alpha:g})")
    if method == "frequentist":
        stat, pvalue, df, se = (
            top["t_change"],
            top["p_value_regression"],
            top["df"],
            top["se_change"],
        )
        draws, test = None, str(top.get("test", "t"))
        mcse = float(top.get("mcse", 0.0))
    else:
        mcse = np.nan
        stat, pvalue, df, se = top["change_bayes"], np.nan, np.nan, np.nan
        draws, test = top["draws"], "posterior"
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
        test=test,
        draws=draws,
        prob_no_regression=float(top[p_key]) if method != "frequentist" else np.nan,
        mcse=mcse,
    )
