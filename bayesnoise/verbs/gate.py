"""The decisions of a team that evaluates every change: :func:`check` (a regression gate for
CI), :func:`sequential` (stop sampling early with a valid answer) and :func:`plan` (how many
questions and samples to pay for)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise._common import fmt_value
from bayesnoise.data import MODEL, QUESTION, DataError, attr

from ._inputs import READ_OPTIONS, check_read_options, dataset, select_pair, source_name
from ._result import to_result
from .tables import _INPUT_DOC

__all__ = ["check", "plan", "sequential"]

_ROLES = ("model", "question", "score", "sample", "count", "benchmark", "cluster")


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
    from bayesnoise.io.columns import resolve_columns
    from bayesnoise.io.sources import open_table, table_kind

    path = Path(source)
    if not path.is_file() or table_kind(path)[0] is None:
        return [None]
    table = open_table(path)
    layout = resolve_columns(table.columns, columns or None, str(path))
    if "benchmark" not in layout.columns:
        return [None]
    found: set[str] = set()
    for _, _, cols in table.batches({"benchmark": layout.label("benchmark")}, {"benchmark"}):
        col = cols["benchmark"]
        found |= {str(col.labels[c]) for c in np.unique(col.codes) if col.labels[c] is not None}
    return sorted(found) if len(found) > 1 else [None]


def _model_scores(ds, model, role):
    """(model, question ids, scores) where ``model`` answered; the only model when None."""
    models = [str(m) for m in ds[MODEL].values]
    source = attr(ds, "source")
    if model is None:
        if len(models) != 1:
            flag = "--baseline" if role == "baseline" else "--candidate"
            raise DataError(
                f"{source}: holds {len(models)} models ({', '.join(models[:8])}); name the "
                f"{role} with {role}_model= (CLI: {flag} MODEL)"
            )
        model = models[0]
    if str(model) not in models:
        raise DataError(f"{source}: no {role} model {model!r}; models are {', '.join(models[:20])}")
    cell = ds.sel({MODEL: str(model)})
    answered = cell["samples"].values > 0
    scores = cell["correct"].values[answered] / cell["samples"].values[answered]
    return str(model), np.asarray(ds[QUESTION].values[answered]).astype(str), scores


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
        out.append((label, b, c))
    return out


def check(
    baseline,
    candidate=None,
    *,
    baseline_model=None,
    candidate_model=None,
    margin=0.0,
    alpha=0.05,
    method="freq",
    draws=4000,
    seed=0,
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
    baseline : path, dataset, DataFrame, or a list of them
        The baseline's results; with ``candidate=None`` the one source holding both models
        (``baseline_model`` and ``candidate_model`` name them). A list: one benchmark per
        item.
    candidate : same, optional
        The candidate's results (a list pairs with the baseline list item by item).
    baseline_model, candidate_model : str, optional
        Model names; needed where a source holds several models.
    margin : float, default 0.0
        Tolerated drop, a fraction in (-1, 1) (0.01 = one point): only a drop beyond it is a
        regression; a candidate shown to stay within it is *non-inferior*.
    alpha : float, default 0.05
        Family-wise level of the one-sided question "is the candidate worse?".
    method : {"freq", "bayes"}, default "freq"
        The paired t test, or the Dirichlet-process posterior (regression when
        P(drop > margin) >= 1 - alpha).
    draws : int, default 4000
        Posterior draws (bayes).
    seed : int, default 0
    progress : bool, default True
    {read}

    Returns
    -------
    bayesnoise.decide.gate.GateResult
        scipy-style: ``statistic``, ``pvalue``, ``df``, ``alternative`` (``"less"``),
        ``confidence_interval(confidence_level=)`` (default ``1 - 2 alpha``, whose upper
        end is the one-sided bound the gate tests); ``difference`` (candidate - baseline),
        ``regression``, ``verdict`` (the lines the command prints), ``rows`` (one per
        benchmark and ``combined``), ``exit_status`` (1 = regression shown) and
        ``to_dict()`` (what ``--format json`` prints).

    Examples
    --------
    >>> import bayesnoise as bn
    >>> f = "examples/data/cruxeval_output_temp0.8.csv.gz"
    >>> res = bn.check(f, baseline_model="phind", candidate_model="codellama-13b")
    >>> res.regression, res.exit_status
    (True, 1)
    >>> print(res.verdict)
    candidate is worse than baseline by 0.028 [0.011, 0.045] (90% interval), p = 0.003: regression
    """
    from bayesnoise.decide.gate import METHODS, gate

    margin, alpha = _check_margin(margin), _check_alpha(alpha)
    if method not in METHODS:
        raise DataError(f"method must be 'freq' or 'bayes', got {method!r}")
    read = check_read_options(read)
    if candidate is None:
        if baseline_model is None or candidate_model is None:
            raise DataError(
                "one source: name both models with baseline_model= and candidate_model= "
                "(CLI: --baseline MODEL --candidate MODEL), or give two sources"
            )
        if str(baseline_model) == str(candidate_model):
            raise DataError(f"baseline and candidate are the same model ({baseline_model!r})")
        sources = list(baseline) if isinstance(baseline, list | tuple) else [baseline]
        pairs = [(s, None) for s in sources]
    else:
        base = list(baseline) if isinstance(baseline, list | tuple) else [baseline]
        cand = list(candidate) if isinstance(candidate, list | tuple) else [candidate]
        if len(base) != len(cand):
            raise DataError(
                f"{len(base)} baseline sources but {len(cand)} candidate sources; give one "
                "candidate per baseline (they pair item by item, one benchmark each)"
            )
        pairs = list(zip(base, cand, strict=True))
    rows = []
    for source, other in pairs:
        names = _benchmark_names(source, read)
        if other is not None and names == [None]:
            names = _benchmark_names(other, read)
        rows += _load_each(source, names, baseline_model, candidate_model, progress, read, other)
    labels = [r[0] for r in rows]
    if len(set(labels)) < len(labels):  # one benchmark name twice: say which source
        labels = [f"{r[0]} ({r[1][3]})" for r in rows]
    diffs, accuracies = [], []
    for label, b, c in rows:
        pb, pc = _paired(b, c, label if len(rows) > 1 else "")
        diffs.append(pc - pb)
        accuracies.append((float(pb.mean()), float(pc.mean())))
    b_name, c_name = rows[0][1][0], rows[0][2][0]
    if candidate is not None and b_name == c_name:
        b_name, c_name = f"{b_name} ({rows[0][1][3]})", f"{c_name} ({rows[0][2][3]})"
    return gate(
        diffs,
        names=labels,
        accuracies=accuracies,
        margin=margin,
        alpha=alpha,
        method=method,
        draws=draws,
        random_seed=seed,
        baseline=b_name,
        candidate=c_name,
    )


def check_paths(files, *, baseline_model=None, candidate_model=None, progress=True, **kw):
    """:func:`check` on the command line's FILE list.

    One file: it holds both models (name them). Two files: baseline then candidate, unless
    both models are named and the first file holds both (then each file is one benchmark).
    Three or more: one benchmark each, both models named.

    Examples
    --------
    >>> f = "examples/data/cruxeval_output_temp0.8.csv.gz"
    >>> check_paths([f], baseline_model="phind", candidate_model="codellama-13b").regression
    True
    """
    files = list(files)
    named = baseline_model is not None and candidate_model is not None
    opts = {"baseline_model": baseline_model, "candidate_model": candidate_model, **kw}
    if len(files) == 2:
        holds_both = False
        if named:
            read = check_read_options({k: v for k, v in kw.items() if k in READ_OPTIONS})
            first = _benchmark_names(files[0], read)[0]
            ds = dataset(files[0], progress=progress, **{**read, "benchmark": first})
            models = {str(m) for m in ds[MODEL].values}
            holds_both = {str(baseline_model), str(candidate_model)} <= models
        if not holds_both:
            return check(files[0], files[1], progress=progress, **opts)
    elif len(files) > 2 and not named:
        raise DataError(
            f"{len(files)} files: each is one benchmark holding both models; name them with "
            "--baseline MODEL --candidate MODEL (two files without them are baseline and "
            "candidate)"
        )
    return check(files[0] if len(files) == 1 else files, progress=progress, **opts)


# --- sequential --------------------------------------------------------------------------


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


def sequential(
    data,
    *,
    model_a=None,
    model_b=None,
    order_column=None,
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

    Replays the questions in order and gives, after each, a confidence sequence for the
    population difference A - B and an always-valid p-value for ``A - B = -margin`` that may
    be checked after every question (:mod:`bayesnoise.decide.sequential`: betting, Waudby-Smith
    and Ramdas; the guarantee is derived there). It stops at the first question where the
    p-value reaches ``alpha``, which is where the sequence leaves ``-margin``. Any number of
    samples per question (the averaged difference is bounded in [-1, 1]).

    Parameters
    ----------
    {input}
    model_a, model_b : str, optional
        The two models (both may be omitted when the data hold exactly two).
    order_column : str, optional
        Column (of a table; a coordinate along ``question`` of a dataset) giving each
        question's position in the stream: numbers, or text sorted as text (e.g. ISO
        timestamps). Both models' rows of a question share one position; two questions with
        one position are an error. Default: the order the questions appear in the data. The
        guarantee needs an order that does not depend on the results (shuffled questions, or
        as they arrive).
    margin : float, default 0.0
        The null is ``A - B = -margin`` (a fraction in (-1, 1)).
    alpha : float, default 0.05
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

    Returns
    -------
    xarray.Dataset
        Dim ``step`` (coordinate: questions used): ``question`` (the one just added),
        ``questions``, ``difference`` (A - B so far), ``confidence_sequence_low`` /
        ``_high``, ``p_always_valid``, ``stopped``, ``decision``; attrs ``stopped_at``
        (questions used at the stop, 0 if it did not stop), ``decision``, ``model_a``,
        ``model_b``, ``margin``, ``alpha``, ``stakes``.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> f = "examples/data/cruxeval_output_temp0.8.csv.gz"
    >>> r = bn.sequential(f, model_a="codellama-34b", model_b="codellama-13b")
    >>> r.attrs["decision"], r.attrs["stopped_at"]
    ('codellama-34b better than codellama-13b', 633)
    """
    from bayesnoise.data import complete, scores
    from bayesnoise.decide.sequential import ALTERNATIVES, confidence_sequence

    margin, alpha = _check_margin(margin), _check_alpha(alpha, 1.0)
    if alternative not in ALTERNATIVES:
        raise DataError(
            f"alternative must be one of {', '.join(ALTERNATIVES)}, got {alternative!r}"
        )
    if difference is not None and not 0 < float(difference) < 2:
        raise DataError(f"difference (planned) must be in (0, 2), got {difference}")
    if int(every) < 1:
        raise DataError(f"every must be a whole number >= 1, got {every}")
    import xarray as xr

    from_file = order_column is not None and not isinstance(data, xr.Dataset)
    if from_file:
        if read.get("cluster_col"):
            raise DataError(
                "the order column is read as the question's position; cluster_col "
                "(--cluster-col) cannot be used with it"
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
    if model_a is None and model_b is None and len(models) == 2:
        model_a, model_b = models
    if model_a is None or model_b is None:
        raise DataError(
            f"{attr(ds, 'source')}: name the two models with model_a= and model_b= (CLI: "
            f"--model-a, --model-b); models are {', '.join(models[:20])}"
        )
    ds = complete(select_pair(ds, (model_a, model_b)), on_missing="raise")
    position = _order(ds, order_column, from_file)
    order = np.argsort(position, kind="stable")
    p = scores(ds).transpose(MODEL, QUESTION).values[:, order]
    cs = confidence_sequence(
        p[0] - p[1], null=-margin, alpha=alpha, difference=difference, alternative=alternative
    )
    n = p.shape[1]
    hit = np.flatnonzero(cs["p_value"] <= alpha)
    stopped_at = int(hit[0]) + 1 if hit.size else 0
    decision = _decision(cs["direction"][hit[0]], model_a, model_b, margin) if hit.size else ""
    last = stopped_at if (stop and stopped_at) else n
    keep = np.unique(np.r_[np.arange(int(every) - 1, last, int(every)), last - 1])
    stopped = cs["questions"] >= stopped_at if stopped_at else np.zeros(n, dtype=bool)
    df = pd.DataFrame(
        {
            "question": np.asarray(ds[QUESTION].values)[order].astype(str),
            "questions": cs["questions"],
            "difference": cs["difference"],
            "confidence_sequence_low": cs["low"],
            "confidence_sequence_high": cs["high"],
            "p_always_valid": cs["p_value"],
            "stopped": stopped,
            "decision": np.where(stopped, decision, "continue"),
        }
    ).iloc[keep]
    df.attrs.update(
        {
            "model_a": str(model_a),
            "model_b": str(model_b),
            "order_column": order_column or "",
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


def _empty(data) -> bool:
    return data is None or (isinstance(data, list | tuple) and len(data) == 0)


def _reference_components(name):
    from .outputs import reference

    ref = reference(name).to_dataframe().reset_index(drop=True)
    usable = ref[
        np.isfinite(ref["se_difference_data"]) & np.isfinite(ref["se_difference_prediction"])
    ]
    if usable.empty:
        raise DataError(
            f"reference {name!r}: its runs have one sample per question, so the data and "
            "prediction noise of a difference are not separated; plan from a pilot with K >= 2"
        )
    n = usable["questions"].to_numpy(float)
    return (
        usable,
        usable["se_difference_data"].to_numpy() ** 2 * n,
        (usable["se_difference_prediction"].to_numpy() ** 2 * n),
    )


def plan(
    data=None,
    *,
    difference=None,
    target_se=None,
    power=0.8,
    alpha=0.05,
    alternative="two-sided",
    cost_question=1.0,
    cost_sample=1.0,
    pair=None,
    max_samples=100,
    max_questions=None,
    resample=None,
    reference=None,
    progress=True,
    **read,
):
    """The cost-optimal number of questions N and samples per question K (``bayesnoise plan``).

    From a pilot's measured data and prediction variance of each pair's difference (or a
    public benchmark's typical ones, ``reference=``): the N and K that reach the target at
    the least cost ``N (cost_question + K cost_sample)``, with ``K* = sqrt(cost_question *
    prediction / (cost_sample * data))`` beside the exact whole-number optimum
    (:mod:`bayesnoise.decide.plan`), compared with K = 1 and with the pilot's K. With
    ``resample``: instead, which questions of the pilot to sample again, and how often.

    Parameters
    ----------
    {input}
    difference : float, optional
        Difference to detect (0.02 = 2 points) at ``power``; or
    target_se : float, optional
        The standard error of the difference to reach. Exactly one of the two.
    power, alpha : float
        Power and level (default 0.8, 0.05).
    alternative : {"two-sided", "one-sided"}
        One-sided for a gate (:func:`check` asks a one-sided question).
    cost_question, cost_sample : float, default 1
        Cost of a new question (curation) and of one sample of it (inference of the models
        compared), > 0, in any one unit.
    pair : (str, str), optional
        Only the pair A - B.
    max_samples : int, default 100
        Largest K considered.
    max_questions : int, optional
        Largest N available.
    resample : int, optional
        Adaptive K: allocate this many extra samples to the pilot's questions (needs one
        pair and whole-number counts); returns the list, most useful first.
    reference : str, optional
        Plan from the reference noise of a public benchmark (``bayesnoise reference``)
        instead of ``data``.

    Returns
    -------
    xarray.Dataset
        Dim ``pair`` (``model_a, model_b`` and the ``PLAN_COLUMNS``: ``k_star``,
        ``optimal_questions``, ``optimal_samples_per_question``, ``se_planned``,
        ``power_planned``, ``cost_planned``, ``questions_k1``, ``cost_k1``,
        ``current_samples_per_question``, ``questions_current_k``, ``cost_current_k``); dim
        ``row`` for a reference (one per run) or for ``resample`` (``priority, question,
        model, samples_per_question, extra_samples, question_prediction_variance``).

    Examples
    --------
    >>> import bayesnoise as bn
    >>> f = "examples/data/cruxeval_output_temp0.8.csv.gz"
    >>> r = bn.plan(f, pair=("phind", "codellama-34b"), target_se=0.01, cost_question=20)
    >>> int(r["optimal_samples_per_question"][0]) > 1
    True
    """
    from bayesnoise.decide.plan import optimal_design

    for name, value in (("cost_question", cost_question), ("cost_sample", cost_sample)):
        if value is None or not np.isfinite(float(value)) or float(value) <= 0:
            raise DataError(f"{name} must be a number > 0 (a cost), got {value}")
    if (difference is None) == (target_se is None) and resample is None:
        raise DataError("give exactly one target: difference= (with power) or target_se=")
    for name, value in (("difference", difference), ("target_se", target_se)):
        if value is not None and not float(value) > 0:
            raise DataError(f"{name} must be > 0, got {value}")
    if not 0 < float(power) < 1:
        raise DataError(f"power must be in (0, 1), got {power}")
    _check_alpha(alpha, 1.0)
    if alternative not in ("two-sided", "one-sided"):
        raise DataError(f"alternative must be 'two-sided' or 'one-sided', got {alternative!r}")
    opts = {
        "cost_question": float(cost_question),
        "cost_sample": float(cost_sample),
        "target_se": target_se,
        "difference": difference,
        "power": power,
        "alpha": alpha,
        "alternative": alternative,
        "max_samples": int(max_samples),
        "max_questions": max_questions,
    }
    if reference is not None:
        if not _empty(data):
            raise DataError("give a pilot (data) or reference=, not both")
        rows, dat, pred = _reference_components(reference)
        table = optimal_design(dat, pred, current_samples=rows["samples_per_question"], **opts)
        table.insert(0, "benchmark", rows["benchmark"].to_numpy())
        table.insert(0, "run", rows["run"].to_numpy())
        return to_result(table, "row")
    if _empty(data):
        raise DataError("plan needs a pilot (a results file) or reference=BENCHMARK")
    from bayesnoise import frequentist

    ds = dataset(data, progress=progress, **read)
    if pair:
        ds = select_pair(ds, pair)
    if ds.sizes[MODEL] < 2:
        raise DataError(f"{attr(ds, 'source')}: plan needs two models (a pair) or more")
    if resample is not None:
        return _resample(ds, resample)
    pt = frequentist.power_table(ds, on_missing="raise")
    if pt[["data", "prediction"]].isna().all(axis=None):
        raise DataError(
            f"{attr(ds, 'source')}: one sample per question, so the data and prediction noise "
            "of a difference are not separated; plan from a pilot with K >= 2 samples on some "
            "questions, or from reference=BENCHMARK"
        )
    table = optimal_design(
        pt["data"], pt["prediction"], current_samples=pt["planned_samples_per_question"], **opts
    )
    table.insert(0, "model_b", pt["model_b"].to_numpy())
    table.insert(0, "model_a", pt["model_a"].to_numpy())
    if table["optimal_samples_per_question"].eq(max_samples).any():
        warnings.warn(
            f"plan: the optimum reaches max_samples = {max_samples} for some pairs (little or "
            "no data noise measured): more samples would still pay; raise max_samples",
            UserWarning,
            stacklevel=2,
        )
    return to_result(table, "pair")


def _resample(ds, budget):
    from bayesnoise.data import beta_binomial_counts, complete
    from bayesnoise.decide.plan import resample_plan

    if ds.sizes[MODEL] != 2:
        raise DataError(
            f"{attr(ds, 'source')}: resample works on one pair; name it with pair=(A, B) "
            f"(CLI: --pair A B); models are {', '.join(map(str, ds[MODEL].values[:20]))}"
        )
    if int(budget) < 1:
        raise DataError(f"resample must be a whole number of samples >= 1, got {budget}")
    ds = complete(ds, on_missing="raise")
    c, k = beta_binomial_counts(ds, needed_by="adaptive K (resample)")
    models = [str(m) for m in ds[MODEL].values]
    table = resample_plan(c, k, int(budget), models=models, questions=ds[QUESTION].values)
    out = to_result(table, "row")
    out.attrs.update({"model_a": models[0], "model_b": models[1], "budget": int(budget)})
    return out


_READ_DOC = "**read" + _INPUT_DOC.split("**read", 1)[1]
for _verb in (check, sequential, plan):
    _verb.__doc__ = (
        _verb.__doc__.replace("{input}", _INPUT_DOC)
        .replace("{read}", _READ_DOC)
        .replace("{{", "{")
        .replace("}}", "}")
    )
