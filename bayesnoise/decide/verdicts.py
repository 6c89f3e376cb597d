"""Which pairs are close, and the plain-language verdict on a pair (as the report prints it)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "close_pairs",
    "pair_sentence",
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


def pair_sentence(row, *, confidence_level: float, questions: int) -> str:
    """One line on one pair in the words of ``bayesnoise check``: the observed gap, its
    two-sided interval, the two-sided paired t p-value and what it shows at ``1 -
    confidence_level`` ("A is better" only when p is below it).

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
    >>> row = {"model_a": "A", "model_b": "B", "difference": 0.031, "difference_low": 0.012,
    ...        "difference_high": 0.050, "p_value": 0.0021, "z": 3.1}
    >>> pair_sentence(row, confidence_level=0.95, questions=400)
    'A scores 0.031 higher than B [0.012, 0.050] (95% interval), p = 0.002 (two-sided paired t): A is better'
    """
    a, b, d = str(row["model_a"]), str(row["model_b"]), float(row["difference"])
    if d == 0 and not np.isfinite(float(row["z"])):  # mean 0 and no variation: every d_i = 0
        return f"{a} and {b}: no difference observed (the same score on all {questions} questions)"
    low, high = float(row["difference_low"]), float(row["difference_high"])
    p = float(row["p_value"])
    alpha = 1 - confidence_level
    tail = f"({100 * confidence_level:g}% interval), p = {_p_text(p)} (two-sided paired t)"
    # the words say what the test shows: "better"/"worse" only when p < 1 - level (the
    # interval then excludes 0); otherwise the observed gap is described, not claimed
    if d < 0:
        gap = f"{a} scores {-d:.3f} lower than {b} [{-high:.3f}, {-low:.3f}] {tail}"
        shown = f"{a} is worse"
    elif d > 0:
        gap = f"{a} scores {d:.3f} higher than {b} [{low:.3f}, {high:.3f}] {tail}"
        shown = f"{a} is better"
    else:
        gap = f"{a} and {b} are level on average: 0.000 [{low:.3f}, {high:.3f}] {tail}"
        shown = ""
    if shown and np.isfinite(p) and p < alpha:
        return f"{gap}: {shown}"
    return f"{gap}: no difference shown at the {100 * alpha:g}% level"


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
