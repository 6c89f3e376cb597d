"""Forest plot: every model's accuracy with its frequentist and Bayesian intervals."""

from __future__ import annotations

import numpy as np

from ._figure import new_axes

__all__ = ["FOREST_SERIES", "plot_forest"]

#: (low column, high column, legend label, colour) of each interval, top to bottom per model.
FOREST_SERIES = (
    ("accuracy_here_low", "accuracy_here_high", "these questions, frequentist", "C0"),
    ("ubar_low", "ubar_high", "these questions, Bayesian (ubar)", "C9"),
    ("accuracy_low", "accuracy_high", "population, frequentist", "C3"),
    ("mu_low", "mu_high", "population, Bayesian (mu)", "C1"),
)


def plot_forest(table, *, ax=None, confidence_level=None):
    """Intervals for each model's accuracy, on these questions and on the population.

    Parameters
    ----------
    table : pandas.DataFrame or xarray.Dataset
        :func:`bayesnoise.decide.compare_models` output (computed from a dataset if one is
        given). Series whose columns are missing or all NaN (e.g. frequentist these-questions
        intervals at K = 1) are left out.
    ax : matplotlib.axes.Axes, optional
    confidence_level : float, optional
        Only for the axis label (taken from ``table.attrs`` when present).

    Returns
    -------
    matplotlib.axes.Axes
        One :class:`~matplotlib.collections.LineCollection` per interval kind, ``gid`` = the low
        column's name, segments in the order of the sorted models (lowest accuracy at the bottom).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": ["a", "b"], "accuracy": [0.4, 0.6],
    ...                   "accuracy_low": [0.3, 0.5], "accuracy_high": [0.5, 0.7]})
    >>> [c.get_gid() for c in plot_forest(t).collections]
    ['accuracy_low']
    """
    if not hasattr(table, "columns"):
        from bayesnoise.decide import compare_models

        table = compare_models(table)
    df = table.sort_values("accuracy", kind="stable").reset_index(drop=True)
    series = [s for s in FOREST_SERIES if s[0] in df.columns and df[s[0]].notna().any()]
    m = len(df)
    longest = int(df["model"].astype(str).str.len().max()) if m else 0
    width = max(6.4, 3.6 + 0.075 * longest)  # room for long model names beside the intervals
    ax = new_axes(ax, figsize=(width, max(3.0, 0.32 * m * max(len(series), 1) ** 0.5 + 1.6)))
    y = np.arange(m, dtype=float)
    step = 0.7 / max(len(series), 1)
    for j, (low, high, label, color) in enumerate(series):
        offset = 0.35 - step * (j + 0.5)
        ax.hlines(y + offset, df[low], df[high], color=color, lw=2.2, label=label, gid=low)
    ax.plot(df["accuracy"], y, "k|", ms=10, mew=1.5, label="observed accuracy", gid="accuracy")
    ax.set_yticks(y, df["model"].astype(str), fontsize=8 if m > 20 else 9)
    ax.set_ylim(-0.6, m - 0.4)
    ax.set_ylabel("model, by accuracy")
    level = confidence_level or table.attrs.get("confidence_level", 0.95)
    ax.set_xlabel(f"accuracy, {level:.0%} intervals")
    ax.set_title("Per-model intervals: these questions vs the population", fontsize=10)
    ax.figure.legend(fontsize=7, loc="outside lower center", ncols=2)
    ax.grid(axis="x", alpha=0.3)
    return ax
