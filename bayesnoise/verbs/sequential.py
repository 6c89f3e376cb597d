"""Stop sampling early with a valid answer: :func:`monitor`, an anytime-valid confidence
sequence for a paired difference, the questions replayed in a seeded random order (default),
in an order column's order, or in the file's order when asked for."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from bayesnoise._common import fmt_value, option
from bayesnoise._defaults import ALTERNATIVES
from bayesnoise.data import MODEL, QUESTION, DataError, attr

from ._inputs import as_seed, check_value, dataset, fill_docs, select_pair
from ._result import to_result
from .gate import _check_alpha, _check_margin

__all__ = [
    "monitor",
]

#: How the questions are replayed: ``random`` (seeded permutation of the questions sorted by
#: id), ``column`` (``order_column``), ``file`` (as they appear; asked for explicitly).
ORDERS = ("random", "column", "file")
_DOCS = "docs/decide-in-ci.md"


def _empty_sequence_error(source, t, n, order) -> DataError:
    cause = {
        "random": "a random order makes this a 1-in-many event at most alpha likely; check "
        "that each question appears once and both models' scores are the ones compared",
        "column": "the order column sorts the questions by something tied to their results "
        "(e.g. by outcome or by difficulty); replay in random order (the default) instead",
        "file": "the file lists the questions in an order tied to their results (e.g. sorted "
        "by outcome or by difficulty); replay in random order (the default) instead",
    }[order]
    return DataError(
        f"{source}: after question {t} of {n} (order: {order}) the confidence sequence is "
        "empty: the data contradict every difference from -1 to 1, which a valid sequence "
        f"does only when the order of the questions depends on their results; {cause}"
    )


def _order(ds, order_column, from_file):
    """Positions of the questions (numbers, else text); duplicates are an error."""
    source = attr(ds, "source")
    if order_column is None:
        return np.arange(ds.sizes[QUESTION])
    name = "cluster" if from_file else order_column
    if name not in ds.coords or ds[name].dims != (QUESTION,):
        coords = [c for c in ds.coords if ds[c].dims == (QUESTION,)]
        raise DataError(
            f"{source}: no order column {order_column!r} along the questions; coordinates "
            f"along question are {coords}"
        )
    raw = pd.Series(ds[name].values)
    numbers = pd.to_numeric(raw, errors="coerce")
    values = numbers if numbers.notna().all() else raw.astype(str)
    dup = values.duplicated(keep=False)
    if dup.any():
        first = values[dup].iloc[0]
        qs = np.asarray(ds[QUESTION].values)[(values == first).to_numpy()]
        raise DataError(
            f"{source}: the order column {order_column!r} gives the position {fmt_value(first)} to "
            f"{dup.sum()} questions ({', '.join(map(repr, qs[:3].tolist()))}{', ...' if qs.size > 3 else ''}) "
            "and maybe more; each question needs its own position (both models' rows of one "
            "question share it)"
        )
    return values.to_numpy()


def _decision(direction, a, b, margin) -> str:
    if direction > 0:  # A - B > -margin
        if margin > 0:
            return f"{a} not worse than {b} by {margin:g} or more"
        if margin < 0:
            return f"{a} better than {b} by more than {-margin:g}"
        return f"{a} better than {b}"
    if margin > 0:
        return f"{a} worse than {b} by more than {margin:g}"
    if margin < 0:
        return f"{a} not better than {b} by {-margin:g} or more"
    return f"{b} better than {a}"


def monitor(
    data,
    *,
    baseline=None,
    candidate=None,
    order_column=None,
    order=None,
    rng=0,
    margin=0.0,
    alpha=0.05,
    difference=None,
    alternative="two-sided",
    every=1,
    stop=True,
    progress=True,
    **read,
):
    """Anytime-valid paired comparison after every question (``bayesnoise monitor``).

    Replays the questions one at a time and gives, after each, a confidence sequence for the
    population difference candidate - baseline (A - B below) and an always-valid p-value for ``A - B = -margin`` that may
    be checked after every question (:mod:`bayesnoise.decide.sequential`: betting, Waudby-Smith
    and Ramdas; the guarantee is derived there). It stops at the first question where the
    p-value reaches ``alpha``, which is where the sequence leaves ``-margin``. Any number of
    samples per question (the averaged difference is bounded in [-1, 1]).

    Parameters
    ----------
    {input}
    baseline, candidate : str, optional
        The two models, as in :func:`check`: the difference is candidate - baseline. Both
        may be omitted when the data hold exactly two models: then the first is the candidate
        and the second the baseline (the difference is first - second).
    order_column : str, optional
        Column (of a table; a coordinate along ``question`` of a dataset) giving each
        question's position in the stream: numbers, or text sorted as text (e.g. ISO
        timestamps). Both models' rows of a question share one position; two questions with
        one position are an error. The guarantee needs an order that does not depend on the
        results (e.g. the time each question arrived, fixed before the models ran).
    order : {{"random", "column", "file"}}, optional
        How the questions are replayed. Default: ``"column"`` when ``order_column`` is given,
        else ``"random"``: the questions sorted by id, then a random permutation drawn from
        ``rng`` (the same for any file order of the same questions), which makes the
        guarantee hold whatever the file's order. ``"file"``: as they appear in the data,
        with a one-line warning: the guarantee then needs that order to be independent of
        the results (a file sorted by outcome breaks it).
    rng : int or numpy.random.Generator, default 0
        Seed of the random order (printed by the command; ``--rng N`` to change).
    margin : float, default 0.0
        The null is ``A - B = -margin`` (a fraction in (-1, 1)).
    alpha : float, default 0.05
        Error level of the sequence and of the test.
    difference : float, optional
        Planned difference: stake the Kelly bet for it (stops soonest when the true
        difference is about this; default: adaptive stakes).
    alternative : {"two-sided", "greater", "less"}
        "less": only ``A - B < -margin`` is looked for (e.g. A the candidate, a regression).
    every : int, default 1
        Keep every ``every``-th question's row (and the last).
    stop : bool, default True
        End at the stopping question; False replays the whole log.
    progress : bool, default True
        Progress display on standard error while reading.

    Returns
    -------
    xarray.Dataset
        Dim ``step`` (coordinate: questions used): ``question`` (the one just added),
        ``questions``, ``difference`` (A - B so far), ``confidence_sequence_low`` /
        ``_high``, ``p_value_always_valid``, ``stopped``, ``decision``; attrs ``stopped_at``
        (questions used at the stop, 0 if it did not stop), ``decision``, ``candidate``,
        ``baseline``, ``margin``, ``alpha``, ``stakes``, ``order``, ``rng`` (the seed of a
        random order, else None).

    Raises
    ------
    bayesnoise.data.DataError
        When the sequence becomes empty among the questions returned (it contradicts every
        difference: the order depends on the results), never blank cells.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> f = "examples/data/cruxeval_output_temp0.8.csv.gz"
    >>> r = bn.monitor(f, candidate="codellama-34b", baseline="codellama-13b")
    >>> r.attrs["decision"], r.attrs["stopped_at"], r.attrs["order"], r.attrs["rng"]
    ('codellama-34b better than codellama-13b', 678, 'random', 0)
    """
    from bayesnoise.data import complete, scores
    from bayesnoise.decide.sequential import confidence_sequence

    margin, alpha = _check_margin(margin), _check_alpha(alpha, 1.0)
    check_value("monitor", "alternative", alternative, ALTERNATIVES)
    if difference is not None and not 0 < float(difference) < 2:
        raise DataError(f"difference (planned) must be in (0, 2), got {difference}")
    if int(every) < 1:
        raise DataError(f"every must be a whole number >= 1, got {every}")
    if order is None:
        order = "random" if order_column is None else "column"
    check_value("monitor", "order", order, ORDERS)
    if (order == "column") != (order_column is not None):
        raise DataError(
            f"{option('order', repr('column'))} goes with {option('order_column', 'NAME')} and "
            f"an order column with {option('order', repr('column'))}; got order={order!r}, "
            f"order_column={order_column!r}"
        )
    seed = as_seed(rng) if order == "random" else None
    import xarray as xr

    from_file = order_column is not None and not isinstance(data, xr.Dataset)
    if from_file:
        if read.get("cluster_col"):
            raise DataError(
                "the order column is read as the question's position; "
                f"{option('cluster_col').removesuffix('=')} cannot be used with it"
            )
        read = {**read, "cluster_col": order_column}
    try:
        ds = dataset(data, progress=progress, **read)
    except DataError as err:
        if from_file and "cluster" in str(err):
            raise DataError(
                f"{err} (the cluster here is the order column {order_column!r}: both models' "
                "rows of one question must share one position)"
            ) from None
        raise
    models = [str(m) for m in ds[MODEL].values]
    if baseline is None and candidate is None and len(models) == 2:
        candidate, baseline = models
    if baseline is None or candidate is None:
        raise DataError(
            f"{attr(ds, 'source')}: name the two models with {option('baseline', 'MODEL')} and "
            f"{option('candidate', 'MODEL')}; models are {', '.join(models[:20])}"
        )
    model_a, model_b = candidate, baseline
    ds = complete(select_pair(ds, (model_a, model_b)), on_missing="raise")
    if order == "random":  # by id first, so the permutation does not depend on the file
        by_id = np.argsort(np.asarray(ds[QUESTION].values).astype(str), kind="stable")
        index = by_id[np.random.default_rng(seed).permutation(by_id.size)]
    else:
        if order == "file":
            warnings.warn(
                "monitor: questions replayed in file order; the guarantee needs that order to "
                f"be independent of the results (default: random order; see {_DOCS})",
                UserWarning,
                stacklevel=2,
            )
        index = np.argsort(_order(ds, order_column, from_file), kind="stable")
    p = scores(ds).transpose(MODEL, QUESTION).values[:, index]
    cs = confidence_sequence(
        p[0] - p[1], null=-margin, alpha=alpha, difference=difference, alternative=alternative
    )
    n = p.shape[1]
    hit = np.flatnonzero(cs["p_value"] <= alpha)
    stopped_at = int(hit[0]) + 1 if hit.size else 0
    decision = _decision(cs["direction"][hit[0]], model_a, model_b, margin) if hit.size else ""
    last = stopped_at if (stop and stopped_at) else n
    empty = np.flatnonzero(np.isnan(cs["low"][:last]) | np.isnan(cs["high"][:last]))
    if empty.size:
        raise _empty_sequence_error(attr(ds, "source"), int(empty[0]) + 1, n, order)
    keep = np.unique(np.r_[np.arange(int(every) - 1, last, int(every)), last - 1])
    stopped = cs["questions"] >= stopped_at if stopped_at else np.zeros(n, dtype=bool)
    df = pd.DataFrame(
        {
            "question": np.asarray(ds[QUESTION].values)[index].astype(str),
            "questions": cs["questions"],
            "difference": cs["difference"],
            "confidence_sequence_low": cs["low"],
            "confidence_sequence_high": cs["high"],
            "p_value_always_valid": cs["p_value"],
            "stopped": stopped,
            "decision": np.where(stopped, decision, "continue"),
        }
    ).iloc[keep]
    df.attrs.update(
        {
            "candidate": str(candidate),
            "baseline": str(baseline),
            "order_column": order_column or "",
            "order": order,
            "rng": seed,
            "margin": margin,
            "alpha": alpha,
            "alternative": alternative,
            "stakes": "adaptive" if difference is None else f"planned difference {difference:g}",
            "questions_total": n,
            "stopped_at": stopped_at,
            "decision": decision,
        }
    )
    out = to_result(df.reset_index(drop=True), "step")
    return out.assign_coords(step=("step", df["questions"].to_numpy()))


# --- plan --------------------------------------------------------------------------------


fill_docs(monitor)
