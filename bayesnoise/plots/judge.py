"""Judge-graded accuracy: the judge-only, human-only and corrected intervals per model."""

from __future__ import annotations

import numpy as np

from ._figure import new_axes

__all__ = ["plot_judge_intervals"]

#: (point column, legend label, colour) of each interval, top to bottom per model; the
#: interval is ``<point>_low`` / ``<point>_high``.
JUDGE_SERIES = (
    ("accuracy_judge", "judge only (biased when the judge errs)", "0.55"),
    ("accuracy_human", "human labels only", "C0"),
    ("accuracy_ppi", "corrected, PPI++ (PPI)", "C3"),
    ("accuracy_corrected", "corrected, misclassification model", "C1"),
    ("accuracy_corrected_mcmc", "corrected, misclassification model (MCMC)", "C2"),
)


def plot_judge_intervals(table, *, ax=None, confidence_level=None):
    """Each model's accuracy by the judge alone, by the humans alone and corrected.

    Parameters
    ----------
    table : pandas.DataFrame
        ``bn.tidy(bn.judge(...))`` (by model, one judge); series whose columns are missing
        are left out.
    ax : matplotlib.axes.Axes, optional
    confidence_level : float, optional
        For the axis label.

    Returns
    -------
    matplotlib.axes.Axes
        One errorbar container per series; its marker line has ``gid`` = the point column.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": ["a"], "accuracy_judge": [0.7], "accuracy_judge_low": [0.65],
    ...                   "accuracy_judge_high": [0.75], "accuracy_ppi": [0.6],
    ...                   "accuracy_ppi_low": [0.5], "accuracy_ppi_high": [0.7]})
    >>> ax = plot_judge_intervals(t)
    >>> [c.lines[0].get_gid() for c in ax.containers]
    ['accuracy_judge', 'accuracy_ppi']
    """
    series = [s for s in JUDGE_SERIES if f"{s[0]}_low" in table.columns]
    models = list(map(str, table["model"]))
    height = min(1.2 + 0.45 * len(models) * max(1, len(series)) / 2, 13.5)
    ax = new_axes(ax, figsize=(6.4, height))
    step = 0.8 / max(1, len(series))
    y0 = np.arange(len(models))[::-1].astype(float)
    for i, (col, label, colour) in enumerate(series):
        point = table[col].to_numpy(float)
        low = table[f"{col}_low"].to_numpy(float)
        high = table[f"{col}_high"].to_numpy(float)
        y = y0 + 0.4 - step * (i + 0.5)
        bars = ax.errorbar(
            point,
            y,
            xerr=np.vstack([point - low, high - point]),
            fmt="o",
            color=colour,
            ms=4,
            capsize=2,
            label=label,
        )
        bars.lines[0].set_gid(col)
    ax.set_yticks(y0, models)
    level = f"{confidence_level:.0%} " if confidence_level else ""
    ax.set_xlabel(f"accuracy, {level}intervals (fraction correct)")
    ax.legend(
        loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize="small", frameon=False
    )
    ax.grid(axis="x", alpha=0.3)
    return ax
