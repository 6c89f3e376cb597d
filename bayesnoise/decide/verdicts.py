"""Which pairs are close, and the plain-language verdict on a pair (as the report prints it)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "close_pairs",
    "difference_words",
    "pair_sentence",
    "prob_reading",
    "two_sided_threshold",
    "verdict",
]

#: Pairs with |difference| < CLOSE_FACTOR x se_total are "close" (the paper's Figure 1 filter).
CLOSE_FACTOR = 5.0
#: Level and power of the "needs ~N questions" statements.
ALPHA, POWER = 0.05, 0.8


def close_pairs(pairs: pd.DataFrame, factor: float = CLOSE_FACTOR) -> pd.DataFrame:
    """Rows of a pair table with ``|difference| < factor * se_total``.

    Parameters
    ----------
    pairs : pandas.DataFrame
        From :func:`bayesnoise.frequentist.pair_noise`.
    factor : float, default 5
        Pairs further apart than this many paired total SEs are left out: their order is not in
        doubt.

    Returns
    -------
    pandas.DataFrame
        The selected rows, index reset.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"difference": [0.01, 0.3], "se_total": [0.02, 0.02]})
    >>> len(close_pairs(t))
    1
    """
    keep = np.abs(pairs["difference"].to_numpy()) < factor * pairs["se_total"].to_numpy()
    return pairs[keep].reset_index(drop=True)


def _p_text(p: float) -> str:
    if not np.isfinite(p):
        return "undefined"
    return f"{p:.1e}" if p < 0.001 else f"{p:.3f}"


def difference_words(a: str, b: str, d: float, low: float, high: float, what: str) -> str:
    """The observed gap ``d = a - b`` and its interval in the orientation of the table row.

    The interval is quoted as the table prints it, for ``a - b``, whatever the sign of ``d``
    (never the interval of ``b - a`` beside "a scores lower"), so the sentence and its row
    read the same numbers.

    Parameters
    ----------
    a, b : str
        The names as the row orders them (``model_a``, ``model_b``; candidate, baseline).
    d, low, high : float
        ``a - b`` and its interval (NaN ends: no interval).
    what : str
        What the interval is, e.g. ``"95% interval"``.

    Returns
    -------
    str

    Examples
    --------
    >>> difference_words("beta", "gamma", -0.024, -0.153, 0.106, "95% interval")
    'beta scores 0.024 lower than gamma: beta - gamma = -0.024 [-0.153, 0.106] (95% interval)'
    """
    if np.isnan(low) or np.isnan(high):
        interval = f"{a} - {b} = {d:.3f}, no interval from so few differences"
    else:
        interval = f"{a} - {b} = {d:.3f} [{low:.3f}, {high:.3f}] ({what})"
    if d < 0:
        return f"{a} scores {-d:.3f} lower than {b}: {interval}"
    if d > 0:
        return f"{a} scores {d:.3f} higher than {b}: {interval}"
    return f"{a} and {b} are level on average: {interval}"


def pair_sentence(row, *, confidence_level: float, questions: int) -> str:
    """One line on one pair in the words of ``bayesnoise check``: the observed gap, its
    two-sided interval for ``model_a - model_b`` (as the table row prints it), the two-sided
    paired t p-value and what it shows at ``1 - confidence_level`` ("A is better" only when p
    is below it).

    Parameters
    ----------
    row : mapping
        ``model_a, model_b, difference, difference_low, difference_high, p_value`` and ``z``
        (NaN when the paired differences do not vary) of a pair table.
    confidence_level : float
        Level of ``difference_low`` / ``difference_high``.
    questions : int
        Questions the pair was compared on.

    Returns
    -------
    str

    Examples
    --------
    >>> row = {"model_a": "A", "model_b": "B", "difference": -0.031, "difference_low": -0.050,
    ...        "difference_high": -0.012, "p_value": 0.0021, "z": -3.1}
    >>> pair_sentence(row, confidence_level=0.95, questions=400)
    'A scores 0.031 lower than B: A - B = -0.031 [-0.050, -0.012] (95% interval), p = 0.002 (two-sided paired t): A is worse'
    """
    a, b, d = str(row["model_a"]), str(row["model_b"]), float(row["difference"])
    if d == 0 and not np.isfinite(float(row["z"])):  # mean 0 and no variation: every d_i = 0
        return f"{a} and {b}: no difference observed (the same score on all {questions} questions)"
    low, high = float(row["difference_low"]), float(row["difference_high"])
    p = float(row["p_value"])
    alpha = 1 - confidence_level
    gap = difference_words(a, b, d, low, high, f"{100 * confidence_level:g}% interval")
    gap += f", p = {_p_text(p)} (two-sided paired t)"
    # the words say what the test shows: "better"/"worse" only when p < 1 - level (the
    # interval then excludes 0); otherwise the observed gap is described, not claimed
    shown = f"{a} is worse" if d < 0 else f"{a} is better" if d > 0 else ""
    if shown and np.isfinite(p) and p < alpha:
        return f"{gap}: {shown}"
    return f"{gap}: no difference shown at the {100 * alpha:g}% level"


def two_sided_threshold(confidence_level: float = 0.95) -> float:
    """The posterior probability a pair's P(A better) must pass to call A better when the pair
    was oriented after seeing the data (the pair tables put the higher accuracy first):
    ``1 - (1 - confidence_level) / 2``, the two-sided reading.

    Reading ``P(A better) > confidence_level`` on a table oriented by the data is a two-sided
    rule at about twice the nominal size: under the null it fired in 0.077-0.112 of data sets
    (K = 1 and 5, N = 50-800, 1,000 replicates each), the two-sided reading in 0.040-0.056
    (``studies/prob_rule_size.py``, ``benchmarks/results/prob_rule_size.md``).

    Examples
    --------
    >>> two_sided_threshold(0.95)
    0.975
    """
    return 1.0 - (1.0 - confidence_level) / 2.0


def prob_reading(a: str, b: str, prob: float, confidence_level: float = 0.95) -> str:
    """What ``prob = P(a better than b)`` shows under the two-sided reading
    (:func:`two_sided_threshold`): "a is better" above it, "b is better" below one minus it,
    else nothing shown; correct whichever way the pair was oriented.

    Examples
    --------
    >>> prob_reading("A", "B", 0.96)
    'P(A better) = 0.960, within [0.025, 0.975]: no difference shown (two-sided reading)'
    >>> prob_reading("A", "B", 0.01)
    'P(A better) = 0.010 < 0.025 (two-sided reading): B is better'
    """
    cut = two_sided_threshold(confidence_level)
    head = f"P({a} better) = {prob:.3f}"
    if not np.isfinite(prob):
        return f"{head}: undefined"
    if prob > cut:
        return f"{head} > {cut:g} (two-sided reading): {a} is better"
    if prob < 1.0 - cut:
        return f"{head} < {1.0 - cut:.3g} (two-sided reading): {b} is better"
    return f"{head}, within [{1.0 - cut:.3g}, {cut:g}]: no difference shown (two-sided reading)"


def _winner(row) -> str:
    return row["model_a"] if row["difference"] > 0 else row["model_b"]


def verdict(row, *, n: int, k: float, adjust: str = "holm", family: int | None = None) -> str:
    """Plain-language verdict for one pair row of :func:`bayesnoise.frequentist.pair_noise`.

    A pair is called only on its multiplicity-adjusted p-value (``p_value_adjusted``). When the
    unadjusted paired t test rejects but the adjusted one does not, the verdict says so, so that
    an interval excluding 0 beside "not distinguishable" is explained. ``k`` is the samples per
    question of the run; the numbers of questions or samples needed use
    :func:`bayesnoise.frequentist.required_questions` / ``required_samples`` (two-sided 5 %,
    80 % power, before multiplicity adjustment).

    Examples
    --------
    >>> row = {"model_a": "a", "model_b": "b", "difference": 0.03, "z": 2.2, "p_value": 0.03,
    ...        "p_value_adjusted": 0.3, "data": 0.05, "prediction": 0.1, "total": 0.15}
    >>> verdict(row, n=500, k=4, family=10).split("; needs")[0]
    'not distinguishable after Holm over 10 pairs (p = 0.3; unadjusted p = 0.03 < 0.05, as for this pair alone)'
    """
    from bayesnoise.frequentist import required_questions, required_samples

    get = row.get if hasattr(row, "get") else row.__getitem__
    diff = abs(float(row["difference"]))
    p = get("p_value_adjusted", np.nan)
    raw = get("p_value", np.nan)
    name = adjust.title() if adjust != "bh" else "Benjamini-Hochberg"
    if np.isfinite(p) and p < ALPHA:
        return f"{_winner(row)} better, p = {p:.2g} after {name}"
    if diff == 0:
        return "same score: nothing to tell apart"
    if not np.isfinite(get("z", np.nan)):
        return "the models agree on every question: no test possible"
    over = f" over {family} pairs" if family else ""
    if np.isfinite(raw) and raw < ALPHA and np.isfinite(p):
        where = (
            f"after {name}{over} (p = {p:.2g}; unadjusted p = {raw:.2g} < {ALPHA:g}, as for "
            "this pair alone)"
        )
    elif np.isfinite(p):
        where = f"at this N (p = {p:.2g} after {name}{over})"
    else:
        where = f"at this N (z = {row['z']:.2f})"
    kw = {"alpha": ALPHA, "power": POWER}
    split = np.isfinite(row["data"]) and np.isfinite(row["prediction"])
    if not split:  # one sample per question: only the total variance is known
        need_n = required_questions(diff, data=row["total"], prediction=0.0, **kw)
        return f"not distinguishable {where}; needs ~{need_n:,.0f} questions"
    need_n = required_questions(
        diff, data=max(row["data"], 0.0), prediction=row["prediction"], k=k, **kw
    )
    need_k = required_samples(
        diff, n=n, data=max(row["data"], 0.0), prediction=row["prediction"], **kw
    )
    more_k = (
        f" or K = {need_k:,.0f} samples per question"
        if np.isfinite(need_k)
        else "; more samples alone cannot do it (data noise)"
    )
    return f"not distinguishable {where}; needs ~{need_n:,.0f} questions at K = {k:g}{more_k}"


def judge_sentence(row, *, method: str, confidence_level: float, alternative: str) -> str:
    """One line on one pair of ``bayesnoise judge --by pair``: the corrected difference A - B
    with the row's interval, and what it shows.

    Frequentist (PPI++): "better"/"worse" only when ``p_value_ppi`` is below ``1 -
    confidence_level`` on the side the alternative names. Bayes / MCMC: the posterior
    probability ``prob_a_better_corrected[_mcmc]`` under the two-sided reading
    (:func:`prob_reading`).

    Examples
    --------
    >>> row = {"model_a": "A", "model_b": "B", "difference_ppi": 0.067,
    ...        "difference_ppi_low": -0.033, "difference_ppi_high": 0.167, "p_value_ppi": 0.19}
    >>> judge_sentence(row, method="frequentist", confidence_level=0.95, alternative="two-sided")
    'corrected with human labels (PPI++): A scores 0.067 higher than B: A - B = 0.067 [-0.033, 0.167] (95% interval), p = 0.190 (paired z, two-sided): no difference shown at the 5% level'
    """
    a, b = str(row["model_a"]), str(row["model_b"])
    col = {"frequentist": "difference_ppi", "bayes": "difference_corrected"}.get(
        method, "difference_corrected_mcmc"
    )
    d, low, high = (float(row[f"{col}{s}"]) for s in ("", "_low", "_high"))
    sided = "" if alternative == "two-sided" else f" {alternative}"
    kind = "interval" if method == "frequentist" else "credible interval"
    gap = difference_words(a, b, d, low, high, f"{100 * confidence_level:g}%{sided} {kind}")
    if method != "frequentist":
        prob = float(row["prob_a_better_corrected" + ("_mcmc" if method == "mcmc" else "")])
        return (
            f"corrected with human labels (misclassification model): {gap}; "
            f"{prob_reading(a, b, prob, confidence_level)}"
        )
    p = float(row["p_value_ppi"])
    alpha = 1 - confidence_level
    gap = f"corrected with human labels (PPI++): {gap}, p = {_p_text(p)} (paired z, {alternative})"
    side_ok = {"two-sided": d != 0, "greater": d > 0, "less": d < 0}[alternative]
    if side_ok and np.isfinite(p) and p < alpha:
        return f"{gap}: {a} is {'better' if d > 0 else 'worse'}"
    return f"{gap}: no difference shown at the {100 * alpha:g}% level"


def rate_sentence(row, *, confidence_level: float, alternative: str) -> str:
    """One line on one model of ``bayesnoise rate --target``: its posterior rate with the row's
    credible interval, ``prob_rate_above`` and the frequentist test against the target.

    The direction is the one ``alternative`` fixed before the data ("greater": is the rate
    above the target), so the one-sided readings hold their level: "above the target" only
    when the test's p is below ``1 - confidence_level`` (the test is ``p_value_binomial``
    where the row has it, else ``p_value_t``).

    Examples
    --------
    >>> row = {"model": "m", "rate": 0.80, "rate_low": 0.68, "rate_high": 0.89, "target": 0.7,
    ...        "prob_rate_above": 0.95, "p_value_binomial": 0.06}
    >>> rate_sentence(row, confidence_level=0.95, alternative="greater")
    'm: rate 0.800 [0.680, 0.890] (95% credible interval) against the target 0.7: P(rate > 0.7) = 0.950, p = 0.060 (exact binomial, rate > 0.7): not shown above the target at the 5% level'
    """
    t = float(row["target"])
    head = (
        f"{row['model']}: rate {float(row['rate']):.3f} [{float(row['rate_low']):.3f}, "
        f"{float(row['rate_high']):.3f}] ({100 * confidence_level:g}% credible interval) "
        f"against the target {t:g}: P(rate > {t:g}) = {float(row['prob_rate_above']):.3f}"
    )
    binomial = "p_value_binomial" in row and np.isfinite(float(row["p_value_binomial"]))
    p = float(row["p_value_binomial"] if binomial else row.get("p_value_t", np.nan))
    if not np.isfinite(p):
        return head
    h1 = {"greater": ">", "less": "<", "two-sided": "!="}[alternative]
    test = "exact binomial" if binomial else "t"
    where = {"greater": "above", "less": "below", "two-sided": "away from"}[alternative]
    alpha = 1 - confidence_level
    text = f"{head}, p = {_p_text(p)} ({test}, rate {h1} {t:g})"
    if p < alpha:
        if alternative == "two-sided":
            where = "above" if float(row["rate"]) > t else "below"
        return f"{text}: {where} the target"
    return f"{text}: not shown {where} the target at the {100 * alpha:g}% level"
