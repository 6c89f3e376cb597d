"""Success-rate figures: posterior densities with their priors, the rate against the threshold,
and exact coverage curves of interval methods (drawn from numbers computed elsewhere)."""

from __future__ import annotations

import numpy as np

from ._figure import new_axes

__all__ = ["plot_exact_coverage", "plot_rate_posteriors", "plot_threshold_sweep"]


def plot_rate_posteriors(curves, *, ax=None, confidence_level=None):
    """Each model's posterior density of its success rate, its prior drawn faintly.

    Parameters
    ----------
    curves : list of dict
        One per model: ``model``, ``x`` (rates), ``posterior`` and ``prior`` (densities at
        ``x``), ``low`` and ``high`` (the credible interval, shaded).
    ax : matplotlib.axes.Axes, optional
    confidence_level : float, optional
        For the legend.

    Returns
    -------
    matplotlib.axes.Axes
        Lines with ``gid`` ``"posterior:<model>"`` and ``"prior:<model>"``.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(0.01, 0.99, 5)
    >>> ax = plot_rate_posteriors([{"model": "m", "x": x, "posterior": x, "prior": 1 + 0 * x,
    ...                             "low": 0.2, "high": 0.9}])
    >>> [line.get_gid() for line in ax.lines]
    ['posterior:m', 'prior:m']
    """
    ax = new_axes(ax)
    for i, c in enumerate(curves):
        colour = f"C{i % 10}"
        x = np.asarray(c["x"])
        post = np.asarray(c["posterior"])
        ax.plot(x, post, color=colour, lw=1.8, label=str(c["model"]), gid=f"posterior:{c['model']}")
        ax.plot(
            x,
            np.asarray(c["prior"]),
            color=colour,
            lw=1.0,
            ls="--",
            alpha=0.35,
            gid=f"prior:{c['model']}",
        )
        inside = (x >= c["low"]) & (x <= c["high"])
        ax.fill_between(x, 0, post, where=inside, color=colour, alpha=0.12, lw=0)
    level = f"{confidence_level:.0%} " if confidence_level else ""
    ax.set_xlabel("success rate")
    ax.set_ylabel("posterior density")
    ax.set_xlim(0, 1)
    ax.set_ylim(bottom=0)
    ax.set_title(f"posterior (solid, {level}credible interval shaded); prior dashed", fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    return ax


def plot_threshold_sweep(table, *, ax=None, confidence_level=None):
    """Each model's success rate against the threshold, with its credible band.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows (model, threshold) with ``rate``, ``rate_low``, ``rate_high`` (``bn.tidy`` of
        ``bn.threshold``).
    ax : matplotlib.axes.Axes, optional
    confidence_level : float, optional

    Returns
    -------
    matplotlib.axes.Axes
        One line per model, ``gid`` = the model.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": ["a", "a"], "threshold": [0.5, 0.7], "rate": [0.8, 0.6],
    ...                   "rate_low": [0.7, 0.5], "rate_high": [0.9, 0.7]})
    >>> [line.get_gid() for line in plot_threshold_sweep(t).lines]
    ['a']
    """
    ax = new_axes(ax)
    for i, (model, rows) in enumerate(table.groupby("model", sort=False)):
        rows = rows.sort_values("threshold")
        colour = f"C{i % 10}"
        ax.plot(
            rows["threshold"],
            rows["rate"],
            marker="o",
            ms=3,
            color=colour,
            label=str(model),
            gid=str(model),
        )
        ax.fill_between(
            rows["threshold"], rows["rate_low"], rows["rate_high"], color=colour, alpha=0.15, lw=0
        )
    level = f" ({confidence_level:.0%} credible band)" if confidence_level else ""
    ax.set_xlabel("threshold T")
    ax.set_ylabel(f"success rate{level}")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, frameon=False)
    return ax


def plot_exact_coverage(n, coverage: dict, *, confidence_level=0.95, ax=None, xlabel="n"):
    """Exact coverage of interval methods against n (or p), with the nominal level.

    Parameters
    ----------
    n : array_like
        x values (sample sizes, or true rates with ``xlabel="p"``).
    coverage : dict
        Method label -> coverage at each ``n``.
    confidence_level : float, default 0.95
        The dashed nominal line.
    ax : matplotlib.axes.Axes, optional
    xlabel : str, default "n"

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_exact_coverage([10, 20], {"Wald": [0.78, 0.86], "Beta(1, 1)": [0.95, 0.95]})
    >>> [line.get_gid() for line in ax.lines][:2]
    ['Wald', 'Beta(1, 1)']
    """
    ax = new_axes(ax)
    for label, values in coverage.items():
        ax.plot(np.asarray(n), np.asarray(values), lw=1.6, label=label, gid=label)
    ax.axhline(confidence_level, color="k", ls="--", lw=0.7)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("exact coverage probability")
    ax.legend(fontsize=8, frameon=False)
    return ax
