"""Question quality and model win rates, as on the Eval-Arena pages (crux-eval/eval-arena).

* :func:`question_table`: per question, the mean score, how many models solved it, the weakest
  solver, and Kendall's tau-b between the question's scores and the models' overall accuracies.
  Questions with a negative tau are *suspect* (better models do worse on them: a wrong reference
  answer, an underspecified task); questions nobody solved are *unsolved*.
* :func:`win_rate`: Eval-Arena's average win rate against all other models.

The cores take ``p``, the (models x questions) matrix of per-cell mean scores in [0, 1], and know
nothing of xarray. They need a complete matrix and raise on NaN (a cell without a result): the
Dataset wrappers (:func:`question_quality`, :func:`model_quality`) first apply
:func:`bayesnoise.data.complete`, which by default raises as well and with
``on_missing="intersect"`` keeps the questions every model answered and warns how many it dropped.
Elo ratings are in :mod:`bayesnoise.frequentist.elo`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise.data import MODEL, QUESTION, complete
from bayesnoise.frequentist import _core
from bayesnoise.frequentist.elo import elo

__all__ = [
    "kendall_tau_b",
    "model_accuracy",
    "model_quality",
    "question_quality",
    "question_summary",
    "question_table",
    "win_rate",
]

QUESTION_COLUMNS = [
    "question",
    "question_accuracy",
    "solved_by",
    "weakest_solver",
    "weakest_solver_accuracy",
    "kendall_tau",
    "suspect_rank",
]
# Pairwise path of kendall_tau_b: at most this many (model, model, question) cells per block.
_PAIR_CELLS = 2**22


def _check_scores(p) -> np.ndarray:
    """``p`` as a 2-D float array; raise on NaN or on an empty matrix."""
    p = np.asarray(p, dtype=float)
    if p.ndim != 2 or p.shape[0] == 0 or p.shape[1] == 0:
        raise ValueError(f"p must be a non-empty (models, questions) matrix, got shape {p.shape}")
    if np.isnan(p).any():
        m, q = np.argwhere(np.isnan(p))[0]
        raise ValueError(
            f"p has {int(np.isnan(p).sum())} missing cells (first: model {m}, question {q}); "
            "these statistics need every model on every question: restrict to the questions all "
            "models answered first, e.g. bayesnoise.data.complete(ds, on_missing='intersect')"
        )
    return p


def model_accuracy(p) -> np.ndarray:
    """Each model's overall accuracy (row mean of ``p``), rounded to 12 decimals.

    The rounding makes genuine ties exact: two models with the same total score can otherwise
    differ in the last bit through summation order, and Kendall's tau treats that as no tie.

    Examples
    --------
    >>> model_accuracy([[0.1, 0.2, 0.3, 0.4, 0.5], [0.5, 0.4, 0.3, 0.2, 0.1]]).tolist()
    [0.3, 0.3]
    """
    return np.round(_check_scores(p).mean(axis=1), 12)


def kendall_tau_b(x, y, *, max_levels: int = 64) -> np.ndarray:
    """Kendall's tau-b between the vector ``x`` and every column of ``y``, all columns at once.

    Equal to ``scipy.stats.kendalltau(x, y[:, j]).statistic`` for each column ``j`` (scipy's
    default, tau-b): ``(concordant - discordant) / sqrt(pairs untied in x) / sqrt(pairs untied
    in y)``, NaN when either side is constant (or has fewer than two entries), clipped to
    [-1, 1]. Ties are exact equality, as in scipy.

    With S = sign(x_a - x_b) (M x M), the numerator of column j is
    ``sum_{a,b} S_ab [y_aj > y_bj]``. When ``y`` takes at most ``max_levels`` distinct values
    (0/1 scores, means of K samples) this is a sum over levels l of
    ``sum_b [y_bj == l] (S.T @ [y > l])_bj``: one M x M by M x Q matrix product per level, exact
    in float32 (whole numbers below 2^24). Otherwise the M x M x Q pair signs are formed in blocks
    of questions.

    Parameters
    ----------
    x : array_like, shape (M,)
    y : array_like, shape (M, Q)
    max_levels : int, default 64
        Most distinct values of ``y`` for the matrix-product path.

    Returns
    -------
    numpy.ndarray, shape (Q,)

    Examples
    --------
    >>> import numpy as np
    >>> kendall_tau_b([1, 2, 3, 4], np.array([[0, 1], [0, 1], [1, 0], [1, 0]])).round(4).tolist()
    [0.8165, -0.8165]
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if y.ndim != 2 or x.shape != y.shape[:1]:
        raise ValueError(f"x must have shape (M,) and y (M, Q); got {x.shape} and {y.shape}")
    m, q = y.shape
    sx = np.sign(x[:, None] - x[None, :])
    untied_x = np.abs(sx).sum() / 2.0
    levels = np.unique(y)
    if levels.size <= max_levels:
        sxt = np.ascontiguousarray(sx.T, dtype=np.float32)
        numer = np.zeros(q)
        tied_y = np.zeros(q)
        for k, level in enumerate(levels):
            at = y == level
            n_at = at.sum(axis=0).astype(float)
            tied_y += n_at * (n_at - 1.0) / 2.0
            if k < levels.size - 1:
                above = sxt @ (y > level).astype(np.float32)
                numer += np.where(at, above, 0.0).sum(axis=0, dtype=np.float64)
        untied_y = m * (m - 1) / 2.0 - tied_y
    else:
        numer = np.empty(q)
        untied_y = np.empty(q)
        step = max(1, _PAIR_CELLS // (m * m))
        for j0 in range(0, q, step):
            blk = y[:, j0 : j0 + step]
            sy = np.sign(blk[:, None, :] - blk[None, :, :])
            numer[j0 : j0 + step] = np.einsum("ab,abq->q", sx, sy) / 2.0
            untied_y[j0 : j0 + step] = np.abs(sy).sum(axis=(0, 1)) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = numer / np.sqrt(untied_x) / np.sqrt(untied_y)
    tau[(untied_y == 0) | (untied_x == 0)] = np.nan
    return np.clip(tau, -1.0, 1.0)


def question_table(p, models=None, questions=None, *, correct=None) -> pd.DataFrame:
    """Per-question quality table: accuracy, solvers and the suspect ranking by Kendall's tau.

    Parameters
    ----------
    p : array_like, shape (M, N)
        Mean score of each model on each question (``correct / samples``), in [0, 1]. Must be
        complete: NaN raises (see the module docstring).
    models : sequence, optional
        M model names, for ``weakest_solver`` (default: 0..M-1).
    questions : sequence, optional
        N question ids (default: 0..N-1).
    correct : array_like, shape (M, N), optional
        Sum of scores over the samples of each cell. A model *solved* a question when
        ``correct > 0`` (some sample right); default ``p > 0``, the same thing when every cell
        has at least one sample.

    Returns
    -------
    pandas.DataFrame
        One row per question, in the given order: ``question``; ``question_accuracy`` (mean of
        ``p`` over models); ``solved_by`` (models that solved it); ``weakest_solver`` and
        ``weakest_solver_accuracy`` (the solver with the lowest overall accuracy, first in model
        order among ties; missing (NaN) when nobody solved it); ``kendall_tau`` (tau-b of the
        question's scores against :func:`model_accuracy`, as ``scipy.stats.kendalltau``; NaN when
        every model scored the same, e.g. unsolved questions); ``suspect_rank`` (1 = most
        negative tau; equal taus keep question order; <NA> where tau is NaN).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[1, 0, 0], [1, 1, 0], [1, 1, 0], [0, 1, 0.0]])
    >>> t = question_table(p, questions=["a", "b", "c"])
    >>> t[["question", "solved_by", "suspect_rank"]].values.tolist()
    [['a', 3, 1], ['b', 3, 2], ['c', 0, <NA>]]
    """
    p = _check_scores(p)
    m, n = p.shape
    models = np.arange(m) if models is None else np.asarray(models)
    questions = np.arange(n) if questions is None else np.asarray(questions)
    if models.shape != (m,) or questions.shape != (n,):
        raise ValueError(f"need {m} model names and {n} question ids for p of shape {p.shape}")
    solved = (p if correct is None else np.asarray(correct, dtype=float)) > 0
    if solved.shape != p.shape:
        raise ValueError(f"correct has shape {solved.shape}, p has {p.shape}")
    acc = model_accuracy(p)
    weakest = np.argmin(np.where(solved, acc[:, None], np.inf), axis=0)
    anyone = solved.any(axis=0)
    tau = kendall_tau_b(acc, p)
    order = np.argsort(np.where(np.isnan(tau), np.inf, tau), kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(1, n + 1)
    return pd.DataFrame(
        {
            "question": questions,
            "question_accuracy": p.mean(axis=0),
            "solved_by": solved.sum(axis=0),
            "weakest_solver": np.where(anyone, models[weakest].astype(object), None),
            "weakest_solver_accuracy": np.where(anyone, acc[weakest], np.nan),
            "kendall_tau": tau,
            "suspect_rank": pd.array(np.where(np.isnan(tau), None, rank), dtype="Int64"),
        },
        columns=QUESTION_COLUMNS,
    )


def question_summary(table: pd.DataFrame) -> dict:
    """Counts over a :func:`question_table`, as in Eval-Arena's summary page.

    Returns a dict: ``questions``; ``unsolved`` (accuracy 0: no model scored on it; Eval-Arena's
    ``no_solve``); ``solved_by_one``; ``tau_negative`` (tau < 0; Eval-Arena's ``tau-``);
    ``tau_undefined`` (NaN tau: every model scored the same).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 1, 1, 0.0]])
    >>> question_summary(question_table(p))
    {'questions': 4, 'unsolved': 1, 'solved_by_one': 0, 'tau_negative': 1, 'tau_undefined': 1}
    """
    tau = table["kendall_tau"].to_numpy(dtype=float)
    return {
        "questions": len(table),
        "unsolved": int((table["question_accuracy"] == 0).sum()),
        "solved_by_one": int((table["solved_by"] == 1).sum()),
        "tau_negative": int((tau < 0).sum()),
        "tau_undefined": int(np.isnan(tau).sum()),
    }


def win_rate(p) -> np.ndarray:
    """Eval-Arena's average win rate of each model against all the others.

    ``win_rate[a] = mean over models b != a and questions i of p_a,i (1 - p_b,i)``: the chance
    that ``a`` passes and ``b`` fails a random question against a random other model. As in
    eval-arena (``arena.py``: the mean of ``awins`` over all battles of ``model_a``), a tie (both
    pass or both fail) counts as no win, not half a win, so ``win_rate[a] + win_rate_of_b_vs_a``
    is below 1 whenever there are ties. O(M N): no pair matrix is formed.

    Examples
    --------
    >>> import numpy as np
    >>> win_rate(np.array([[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0.0]])).tolist()
    [0.375, 0.125, 0.0]
    """
    p = _check_scores(p)
    m, n = p.shape
    if m < 2:
        return np.full(m, np.nan)
    fails_others = (1.0 - p).sum(axis=0)[None, :] - (1.0 - p)
    return (p * fails_others).sum(axis=1) / ((m - 1) * n)


def _scores(ds: xr.Dataset, on_missing: str) -> tuple[xr.Dataset, np.ndarray]:
    ds = complete(ds, on_missing=on_missing)
    return ds, _core.cell_means(ds["correct"].values, ds["samples"].values)


def question_quality(ds: xr.Dataset, *, on_missing: str = "raise") -> pd.DataFrame:
    """:func:`question_table` of a Dataset from :func:`bayesnoise.load`.

    ``on_missing`` as in :func:`bayesnoise.data.complete` ("raise" or "intersect").
    """
    ds, p = _scores(ds, on_missing)
    return question_table(p, ds[MODEL].values, ds[QUESTION].values, correct=ds["correct"].values)


def model_quality(
    ds: xr.Dataset,
    *,
    on_missing: str = "raise",
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    rng: int | None = 0,
) -> pd.DataFrame:
    """Per model: ``model, accuracy, win_rate, elo, elo_low, elo_high`` of a Dataset.

    Accuracy is the row mean of the per-cell mean scores; win rate from :func:`win_rate`; Elo
    and its bootstrap interval from :func:`bayesnoise.frequentist.elo.elo`. Rows sorted by
    accuracy, best first.
    """
    ds, p = _scores(ds, on_missing)
    table = elo(
        p,
        ds[MODEL].values,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        rng=rng,
    )
    table.insert(1, "accuracy", p.mean(axis=1))
    table.insert(2, "win_rate", win_rate(p))
    return table.sort_values("accuracy", ascending=False, kind="stable").reset_index(drop=True)
