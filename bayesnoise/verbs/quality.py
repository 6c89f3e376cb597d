"""The benchmark-quality verbs: :func:`questions` (which questions are unsolved or suspect) and
:func:`leaderboard` (accuracy beside win rate, Elo, rank interval and tie groups)."""

from __future__ import annotations

import warnings

from bayesnoise.data import DataError

from ._inputs import as_seed, dataset, drop_intervals, fill_docs
from ._result import to_result

__all__ = ["leaderboard", "questions"]


def questions(data, *, unsolved=False, solved_once=False, suspect=None, progress=True, **read):
    """One row per question: accuracy, solvers, Kendall tau, suspect rank (``bayesnoise
    questions``).

    A question whose results anti-correlate with model quality (negative Kendall tau-b between
    its per-model scores and the models' overall accuracies, Eval-Arena's definition) is
    *suspect*: on MBPP+ the ten most negative include all seven questions Eval-Arena's author
    confirmed wrong or underspecified.

    Parameters
    ----------
    {input}
    unsolved : bool, default False
        Only the questions no model solved (no sample correct).
    solved_once : bool, default False
        Only the questions exactly one model solved.
    suspect : int, optional
        Only the ``suspect`` most suspect questions, most suspect first.
    progress : bool, default True

    Returns
    -------
    xarray.Dataset
        Dim ``question``, most suspect first (``suspect_rank`` 1, 2, ...; then the questions
        whose tau is undefined, in file order): ``question_accuracy`` (mean over models),
        ``solved_by``, ``weakest_solver``, ``weakest_solver_accuracy``, ``kendall_tau``,
        ``suspect_rank`` (1 = most suspect; empty where tau is undefined). Attributes
        ``questions``, ``unsolved`` (question_accuracy 0), ``solved_by_one``, ``tau_negative``
        (tau < 0) and ``tau_undefined``, counted over all questions before any filter.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.questions("examples/data/cruxeval_output_temp0.8.csv.gz", suspect=3)
    >>> r["suspect_rank"].values.tolist()
    [1.0, 2.0, 3.0]
    """
    from bayesnoise import frequentist

    ds = dataset(data, progress=progress, **read)
    if ds.sizes["model"] < 3:
        raise DataError(
            f"{ds.attrs.get('source', 'the input')}: question quality needs at least 3 models "
            f"(it ranks models by accuracy); it has {ds.sizes['model']}"
        )
    table = frequentist.question_quality(ds)
    summary = frequentist.question_summary(table)
    if summary["unsolved"] == len(table):
        warnings.warn(
            "no model solved any question: every tau is undefined and nothing can be suspect",
            UserWarning,
            stacklevel=2,
        )
    if unsolved:
        table = table[table["solved_by"] == 0]
    if solved_once:
        table = table[table["solved_by"] == 1]
    # the answer first: most suspect question first, undefined tau (NaN rank) last in file order
    table = table.sort_values("suspect_rank", na_position="last", kind="stable")
    if suspect is not None:
        table = table.dropna(subset=["suspect_rank"]).head(suspect)
    table = table.reset_index(drop=True)
    table.attrs.update(summary)
    return to_result(table, "question")


def leaderboard(data, *, n_resamples=1000, confidence_level=0.95, rng=0, progress=True, **read):
    """Per model: accuracy, win rate, Elo with its interval, rank interval and tie groups
    (``bayesnoise leaderboard``).

    Parameters
    ----------
    {input}
    n_resamples : int, default 1000
        Bootstrap replicates over questions (the unit that was sampled) for ``elo_low/high``.
    confidence_level : float or None, default 0.95
        Level of the Elo and rank intervals and of the tie groups; None: none of them.
    rng : int or numpy.random.Generator, default 0
        Seed (or generator) of the bootstrap and the rank draws.
    progress : bool, default True
        Progress display on standard error while reading.

    Returns
    -------
    xarray.Dataset
        Dim ``model``, best accuracy first: ``accuracy, win_rate, elo, elo_low, elo_high,
        rank_low, rank_high, group``. ``win_rate`` is Eval-Arena's (mean over other models and
        questions of P(A passes and B fails)); ``elo`` a Bradley-Terry fit of the expected win
        counts with a tie (both pass or both fail) half a win for each side, as in Chatbot
        Arena and Eval-Arena, 400 points per factor of 10 in odds, mean 1000. Quote
        ``accuracy`` and its interval: it is the most stable of the three on half-splits.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.leaderboard("examples/data/cruxeval_output_temp0.8.csv.gz", n_resamples=50)
    >>> round(float(r["elo"].mean()), 6)
    1000.0
    """
    from bayesnoise import decide, frequentist

    ds = dataset(data, progress=progress, **read)
    if ds.sizes["model"] < 2:
        raise DataError(
            f"{ds.attrs.get('source', 'the input')}: a leaderboard needs at least 2 models"
        )
    level = 0.95 if confidence_level is None else confidence_level
    seed = as_seed(rng)
    table = frequentist.model_quality(ds, n_resamples=n_resamples, confidence_level=level, rng=seed)
    ranks = decide.rank_table(ds, confidence_level=level, rng=seed)
    keep = ranks[["model", "rank_low", "rank_high", "group"]]
    table = table.merge(keep, on="model", how="left", validate="one_to_one")
    if confidence_level is None:  # level-derived columns: the intervals and the tie groups
        table = drop_intervals(table, None).drop(columns=["group"])
    return to_result(table, "model")


fill_docs(questions, leaderboard)
