"""Forest plot: every model's accuracy with its frequentist and Bayesian intervals."""

from __future__ import annotations

import numpy as np

from ._figure import new_axes

__all__ = [
    "plot_forest",
]

#: Height of a forest figure, inches, at most (1,260 px at the report's 90 dpi, 1,350 px at
#: ``save_figure``'s 100 dpi): beyond ~20 models the rows get thinner instead of taller.
FOREST_MAX_HEIGHT = 13.5
#: Models in one forest figure before the report splits it into several (rows of ~0.2 in).
FOREST_MAX_MODELS = 60

#: (low column, high column, legend label, colour) of each interval, top to bottom per model.
FOREST_SERIES = (
    ("accuracy_here_low", "accuracy_here_high", "these questions, frequentist", "C0"),
    ("ubar_low", "ubar_high", "these questions, Bayesian (ubar)", "C9"),
    ("accuracy_low", "accuracy_high", "population, frequentist", "C3"),
    ("mu_low", "mu_high", "population, Bayesian (mu)", "C1"),
)


def plot_forest(table, *, ax=None, confidence_level=None, xlim=None):
    """Intervals for each model's accuracy, on these questions and on the population.

    One row per model, its four intervals stacked inside the row. The figure grows with the
    number of models up to ``FOREST_MAX_HEIGHT`` inches, then the rows (and the lines in them)
    get thinner: 50 models fit in 13.5 in with every name readable. For many more models draw
    several figures of at most ``FOREST_MAX_MODELS`` (the HTML report does).

    Parameters
    ----------
    table : pandas.DataFrame or xarray.Dataset
        :func:`bayesnoise.decide.compare_models` output (computed from a dataset if one is
        given). Series whose columns are missing or all NaN (e.g. frequentist these-questions
        intervals at K = 1) are left out.
    ax : matplotlib.axes.Axes, optional
    confidence_level : float, optional
        Only for the axis label (taken from ``table.attrs`` when present).
    xlim : (float, float), optional
        x-axis limits (e.g. shared by several figures of one leaderboard).

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
    m, n_series = len(df), max(len(series), 1)
    longest = int(df["model"].astype(str).str.len().max()) if m else 0
    width = max(6.4, 3.8 + 0.075 * longest)  # room for long model names beside the intervals
    # 0.32 in per row for one interval, more for several, until the height cap
    row = min(0.32 * n_series**0.5, (FOREST_MAX_HEIGHT - 1.9) / max(m, 1))
    ax = new_axes(ax, figsize=(width, max(3.0, row * m + 1.9)))
    y = np.arange(m, dtype=float)
    step = 0.72 / n_series  # rows are one unit apart; the intervals fill 72% of a row
    line = float(np.clip(0.7 * step * row * 72, 0.8, 2.2))  # points: thinner lines, dense rows
    for j, (low, high, label, color) in enumerate(series):
        offset = 0.36 - step * (j + 0.5)
        ax.hlines(y + offset, df[low], df[high], color=color, lw=line, label=label, gid=low)
    mark = float(np.clip(0.8 * row * 72, 4.0, 10.0))
    # the observed accuracy under the intervals, so that short ones stay visible
    ax.plot(
        df["accuracy"],
        y,
        "|",
        color="0.15",
        ms=mark,
        mew=1.2,
        zorder=1.5,
        label="observed accuracy",
        gid="accuracy",
    )
    ax.set_yticks(y, df["model"].astype(str), fontsize=7 if m > 40 else 8 if m > 20 else 9)
    ax.set_ylim(-0.6, m - 0.4)
    if xlim is not None:
        ax.set_xlim(*xlim)
    ax.set_ylabel("model, by accuracy")
    level = confidence_level or table.attrs.get("confidence_level", 0.95)
    ax.set_xlabel(f"accuracy, {level:.0%} intervals")
    ax.set_title("Per-model intervals:\nthese questions vs the population", fontsize=10)
    ax.figure.legend(fontsize=7, loc="outside lower center", ncols=2)
    ax.grid(axis="x", alpha=0.3)
    ax.grid(axis="y", alpha=0.12, lw=0.5)
    return ax
