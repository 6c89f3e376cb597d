"""Noise against accuracy (the paper's Figure 1) and its components across settings (Figure 5)."""

from __future__ import annotations

import numpy as np

from bayesnoise.decide.verdicts import CLOSE_FACTOR, close_pairs

from ._figure import new_axes, new_figure

__all__ = ["plot_noise_components", "plot_noise_vs_accuracy"]

_SERIES = (
    ("se_total", "total SE(A-B)", "o", "C0"),
    ("se_data", "data SE", "s", "C2"),
    ("se_prediction", "prediction SE", "^", "C3"),
)


def _pairs_and_kappa(ds, pairs, kappa):
    from bayesnoise.conjugate import benchmark_kappa
    from bayesnoise.data import beta_binomial_counts, complete
    from bayesnoise.frequentist import pair_noise

    ds = complete(ds, on_missing="intersect")
    if pairs is None:
        pairs = pair_noise(ds)
    if kappa == "fit":
        try:
            c, k = beta_binomial_counts(ds)
            kappa = benchmark_kappa(c, k)[0]
        except ValueError:  # DataError (fractional scores) or kappa not identifiable
            kappa = None
    return ds, pairs, kappa


def plot_noise_vs_accuracy(
    ds, *, pairs=None, kappa="fit", components=True, factor=CLOSE_FACTOR, ax=None, title=None
):
    """Paired SE of close model pairs against accuracy, with the Beta theory curves.

    Points: every pair with ``|A - B| < factor * se_total`` (:func:`close_pairs`), at the mean
    accuracy of the two models, with its total SE (a one-sample-per-question run) and, when the
    data/prediction split is identified (K > 1), its data and prediction SEs as two more series.
    Curves: :func:`bayesnoise.conjugate.theory_se_difference` with kappa = 1 (the paper's
    Beta(p, 1 - p)) and with the benchmark's pooled kappa
    (:func:`bayesnoise.conjugate.benchmark_kappa`).

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`; models are measured on the questions all of them answered.
    pairs : pandas.DataFrame, optional
        :func:`bayesnoise.frequentist.pair_noise` of ``ds`` if already computed.
    kappa : "fit", float or None, default "fit"
        Concentration of the second theory curve: fitted, given, or none.
    components : bool, default True
        Draw the data and prediction SEs (when identified).
    factor : float, default 5
        Closeness threshold in paired total SEs.
    ax : matplotlib.axes.Axes, optional
    title : str, optional
        Default: the benchmark name and N.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(0.5, 0.5, 200)
    >>> ds = from_arrays(rng.binomial(4, np.broadcast_to(u, (4, 200))), np.full((4, 200), 4))
    >>> ax = plot_noise_vs_accuracy(ds)
    >>> ax.get_xlabel()
    'accuracy (mean of the pair)'
    """
    from bayesnoise.conjugate import theory_se_difference

    ds, pairs, kappa = _pairs_and_kappa(ds, pairs, kappa)
    ax = new_axes(ax, figsize=(8.0, 4.4))  # the legend goes beside the axes
    close = close_pairs(pairs, factor)
    x = (close["accuracy_a"].to_numpy() + close["accuracy_b"].to_numpy()) / 2
    # smaller, lighter points when there are many, so the series stay apart
    size = float(np.clip(14 * np.sqrt(150 / max(len(close), 1)), 4, 14))
    alpha = 0.6 if len(close) <= 300 else 0.45
    for column, label, marker, color in _SERIES if components else _SERIES[:1]:
        y = close[column].to_numpy(dtype=float)
        if np.isnan(y).all():
            continue
        ax.scatter(x, y, s=size, marker=marker, color=color, alpha=alpha, label=label, gid=column)
    n = ds.sizes["question"]
    grid = np.linspace(0.0, 1.0, 201)
    theory = theory_se_difference(grid, n, 1.0)
    ax.plot(grid, theory, "k-", lw=1.5, label="Beta(p, 1-p) theory", gid="theory")
    if kappa is not None:
        label = f"theory, benchmark kappa = {kappa:.2g}"
        ax.plot(
            grid,
            theory_se_difference(grid, n, kappa),
            "k--",
            lw=1.2,
            label=label,
            gid="theory_kappa",
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("accuracy (mean of the pair)")
    ax.set_ylabel("standard error of A - B")
    name = title if title is not None else f"{ds.attrs.get('benchmark', '')}, N = {n}"
    ax.set_title(f"{name}: {len(close)} close pairs (|A-B| < {factor:g} SE)", fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    ax.grid(alpha=0.3)
    return ax


def plot_noise_components(datasets, *, kappa="fit", factor=CLOSE_FACTOR, figsize=None):
    """:func:`plot_noise_vs_accuracy` for several files or settings side by side (Figure 5).

    Parameters
    ----------
    datasets : mapping of label -> xarray.Dataset
        E.g. ``{"T = 0.8": ds_08, "T = 0.2": ds_02}``; panels share the y axis.
    kappa, factor
        As in :func:`plot_noise_vs_accuracy`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(1)
    >>> ds = from_arrays(rng.binomial(3, 0.5, (3, 100)), np.full((3, 100), 3))
    >>> len(plot_noise_components({"a": ds, "b": ds}, kappa=None).axes)
    2
    """
    fig, axes = new_figure(len(datasets), figsize=figsize, sharey=True)
    for ax, (label, ds) in zip(axes, datasets.items(), strict=True):
        plot_noise_vs_accuracy(ds, kappa=kappa, factor=factor, ax=ax, title=str(label))
    for ax in axes[1:]:
        ax.set_ylabel("")
    for ax in axes:  # legends inside the panels (their kappa differs), not beside each
        ax.legend(fontsize=7, loc="best")
    return fig
