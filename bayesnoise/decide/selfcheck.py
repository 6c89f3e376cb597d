"""Coverage self-check: how often the printed intervals hold on benchmarks like the user's.

The intervals are calibrated in simulation on a grid of made-up benchmarks; this module runs
the same kind of check on *one* benchmark, the user's. It builds question populations that
look like the file (the same models, the same N questions and the same K per model and
question), draws replicate evals from them, runs the package's own table functions
(:func:`~bayesnoise.decide.compare_models` and :func:`~bayesnoise.decide.compare_pairs`,
which are what ``noise``, ``pairs``, ``posterior`` and ``compare`` print) on every replicate,
and counts how often each interval contains the truth of its replicate.

Three populations, one deliberately right and two deliberately wrong for the Bayesian model:

``fitted``
    Each model's questions follow the Beta of its empirical-Bayes fit, Beta(mu kappa,
    (1 - mu) kappa) at the posterior medians (at K = 1 kappa is its prior median: the data do
    not identify it).
``two-point``
    Each question is either easy or hard for a model: u = a + l (1 - a) with probability a,
    else a (1 - l), so the mean is the model's observed accuracy a and the variance a (1 - a)
    l^2 is its estimated data variance (the small-K corrected ``data`` component of
    :func:`~bayesnoise.frequentist.model_noise`, clipped to [0, a (1 - a)]; the fitted Beta's
    variance where K = 1 leaves it unidentified). ``l = 1`` is a benchmark of always-solved
    and never-solved questions.
``empirical``
    The observed per-question scores c_i / K_i are the question accuracies. Their spread
    includes the prediction noise, so this population has more extreme questions than the
    file; at K = 1 every question is always or never solved.

The population of each model is N atoms, one per question of the file, and a replicate
draws N of them with replacement (the same questions for every model) and then
c ~ Binomial(K, u) with the file's K at each position. The models stay paired as in the file:
in the fitted and two-point populations a question's atom sits at the quantile
(rank + 1/2) / N of the model's distribution, ranked by the model's observed score, ties
broken by the question's mean score over all models and then at random, so questions that
every model found hard stay hard for all of them.

Truths: for a population interval, the mean of the N atoms (mu_A - mu_B for a pair); for a
these-questions interval, mean_i u_i over the questions drawn (the difference of two models'
for a pair).
"""

from __future__ import annotations

import contextlib
import io
import time
import warnings

import numpy as np
import pandas as pd
from scipy import special

from bayesnoise._common import check_confidence_level, one_line, see_warnings, seed_of
from bayesnoise._progress import Progress
from bayesnoise.data import MODEL, DataError, attr, beta_binomial_counts, complete, from_arrays
from bayesnoise.vocabulary import POPULATION, THESE

from .side_by_side import _compare_models, _compare_pairs_given

__all__ = [
    "coverage_table",
    "population_atoms",
    "question_quantiles",
]

#: The simulated question populations (see the module docstring).
POPULATIONS = ("fitted", "two-point", "empirical")

#: Every interval checked: name -> (unit, scope). ``<name>_low`` / ``<name>_high`` are the
#: printed columns; the unit is a model or a pair.
INTERVALS = {
    "accuracy": ("model", POPULATION),
    "accuracy_here": ("model", THESE),
    "ubar": ("model", THESE),
    "mu": ("model", POPULATION),
    "difference": ("pair", POPULATION),
    "difference_here": ("pair", THESE),
    "dbar": ("pair", THESE),
    "mu_difference": ("pair", POPULATION),
}

#: The population the verdicts are judged on; the others are stress tests (reported, not
#: judged): they are built to be unlike the Beta model and overstate pair widths (up to 40%
#: on a human_eval_plus shape at N = 30, K = 5), so a flag there says nothing about the file.
FITTED = "fitted"
ROLES = {"fitted": "fitted to the file", "two-point": "stress test", "empirical": "stress test"}

COVERAGE_COLUMNS = [
    "interval",
    "population",
    "population_role",
    "scope",
    "replicates",
    "units",
    "coverage",
    "coverage_mcse",
    "coverage_status",
    "median_width",
]

# (model, question) cells simulated at once: bounds the memory of a block of replicates (the
# posterior of 1e6 cells with its 1,000 ubar draws per model stays under a few hundred MB)
_BLOCK_CELLS = 1_000_000
# models per pair-table call: several replicates' models side by side (the pairs across
# replicates are computed and dropped); measured on 8 x 800, 4 replicates a call (32 models)
# took 0.03 s per replicate, one a call 0.12 s (fixed costs), 12 a call 0.085 s (M^2 pairs)
_PAIR_GROUP_MODELS = 32


def question_quantiles(scores, rng) -> np.ndarray:
    """Where each question sits in each model's distribution of question accuracies.

    Parameters
    ----------
    scores : array_like, shape (M, N)
        Per-question mean scores c / K of M models on the same N questions.
    rng : numpy.random.Generator
        Breaks the ties that the scores and the mean over models leave.

    Returns
    -------
    numpy.ndarray, shape (M, N)
        ``(rank + 1/2) / N`` per model, ranked by the model's score, ties broken by the
        question's mean score over the models, then at random.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[1.0, 0.0, 0.0], [1.0, 0.5, 0.0]])
    >>> question_quantiles(p, np.random.default_rng(0)).round(3).tolist()
    [[0.833, 0.5, 0.167], [0.833, 0.5, 0.167]]
    """
    p = np.atleast_2d(np.asarray(scores, dtype=float))
    m, n = p.shape
    proxy, jitter = p.mean(axis=0), rng.random(n)
    q = np.empty((m, n))
    for j in range(m):
        order = np.lexsort((jitter, proxy, p[j]))  # by score, then the mean, then at random
        q[j, order] = (np.arange(n) + 0.5) / n
    return q


def population_atoms(population: str, scores, quantiles, mu, kappa, data_var) -> np.ndarray:
    """The question accuracies u (one atom per question of the file) of a population.

    Parameters
    ----------
    population : {"fitted", "two-point", "empirical"}
    scores : array_like, shape (M, N)
        Observed per-question scores c / K.
    quantiles : array_like, shape (M, N)
        From :func:`question_quantiles`.
    mu, kappa : array_like, shape (M,)
        The Beta of each model (``fitted``; ``two-point`` where ``data_var`` is NaN).
    data_var : array_like, shape (M,)
        Per-question data variance of each model (``two-point``), NaN where unidentified.

    Returns
    -------
    numpy.ndarray, shape (M, N)

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[1.0, 0.0, 1.0, 1.0]])
    >>> q = np.array([[0.375, 0.125, 0.625, 0.875]])
    >>> population_atoms("two-point", p, q, [0.75], [1.0], [0.046875]).tolist()  # l = 1/2
    [[0.875, 0.375, 0.875, 0.875]]
    """
    p = np.atleast_2d(np.asarray(scores, dtype=float))
    q = np.asarray(quantiles, dtype=float)
    mu, kappa = (np.asarray(x, dtype=float)[:, None] for x in (mu, kappa))
    if population == "empirical":
        return p.copy()
    if population == "fitted":
        return special.betaincinv(mu * kappa, (1.0 - mu) * kappa, q)
    if population != "two-point":
        raise ValueError(f"population must be one of {POPULATIONS}, got {population!r}")
    a = p.mean(axis=1, keepdims=True)
    spread = a * (1.0 - a)
    var = np.asarray(data_var, dtype=float)[:, None]
    var = np.where(np.isfinite(var), var, mu * (1.0 - mu) / (kappa + 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        l2 = np.where(spread > 0, np.clip(var, 0.0, spread) / spread, 0.0)
    lift = np.sqrt(l2)
    return np.where(q > 1.0 - a, a + lift * (1.0 - a), a * (1.0 - lift))


def _pair_models(accuracy, max_pair_models):
    """Indices of the models whose pairs are checked: all, or an even spread by accuracy."""
    m = accuracy.size
    if max_pair_models is None or m <= max_pair_models:
        return np.arange(m)
    ranked = np.argsort(accuracy, kind="stable")
    picks = np.unique(np.round(np.linspace(0, m - 1, int(max_pair_models))).astype(int))
    return np.sort(ranked[picks])


def _summary(low, high, truth, confidence_level):
    """Pooled coverage over units and replicates, with a replicate-clustered Monte Carlo SE."""
    finite = np.isfinite(low) & np.isfinite(high)
    printed = finite.any(axis=0)  # a unit whose interval is never printed is left out
    units = int(printed.sum())
    if units == 0:
        return {
            "units": 0,
            "coverage": np.nan,
            "coverage_mcse": np.nan,
            "coverage_status": "not printed",
            "median_width": np.nan,
        }
    low, high, truth, finite = (x[:, printed] for x in (low, high, truth, finite))
    hit = finite & (low <= truth) & (truth <= high)  # a missing interval does not cover
    per_replicate = hit.mean(axis=1)
    r = per_replicate.size
    coverage = float(per_replicate.mean())
    # Monte Carlo SE from the spread of the per-replicate coverages: replicates are
    # independent, units within a replicate are not (pairs share models, all share questions)
    mcse = float(per_replicate.std(ddof=1) / np.sqrt(r)) if r > 1 else np.nan
    # the flag's SE is never below the binomial SE at the nominal level with every
    # (replicate, unit) independent: a coverage of exactly 1 has an estimated SE of 0
    se = np.nanmax([mcse, np.sqrt(confidence_level * (1.0 - confidence_level) / (r * units))])
    if abs(coverage - confidence_level) <= 2.0 * se:
        status = "ok"
    else:
        status = "under" if coverage < confidence_level else "over"
    return {
        "units": units,
        "coverage": coverage,
        "coverage_mcse": mcse,
        "coverage_status": status,
        "median_width": float(np.median((high - low)[finite])),
    }


def _quiet(fn, *args, **kwargs):
    """``fn`` without its warnings or progress display (one per replicate would flood the
    terminal; the check has its own progress display)."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)


def _model_block(cs, k, names, confidence_level, rng):
    """Per-model interval ends of a block of replicates: name -> (low, high), (B, M), and the
    Bayesian fit and ubar posterior of the B x M models (replicate-major), for the pairs."""
    b, m, n = cs.shape
    ds = from_arrays(
        cs.reshape(b * m, n),
        np.broadcast_to(k, (b, m, n)).reshape(b * m, n),
        models=[f"r{i}:{name}" for i in range(b) for name in names],
    )
    df, fit, post = _quiet(_compare_models, ds, confidence_level, rng)
    ends = {
        name: tuple(df[f"{name}_{end}"].to_numpy(float).reshape(b, m) for end in ("low", "high"))
        for name, (unit, _) in INTERVALS.items()
        if unit == "model"
    }
    return ends, (fit, post)


def _pair_group(cs, k, confidence_level, rng, fitted):
    """Pair interval ends of G replicates at once: name -> (low, high), (G, S (S - 1) / 2).

    ``cs`` (G, S, N) holds S models per replicate. They go through one
    :func:`~bayesnoise.decide.compare_pairs` computation as G x S models; every pair's interval
    depends only on its two models (and Monte Carlo draws), so the pairs across replicates are
    computed and dropped. ``fitted``: the fit and ubar posterior of these G x S models from the
    per-model step (the same counts: the pair step does not fit them again; its ``dbar`` takes
    the per-model step's ubar draws, its population columns its own ``rng``).
    """
    g, s, n = cs.shape
    ds = from_arrays(
        cs.reshape(g * s, n),
        np.broadcast_to(k, (g, s, n)).reshape(g * s, n),
        models=[f"r{i}m{j}" for i in range(g) for j in range(s)],
    )
    df = _quiet(_compare_pairs_given, ds, *fitted, confidence_level, rng)
    ia, ib = np.triu_indices(s, k=1)
    a = (np.arange(g)[:, None] * s + ia).ravel()  # the within-replicate pairs, in the
    b = (np.arange(g)[:, None] * s + ib).ravel()  # upper-triangle order of all G x S models
    rows = a * (g * s) - a * (a + 1) // 2 + (b - a - 1)
    return {
        name: tuple(
            df[f"{name}_{end}"].to_numpy(float)[rows].reshape(g, ia.size) for end in ("low", "high")
        )
        for name, (unit, _) in INTERVALS.items()
        if unit == "pair"
    }


def _simulate(u, k, names, sel, n_resamples, confidence_level, rng, bar, label):
    """Interval ends and truths of every replicate from the atoms ``u`` (M, N)."""
    from bayesnoise.conjugate.tables import posterior_rows

    m, n = u.shape
    pop_mean = u.mean(axis=1)
    ia, ib = np.triu_indices(sel.size, k=1)
    pa, pb = sel[ia], sel[ib]
    ends = {name: ([], []) for name in INTERVALS}
    truths = {name: [] for name in INTERVALS}
    block = max(1, min(n_resamples, _BLOCK_CELLS // (m * n)))
    done = 0
    while done < n_resamples:
        b = min(block, n_resamples - done)
        idx = rng.integers(0, n, size=(b, n))
        us = np.moveaxis(u[:, idx], 0, 1)  # (B, M, N): the same questions for every model
        cs = rng.binomial(k[None], us)
        ubar = us.mean(axis=2)
        seeds = rng.integers(0, 2**31 - 1, size=b + 1)
        got, (fit, post) = _model_block(cs, k, names, confidence_level, int(seeds[-1]))
        for name, (low, high) in got.items():
            ends[name][0].append(low)
            ends[name][1].append(high)
            scope = INTERVALS[name][1]
            truths[name].append(ubar if scope == THESE else np.broadcast_to(pop_mean, (b, m)))
        group = max(1, _PAIR_GROUP_MODELS // max(sel.size, 1))
        for i in range(0, b if sel.size >= 2 else 0, group):
            j = min(b, i + group)
            rows = (np.arange(i, j)[:, None] * m + sel).ravel()  # in the model block's order
            fitted = posterior_rows(fit, post, rows)
            got = _pair_group(cs[i:j][:, sel], k[sel], confidence_level, int(seeds[i]), fitted)
            for name, (low, high) in got.items():
                ends[name][0].append(low)
                ends[name][1].append(high)
                if INTERVALS[name][1] == THESE:
                    truths[name].append(ubar[i:j, pa] - ubar[i:j, pb])
                else:
                    truths[name].append(np.broadcast_to(pop_mean[pa] - pop_mean[pb], low.shape))
            bar.update(f"{label}: replicate {done + j} of {n_resamples}")
        done += b
        bar.update(f"{label}: replicate {done} of {n_resamples}")
    return {
        name: tuple(np.concatenate(x) for x in (*ends[name], truths[name]))
        for name in INTERVALS
        if truths[name]
    }


def coverage_table(
    ds,
    *,
    n_resamples: int = 50,
    confidence_level: float = 0.95,
    populations=POPULATIONS,
    max_pair_models: int | None = 12,
    rng: int = 0,
    progress: bool = True,
) -> pd.DataFrame:
    """Coverage of every printed interval on simulated replicates of the user's benchmark.

    See the module docstring for the populations, the pairing and the truths. Each replicate
    goes through :func:`~bayesnoise.decide.compare_models` (all replicates of a block at once,
    as models of one dataset: every model is fitted on its own) and
    :func:`~bayesnoise.decide.compare_pairs` (a few replicates at a time), the functions behind
    ``noise``, ``pairs``, ``posterior`` and ``compare``, at their defaults. The pair step
    takes the per-model step's fit and ubar posterior of the same counts instead of fitting
    them again (the fit and the prior are deterministic per model; ``dbar`` is computed from
    the per-model step's ubar draws, not from a second set).

    Parameters
    ----------
    ds : xarray.Dataset
        Whole numbers correct out of K for every model and question (a dataset whose models
        answered different questions is refused: pass it through
        :func:`bayesnoise.complete` with ``on_missing="intersect"`` first).
    n_resamples : int, default 50
        Simulated evals per population.
    confidence_level : float, default 0.95
    populations : sequence of str, default ("fitted", "two-point", "empirical")
    max_pair_models : int or None, default 12
        Pair intervals are checked on the pairs of at most this many models, spread evenly
        over the accuracy ranking (None: all pairs); the per-model intervals use every model.
    rng : int or numpy.random.Generator, default 0
    progress : bool, default True

    Returns
    -------
    pandas.DataFrame
        One row per interval and population: ``interval`` (the printed ``<interval>_low`` /
        ``_high``), ``population``, ``scope``, ``n_resamples``, ``units`` (models or pairs
        pooled), ``coverage`` (share of intervals containing the truth, over units and
        replicates), ``coverage_mcse`` (its Monte Carlo SE, from the spread of the
        per-replicate coverages), ``coverage_status`` and ``median_width``. Only the
        ``fitted`` population (``population_role`` "fitted to the file") is judged:
        ``coverage_status`` ``ok``; ``under`` / ``over``: outside the nominal level +- 2 MCSE,
        the MCSE floored at the binomial sqrt(level (1 - level) / (replicates x units));
        ``not printed``: the interval is empty for these data, e.g. these-questions
        frequentist intervals at K = 1. The ``two-point`` and ``empirical`` populations are
        stress tests (``population_role`` "stress test", ``coverage_status`` "stress test"):
        built unlike the Beta model, they show how the intervals behave off it, not whether
        the file's intervals hold. Rows: the fitted population first. At 2 MCSE a calibrated
        interval is flagged about 5% of the time, so among the 8 judged rows a flag is
        expected by chance in about one check in three: rerun with another seed or more
        replicates before acting on a single flag. ``df.attrs``: ``confidence_level``, ``n_resamples``, ``rng``,
        ``pair_models``, ``notes`` (also warned: which pairs were checked, what K = 1 leaves
        unidentified), ``seconds``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(1.0, 1.0, 120)
    >>> c = rng.binomial(5, np.stack([u, 0.9 * u, 0.8 * u]))
    >>> ds = from_arrays(c, np.full(c.shape, 5), models=["a", "b", "c"])
    >>> df = coverage_table(ds, n_resamples=20, populations=("fitted",), progress=False)
    >>> df["interval"].tolist()[:4], bool(df["coverage"].between(0, 1).all())
    (['accuracy', 'accuracy_here', 'ubar', 'mu'], True)
    """
    start = time.perf_counter()
    level = check_confidence_level(confidence_level)
    n_resamples = int(n_resamples)
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2, got {n_resamples}")
    unknown = [p for p in populations if p not in POPULATIONS]
    if unknown or not populations:
        raise ValueError(f"populations must be among {POPULATIONS}, got {list(populations)}")
    source = attr(ds, "source")
    ds = complete(ds, on_missing="raise")
    c, k = beta_binomial_counts(ds, needed_by="the coverage check (it simulates 0/1 samples)")
    k = k.astype(np.int64)
    names = [str(x) for x in ds[MODEL].values]
    if c.shape[1] < 2:
        raise DataError(f"{source}: one question; the coverage check needs at least two")
    from bayesnoise.conjugate import fit_empirical_bayes
    from bayesnoise.frequentist import model_noise

    p = c / k
    fit = _quiet(fit_empirical_bayes, c, k, names=np.asarray(names), warn=False)
    data_var = _quiet(model_noise, ds)["data"].to_numpy(float)
    rng = seed_of(rng)  # several streams from one seed
    q = question_quantiles(p, np.random.default_rng(np.random.SeedSequence([rng, 99])))
    sel = _pair_models(p.mean(axis=1), max_pair_models)
    bar = Progress("bayesnoise coverage", enabled=progress)
    rows = []
    for pop in populations:
        u = population_atoms(pop, p, q, fit.mu, fit.kappa, data_var)
        gen = np.random.default_rng([rng, POPULATIONS.index(pop)])
        got = _simulate(u, k, names, sel, n_resamples, level, gen, bar, pop)
        for name, (_unit, scope) in INTERVALS.items():
            if name not in got:  # one model: no pairs
                continue
            summary = _summary(*got[name], level)
            if pop != FITTED and summary["coverage_status"] != "not printed":
                summary["coverage_status"] = "stress test"  # reported, not a verdict
            rows.append(
                {
                    "interval": name,
                    "population": pop,
                    "population_role": ROLES[pop],
                    "scope": scope,
                    "replicates": n_resamples,
                }
                | summary
            )
    bar.close()
    order = {name: i for i, name in enumerate(INTERVALS)}
    df = pd.DataFrame(rows, columns=COVERAGE_COLUMNS)
    # the verdicts (fitted population) first, then the stress tests, each in interval order
    df["_fitted"] = df["population"] != FITTED
    df = df.sort_values(
        ["_fitted", "interval"],
        key=lambda s: s.map(order) if s.name == "interval" else s,
        kind="stable",
    )
    df = df.drop(columns="_fitted").reset_index(drop=True)
    notes = _notes(k, names, sel)
    df.attrs.update(
        confidence_level=level,
        n_resamples=n_resamples,
        rng=int(rng),
        pair_models=[names[i] for i in sel] if sel.size >= 2 else [],
        notes=notes,
        seconds=round(time.perf_counter() - start, 1),
    )
    for note in notes:
        warnings.warn(note, UserWarning, stacklevel=2)
    return df


def _notes(k, names, sel):
    """One line each (<= 200 characters): which pairs were checked, what K = 1 leaves out."""
    notes = []
    if 2 <= sel.size < len(names):
        text = (
            f"coverage: pair intervals checked on the {sel.size * (sel.size - 1) // 2} pairs of "
            "{who} spread over the ranking; --all-pairs checks every pair"
        )
        notes.append(one_line(text, [names[i] for i in sel], unit=f"of {len(names)} models"))
    if len(names) < 2:
        notes.append("coverage: one model, so no pair intervals are checked")
    k1 = np.flatnonzero((k < 2).all(axis=1))
    if k1.size:
        text = (
            "coverage: K = 1 for {who}: the fitted population takes kappa's prior median; "
            f"run K >= 2 to fit it; {see_warnings('coverage-k1')}"
        )
        notes.append(one_line(text, [names[i] for i in k1]))
    return notes
