"""The regression gate of a team that evaluates every change: :func:`check` (is the candidate
worse than the baseline beyond noise?); :mod:`.sequential` stops sampling early with a valid
answer and :mod:`.plan` says how many questions and samples to pay for."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise._common import option
from bayesnoise.data import MODEL, QUESTION, DataError, attr

from ._gate_judge import check_judged, judged
from ._inputs import (
    READ_OPTIONS,
    as_seed,
    check_mode_options,
    check_read_options,
    check_value,
    dataset,
    fill_docs,
    gate_model,
    judge_graded,
    source_name,
)
from ._result import to_result

__all__ = ["check"]

_ROLES = ("model", "question", "score", "sample", "count", "benchmark", "cluster")
_GATE = {"baseline", "candidate", "margin", "alpha", "method"}
_JUDGE = {"judge_col", "human_col", "human", "label_prob_col"}
#: Each mode of :func:`check` -> (the options it uses, those it accepts that may not change
#: its result); any other option given is a ValueError naming the modes that take it.
#: ``progress`` only shows a display. ``n_resamples`` and ``rng`` are used by method="bayes"
#: and, frequentist, by the sign-flip test beyond its exact range and the bootstrap of
#: max(t, bootstrap-t) (a margin, K > 1, < 100 questions): on other inputs they change
#: nothing. The judge mode takes the input options (``check_judged`` says which apply); the
#: crossed gate (factor columns) draws nothing.
CHECK_MODES = {
    "plain": (_GATE | set(READ_OPTIONS), {"progress", "n_resamples", "rng"}),
    "crossed": (_GATE | set(READ_OPTIONS), {"progress"}),
    "judge": (_GATE | _JUDGE | set(READ_OPTIONS), {"progress", "n_resamples", "rng"}),
}


def _check_margin(margin) -> float:
    try:
        value = float(margin)
    except (TypeError, ValueError):
        raise DataError(f"margin must be a number, got {margin!r}") from None
    if not -1.0 < value < 1.0:
        raise DataError(
            f"margin must be in (-1, 1), a difference of accuracies as a fraction "
            f"(0.01 = one point), got {margin}"
        )
    return value


def _check_alpha(alpha, upper=0.5) -> float:
    if not 0.0 < float(alpha) < upper:
        raise DataError(f"alpha must be in (0, {upper:g}), got {alpha}")
    return float(alpha)


# --- check ------------------------------------------------------------------------------


def _benchmark_names(source, read) -> list:
    """The benchmarks to gate: ``benchmark`` (comma-separated names), else every value of
    the benchmark column of a table, else one (None: whatever the source holds)."""
    given = read.get("benchmark")
    if given:
        names = given.split(",") if isinstance(given, str) else list(given)
        return [str(n).strip() for n in names if str(n).strip()]
    columns = {r: read[f"{r}_col"] for r in _ROLES if read.get(f"{r}_col")}
    if isinstance(source, pd.DataFrame):
        col = columns.get("benchmark") or next(
            (c for c in ("benchmark_id", "benchmark") if c in source.columns), None
        )
        values = source[col].dropna().unique() if col in source.columns else []
        return sorted(map(str, values)) if len(values) > 1 else [None]
    if not isinstance(source, str | Path):
        return [None]
    from bayesnoise.io.columns import evalstats_wide, resolve_columns
    from bayesnoise.io.sources import open_table, table_kind

    path = Path(source)
    if not path.is_file() or table_kind(path)[0] is None:
        return [None]
    table = open_table(path)
    if not columns and evalstats_wide(table.columns):  # one model, one benchmark
        return [None]
    layout = resolve_columns(table.columns, columns or None, str(path), one_model=True)
    if "benchmark" not in layout.columns:
        return [None]
    found: set[str] = set()
    for _, _, cols in table.batches({"benchmark": layout.label("benchmark")}, {"benchmark"}):
        col = cols["benchmark"]
        found |= {str(col.labels[c]) for c in np.unique(col.codes) if col.labels[c] is not None}
    return sorted(found) if len(found) > 1 else [None]


def _model_scores(ds, model, role):
    """(model, question ids, scores) where ``model`` answered; the only model when None."""
    model = gate_model(ds, model, role)
    cell = ds.sel({MODEL: str(model)})
    answered = cell["samples"].values > 0
    scores = cell["correct"].values[answered] / cell["samples"].values[answered]
    return str(model), np.asarray(ds[QUESTION].values[answered]).astype(str), scores


def _one_binary_sample(ds, model) -> bool:
    """One 0/1 sample per answered question (K = 1): a margin is then tested as a difference
    of paired proportions (:mod:`bayesnoise.decide.gate`)."""
    cell = ds.sel({MODEL: str(model)})
    samples = cell["samples"].values
    answered = samples > 0
    correct = cell["correct"].values[answered]
    return bool(np.all(samples[answered] == 1) and np.all((correct == 0) | (correct == 1)))


def _paired(base, cand, name):
    """Scores of the two on their shared questions (sorted by id); a warning names what is
    not shared, an error when nothing is."""
    (b_model, b_q, b_p), (c_model, c_q, c_p), b_src, c_src = base[:3], cand[:3], base[3], cand[3]
    shared, ib, ic = np.intersect1d(b_q, c_q, return_indices=True)
    where = f"{name}: " if name else ""
    if shared.size == 0:
        raise DataError(
            f"{where}baseline {b_model!r} ({b_src}, {b_q.size} questions) and candidate "
            f"{c_model!r} ({c_src}, {c_q.size} questions) share no question; check that both "
            f"ran the same benchmark and name their questions the same way (e.g. "
            f"{b_q[:2].tolist()} vs {c_q[:2].tolist()})"
        )
    if shared.size < 2:
        raise DataError(f"{where}the gate needs at least 2 shared questions, got {shared.size}")
    if shared.size < max(b_q.size, c_q.size):
        warnings.warn(
            f"{where}pairing on the {shared.size} questions both answered; {b_q.size - shared.size}"
            f" of the baseline's and {c_q.size - shared.size} of the candidate's are left out",
            UserWarning,
            stacklevel=3,
        )
    return b_p[ib], c_p[ic]


def _load_each(source, names, model_b, model_c, progress, read, pair_source=None):
    """[(benchmark, baseline tuple, candidate tuple)] for one source (two models) or two."""
    out = []
    for name in names:
        opts = {**read, "benchmark": name}
        ds_b = dataset(source, progress=progress, **opts)
        ds_c = ds_b if pair_source is None else dataset(pair_source, progress=progress, **opts)
        label = name or str(attr(ds_b, "benchmark"))
        b = (*_model_scores(ds_b, model_b, "baseline"), source_name(attr(ds_b, "source")))
        c = (*_model_scores(ds_c, model_c, "candidate"), source_name(attr(ds_c, "source")))
        b, c = (*b, _one_binary_sample(ds_b, b[0])), (*c, _one_binary_sample(ds_c, c[0]))
        out.append((label, b, c))
    return out


def check(
    data,
    *,
    baseline=None,
    candidate=None,
    margin=0.0,
    alpha=0.05,
    method="frequentist",
    n_resamples=4000,
    rng=0,
    judge_col=None,
    human_col=None,
    human=None,
    label_prob_col=None,
    progress=True,
    **read,
):
    """Regression gate: is the candidate worse than the baseline beyond noise
    (``bayesnoise check``)?

    One-sided, paired on the questions both answered: a regression is shown when
    ``candidate - baseline < -margin`` at level ``alpha`` (:mod:`bayesnoise.decide.gate`).
    Several benchmarks (a benchmark column, a list of sources, or ``benchmark="a,b"``): one
    test per benchmark and the combined test of their mean difference (meta-analysis: sum of
    the differences over the root of the sum of their variances), Holm over all of them.

    Parameters
    ----------
    data : path, dataset, DataFrame, or a list of them
        One source holding both models (``baseline`` and ``candidate`` name them); or two,
        the baseline's results then the candidate's (paired on the questions both answered;
        when both models are named and the first source holds both, each source is one
        benchmark instead); or three or more sources holding both models, one benchmark
        each.
    baseline, candidate : str, optional
        The two models; needed where a source holds several models. The difference is
        candidate - baseline.
    margin : float, default 0.0
        Tolerated drop, a fraction in (-1, 1) (0.01 = one point): only a drop beyond it is a
        regression; a candidate shown to stay within it is *non-inferior*.
    alpha : float, default 0.05
        Family-wise level of the one-sided question "is the candidate worse?".
    method : {"frequentist", "bayes"}, default "frequentist"
        The paired t test, or the Dirichlet-process posterior (regression when
        P(drop > margin) >= 1 - alpha). Frequentist on few questions (every difference
        equal, or fewer than 30 that differ): an exact test decides instead, named in
        ``test`` and the verdict (sign test, sign-flip test), with the betting interval.
        With a margin, a fixed-N test made for it (:mod:`bayesnoise.decide.gate`): on one
        0/1 sample per question the exact unconditional test of paired proportions (up to
        1000 questions; beyond, Tango's score test), otherwise the paired t test from 100
        questions, else max(t, bootstrap-t) (the bootstrap's Monte Carlo SE in ``mcse``); the
        same data give the same answer whatever ``rng`` and the order of the questions. Judge-graded
        (``judge_col``, ``human_col`` or ``human`` given): the one-sided PPI++ z test
        (``test`` "PPI++ paired z"), or the judge-misclassification model's posterior
        (:mod:`bayesnoise.decide.judge_gate`).
    n_resamples : int, default 4000
        Monte Carlo draws of the posterior (bayes); random sign patterns of a sign-flip test
        beyond its exact range (40 differing questions); resamples of the bootstrap of
        max(t, bootstrap-t) (margin, K > 1, fewer than 100 questions).
    rng : int or numpy.random.Generator, default 0
        Seed (or generator) of the posterior draws.
        With factor columns (``factors=["template"]``, CLI ``--factor template``): the change
        is the paired difference over the template population of ``bayesnoise noises --by
        pair`` (question x template cells both models have, runs as replicates), its SE
        with the model x template part, tested by a one-sided t on Satterthwaite's degrees
        of freedom (``test`` "Satterthwaite t"; ``attrs["estimand"]``); frequentist only.
    judge_col : str, optional
        Scores graded by an LLM judge: the judge-score column (default ``judge_score``), as
        in :func:`bayesnoise.judge`. With any of ``judge_col``, ``human_col``, ``human``,
        ``data`` is one judge-graded table (model, question, judge score in [0, 1], human
        label 0/1 empty where no human looked) and the gate is on the judge scores corrected
        with the human labels of the questions labelled for both models (a random subset):
        frequentist, the one-sided PPI++ paired z test of candidate - baseline against
        ``-margin``, its interval the PPI++ interval at the same weight; bayes, the
        misclassification model's P(candidate - baseline > -margin) (0/1 verdicts). The
        rows add ``human_labels``, ``ppi_lambda``, ``effective_human_labels`` and
        ``difference_judge`` (the judge-only difference, shown to compare).
    human_col : str, optional
        Human-label column (default ``human``).
    human : path or DataFrame, optional
        The human labels in a second table keyed by model and question.
    label_prob_col : str, optional
        Judge-graded: the column of each question's probability of being chosen for a human
        label (default ``label_prob`` when present), as in :func:`bayesnoise.judge`.
    progress : bool, default True
        Progress display on standard error while reading.
    {read}

    Returns
    -------
    xarray.Dataset
        Dim ``benchmark`` (each benchmark, then ``combined`` when several): the columns
        ``bayesnoise check --format csv`` prints (``change`` with its ``1 - 2 alpha``
        interval, ``p_value_regression`` or, for bayes, ``prob_no_regression``, their Holm
        adjustment, ``regression``, ``verdict``, ...). Attributes, of the top row (the
        combined test when several): ``difference`` (candidate - baseline), ``low``,
        ``high`` (the interval at ``confidence_level = 1 - 2 alpha``, whose upper end is
        the one-sided bound the gate tests), ``statistic``, ``test``, ``df`` (the
        statistic and degrees of freedom of the test named in ``test``), ``p_value`` and
        ``mcse`` (its Monte Carlo SE; frequentist) or ``prob_no_regression`` (bayes; never called a p-value),
        ``alternative`` (``"less"``), ``regression``, ``exit_status`` (1 = regression
        shown), ``verdict`` (the lines the command prints), ``baseline``, ``candidate``,
        ``method``, ``margin``, ``alpha``; NaN attributes are None. The scipy-style object
        is :func:`bayesnoise.decide.gate.gate`'s. Judge-graded, also ``judge``,
        ``human_labels`` (questions labelled for both), ``note`` (the random-subset
        assumption), ``p_labelled_share`` and ``p_labelled_judge_mean`` (its checks;
        :func:`bayesnoise.frequentist.ppi.labelling_checks`), ``source``; the scipy-style
        object is :func:`bayesnoise.decide.judge_gate.judge_gate`'s.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> f = "examples/data/cruxeval_output_temp0.8.csv.gz"
    >>> res = bn.check(f, baseline="phind", candidate="codellama-13b")
    >>> res.attrs["regression"], res.attrs["exit_status"], res.sizes["benchmark"]
    (True, 1, 1)
    >>> print(res.attrs["verdict"])
    candidate scores 0.028 lower than baseline: candidate - baseline = -0.028 [-0.045, -0.011] (90% interval), p = 0.003: regression
    """
    from bayesnoise.decide.gate import METHODS

    given = {**locals(), **read}  # the options as called (check_mode_options)
    margin, alpha = _check_margin(margin), _check_alpha(alpha)
    check_value("check", "method", method, METHODS)
    read = check_read_options(read, "check")
    mode = _mode(data, read, judged(judge_col, human_col, human) or label_prob_col is not None)
    check_mode_options("check", check, mode, given, CHECK_MODES)
    if mode == "judge":
        return check_judged(
            data,
            baseline=baseline,
            candidate=candidate,
            margin=margin,
            alpha=alpha,
            method=method,
            n_resamples=n_resamples,
            rng=as_seed(rng),
            read=read,
            judge_col=judge_col,
            human_col=human_col,
            human=human,
            label_prob_col=label_prob_col,
        )
    files = list(data) if isinstance(data, list | tuple) else [data]
    named = baseline is not None and candidate is not None
    if len(files) == 2:
        holds_both = False
        if named:
            first = _benchmark_names(files[0], read)[0]
            ds = dataset(
                files[0], progress=progress, factors_ok=True, **{**read, "benchmark": first}
            )
            holds_both = {str(baseline), str(candidate)} <= {str(m) for m in ds[MODEL].values}
        if not holds_both:
            return _check(
                [(files[0], files[1])],
                baseline,
                candidate,
                margin,
                alpha,
                method,
                n_resamples,
                as_seed(rng),
                progress,
                read,
            )
    elif len(files) > 2 and not named:
        raise DataError(
            f"{len(files)} sources: each is one benchmark holding both models; name them with "
            f"{option('baseline', 'MODEL')} and {option('candidate', 'MODEL')} (two sources "
            "without them are the baseline's and the candidate's)"
        )
    if not named:
        raise DataError(
            f"one source: name both models with {option('baseline', repr('MODEL'))} and "
            f"{option('candidate', repr('MODEL'))}, or give two sources"
        )
    if str(baseline) == str(candidate):
        raise DataError(f"baseline and candidate are the same model ({baseline!r})")
    pairs = [(s, None) for s in files]
    return _check(
        pairs,
        baseline,
        candidate,
        margin,
        alpha,
        method,
        n_resamples,
        as_seed(rng),
        progress,
        read,
    )


def _mode(data, read, judge_given: bool) -> str:
    """The mode of :func:`check`: "judge" (judge options given, or a table ``judge`` reads as
    judge-graded), "crossed" (factor columns) or "plain"."""
    if judge_given or judge_graded(data, read):
        return "judge"
    return "crossed" if read.get("factors") else "plain"


def _check(pairs, baseline, candidate, margin, alpha, method, n_resamples, rng, progress, read):
    """:func:`check` on ``pairs`` of (source, other source or None), one benchmark each."""
    from bayesnoise.decide.gate import gate

    if read.get("factors"):  # crossed cells: the difference over the template population
        from ._gate_factors import check_crossed

        return check_crossed(pairs, baseline, candidate, margin, alpha, method, progress, read)
    rows = []
    for source, other in pairs:
        names = _benchmark_names(source, read)
        if other is not None and names == [None]:
            names = _benchmark_names(other, read)
        rows += _load_each(source, names, baseline, candidate, progress, read, other)
    labels = [r[0] for r in rows]
    if len(set(labels)) < len(labels):  # one benchmark name twice: say which source
        labels = [f"{r[0]} ({r[1][3]})" for r in rows]
    diffs, accuracies, binary = [], [], []
    for label, b, c in rows:
        pb, pc = _paired(b, c, label if len(rows) > 1 else "")
        diffs.append(pc - pb)
        accuracies.append((float(pb.mean()), float(pc.mean())))
        binary.append(b[4] and c[4])
    b_name, c_name = rows[0][1][0], rows[0][2][0]
    if pairs[0][1] is not None and b_name == c_name:
        b_name, c_name = f"{b_name} ({rows[0][1][3]})", f"{c_name} ({rows[0][2][3]})"
    res = gate(
        diffs,
        names=labels,
        accuracies=accuracies,
        margin=margin,
        alpha=alpha,
        method=method,
        n_resamples=n_resamples,
        rng=rng,
        baseline=b_name,
        candidate=c_name,
        binary=binary,
    )
    out = to_result(res.rows, "benchmark")  # the table; the summary of the top row in attrs
    head = res.to_dict()
    head.pop("benchmarks")
    out.attrs.update(head)
    return out


fill_docs(check)
