"""``bn.plot``: one function per figure of ``bayesnoise plot KIND``; each returns the figure.

The command line saves what these return (``-o fig.png|svg|pdf``); in Python, save it with
``fig.savefig(path)`` or show it in a notebook. Every function takes the same input options as
the table verbs (``benchmark``, ``models``, column names, ...).

Examples
--------
>>> import bayesnoise as bn
>>> fig = bn.plot.heatmap("examples/data/cruxeval_output_temp0.8.csv.gz")
>>> type(fig).__name__
'Figure'
"""

from __future__ import annotations

from pathlib import Path

from bayesnoise.data import DataError

from ._inputs import as_seed, dataset, interval_level
from ._judge_figures import judge
from ._quality_figures import difference_sum, difficulty, p_values
from ._rate_figures import rate, threshold
from .choices import PLOT_STATISTICS

__all__ = [
    "cdf",
    "components",
    "difference_sum",
    "difficulty",
    "forest",
    "heatmap",
    "judge",
    "matrix",
    "mcmc_forest",
    "noise",
    "noises",
    "p_values",
    "power",
    "rank",
    "rate",
    "scatter",
    "templates",
    "threshold",
    "trace",
]

#: Pair statistics the matrix can be coloured by.
STATISTICS = PLOT_STATISTICS


def _figure(drawn):
    return getattr(drawn, "figure", drawn)


def noise(data, *, progress=True, **read):
    """Paired SE of close pairs against accuracy, with the Beta theory (paper Figure 1)."""
    from bayesnoise import plots

    return _figure(plots.plot_noise_vs_accuracy(dataset(data, progress=progress, **read)))


def components(data, *, progress=True, **read):
    """The noise components of several files side by side (``data``: a list of paths)."""
    from bayesnoise import plots

    items = data if isinstance(data, list | tuple) else [data]
    sets = {Path(str(f)).name: dataset(f, progress=progress, **read) for f in items}
    return _figure(plots.plot_noise_components(sets))


def heatmap(data, *, progress=True, **read):
    """Per-question accuracy, questions x models, sorted (paper Figure 4)."""
    from bayesnoise import plots

    return _figure(plots.plot_heatmap(dataset(data, progress=progress, **read)))


def noises(data, *, factors=None, by="model", progress=True, **read):
    """Stacked bars per model: the question, template, question x template and sampling
    parts of the squared SE over the template population (``bn.noises``); ``by="pair"``
    (CLI ``--by pair``): one bar per pair of models, the parts of its difference's squared
    SE (``bn.noises(..., by="pair")``), the template part then the model x template
    interaction."""
    from bayesnoise import plots

    from .factors import noises as _noises

    result = _noises(data, factors=factors, by=by, progress=progress, **read)
    return _figure(plots.plot_variance_parts(result))


def templates(data, *, factors=None, progress=True, **read):
    """Model x template heat map of accuracies (mean over questions of the cell means)."""
    from bayesnoise import plots

    from .factors import template_accuracies

    table = template_accuracies(data, factors=factors, progress=progress, **read)
    return _figure(plots.plot_template_heatmap(table))


def cdf(data, *, bins=5, progress=True, **read):
    """Per-question accuracy CDFs of model groups against fitted Betas (paper Figure 6)."""
    from bayesnoise import plots

    ds = dataset(data, progress=progress, **read)
    return _figure(plots.plot_question_cdfs(ds, bins=bins))


def forest(data, *, confidence_level=0.95, rng=0, progress=True, **read):
    """Each model's accuracy with its four intervals (these questions / population x
    frequentist / Bayesian)."""
    from bayesnoise import decide, plots

    level = interval_level("plot.forest", confidence_level, "the forest's intervals")
    ds = dataset(data, progress=progress, **read)
    seed = as_seed(rng)
    table = decide.compare_models(ds, confidence_level=level, rng=seed, progress=progress)
    return _figure(plots.plot_forest(table))


def _pair_rows(ds, statistic, rng):
    from bayesnoise import conjugate, frequentist

    rows = frequentist.pair_noise(ds, on_missing="raise")
    if statistic.startswith("prob_a_better"):
        bayes = conjugate.posterior_pairs_table(ds, rng=rng, on_missing="raise")
        rows = rows.merge(bayes[["model_a", "model_b", statistic]], on=["model_a", "model_b"])
    return rows


def matrix(data, *, statistic="z", rng=0, progress=True, **read):
    """All pairs as a matrix coloured by ``statistic`` (one of :data:`STATISTICS`)."""
    from bayesnoise import plots

    if statistic not in STATISTICS:
        raise DataError(f"statistic must be one of {', '.join(STATISTICS)}; got {statistic!r}")
    ds = dataset(data, progress=progress, **read)
    rows = _pair_rows(ds, statistic, as_seed(rng))
    return _figure(plots.plot_pair_matrix(rows, statistic))


def scatter(data, *, progress=True, **read):
    """Accuracy of A against accuracy of B for every pair, significant pairs marked."""
    from bayesnoise import plots

    ds = dataset(data, progress=progress, **read)
    return _figure(plots.plot_accuracy_scatter(_pair_rows(ds, "z", 0)))


def power(data, *, progress=True, **read):
    """Detectable difference against questions and samples, for the median close pair."""
    import numpy as np

    from bayesnoise import decide, plots
    from bayesnoise.data import complete
    from bayesnoise.frequentist import model_noise
    from bayesnoise.reporting.html import typical_components

    ds = dataset(data, progress=progress, **read)
    paired = complete(ds, on_missing="raise")
    close = decide.close_pairs(_pair_rows(paired, "z", 0))
    if close.empty:
        raise DataError(f"{ds.attrs.get('source', 'input')}: no close pairs (|A - B| < 5 SE)")
    comps = typical_components(close)
    k = float(np.median(model_noise(paired)["samples_per_question"]))
    return _figure(
        plots.plot_power(
            comps["data"],
            comps["prediction"],
            n=paired.sizes["question"],
            k=k,
            total=comps["total"],
            title=f"{ds.attrs.get('benchmark', '')}: median of {len(close)} close pairs",
        )
    )


def _fit_figure(fit, kind):
    from bayesnoise import plots
    from bayesnoise.mcmc import load_fit

    tree = load_fit(fit) if isinstance(fit, str | Path) else fit
    return plots.plot_mcmc(tree, kind)


def trace(fit):
    """Trace plot of an MCMC fit (a path saved by ``posterior(..., save=)`` or the fit)."""
    return _fit_figure(fit, "trace")


def rank(fit):
    """Rank plot of an MCMC fit."""
    return _fit_figure(fit, "rank")


def mcmc_forest(fit):
    """Forest plot of an MCMC fit's posteriors."""
    return _fit_figure(fit, "forest")


#: Figure kinds of ``bayesnoise plot KIND`` and their functions.
KINDS = {
    "noise": noise,
    "components": components,
    "heatmap": heatmap,
    "judge": judge,
    "noises": noises,
    "templates": templates,
    "cdf": cdf,
    "forest": forest,
    "matrix": matrix,
    "scatter": scatter,
    "power": power,
    "trace": trace,
    "rank": rank,
    "mcmc-forest": mcmc_forest,
    "difference-sum": difference_sum,
    "p-values": p_values,
    "difficulty": difficulty,
    "rate": rate,
    "threshold": threshold,
}
