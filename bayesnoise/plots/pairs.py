"""All pairs at a glance: a models x models matrix and Eval-Arena's accuracy scatter."""

from __future__ import annotations

import numpy as np

from ._figure import new_axes
from .arrange import pair_matrix

__all__ = [
    "matrix_layout",
    "model_accuracies",
    "plot_accuracy_scatter",
    "plot_pair_matrix",
]

#: Colour classes of p-values in the scatter: < 0.001, < 0.01, < 0.05, < 0.2, <= 1.
P_BOUNDS = (0.0, 0.001, 0.01, 0.05, 0.2, 1.0)

_LABELS = {
    "z": "z = (A - B) / SE",
    "difference": "accuracy A - B",
    "prob_a_better": "P(A > B) on these questions",
    "prob_a_better_population": "P(A > B) on the population",
    "p_value_adjusted": "adjusted p-value",
    "p_value": "p-value",
}


def model_accuracies(pairs) -> dict[str, float]:
    """``{model: accuracy}`` read from the ``accuracy_a`` / ``accuracy_b`` columns of a pair table.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "accuracy_a": [0.5],
    ...                   "accuracy_b": [0.7]})
    >>> model_accuracies(t)
    {'x': 0.5, 'y': 0.7}
    """
    out = dict(zip(pairs["model_a"], pairs["accuracy_a"].astype(float), strict=True))
    out.update(zip(pairs["model_b"], pairs["accuracy_b"].astype(float), strict=True))
    return {str(k): float(v) for k, v in out.items()}


#: Side of the matrix at most, inches; beyond it only every n-th model is named.
MATRIX_MAX_SIDE = 11.0


def matrix_layout(names) -> tuple[float, int, tuple[float, float]]:
    """Tick font size (points), label step and figure size (inches) of an M x M model matrix.

    A cell is at least 1.4 font heights wide so that neighbouring names do not overlap; the
    matrix grows with M up to ``MATRIX_MAX_SIDE`` inches, then every n-th model is named. The
    figure adds room for the longest name on both axes and for the colour bar.

    Examples
    --------
    >>> matrix_layout(["a", "b"])[:2]
    (8, 1)
    >>> matrix_layout([f"model-{i}" for i in range(200)])[1]
    3
    """
    m = len(names)
    size = 8 if m <= 20 else 7 if m <= 60 else 6
    cell = 1.4 * size / 72  # inches per model for non-overlapping labels
    side = max(4.2, m * cell)
    every = 1
    if side > MATRIX_MAX_SIDE:
        every = int(np.ceil(side / MATRIX_MAX_SIDE))
        side = MATRIX_MAX_SIDE
    longest = max((len(str(n)) for n in names), default=1)
    label = min(3.0, 0.56 * size / 72 * longest) + 0.45  # name + axis label
    return size, every, (side + label + 1.5, side + label + 0.6)


def _significance(pairs, alpha):
    """(column used, adjusted p-values) or (None, None) when the table has no p-value."""
    if "p_value_adjusted" in pairs.columns:
        return "p_value_adjusted", pairs["p_value_adjusted"].to_numpy(dtype=float)
    if "p_value" in pairs.columns:
        from bayesnoise.decide import adjust_pvalues

        return "p_value (Holm)", adjust_pvalues(pairs["p_value"].to_numpy(dtype=float), "holm")
    return None, None


def plot_pair_matrix(pairs, statistic="z", *, accuracy=None, alpha=0.05, ax=None):
    """Models x models coloured by a pair statistic, ordered by accuracy, significance marked.

    Parameters
    ----------
    pairs : pandas.DataFrame
        All pairs, e.g. :func:`bayesnoise.frequentist.pair_noise` (optionally merged with
        :func:`bayesnoise.conjugate.posterior_pairs_table` for ``prob_a_better``).
    statistic : str, default "z"
        Column to colour by (``z``, ``difference``, ``prob_a_better``, ``p_value_adjusted``, ...).
        Cell (row A, column B) shows A vs B.
    accuracy : mapping of model -> accuracy, optional
        Default :func:`model_accuracies` of ``pairs``.
    alpha : float, default 0.05
        Cells whose multiplicity-adjusted p-value (``p_value_adjusted``, else Holm of ``p_value``) is
        below ``alpha`` get a dot; without p-values nothing is marked and the title says so.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.images[0].get_array()`` is the matrix (rows/columns by increasing accuracy).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "accuracy_a": [0.5],
    ...                   "accuracy_b": [0.7], "z": [-2.5], "p_value_adjusted": [0.01]})
    >>> plot_pair_matrix(t).images[0].get_array().tolist()
    [[None, -2.5], [2.5, None]]
    """
    acc = accuracy if accuracy is not None else model_accuracies(pairs)
    order = sorted(acc, key=lambda name: acc[name])
    mat, names = pair_matrix(pairs, statistic, order)
    m = len(names)
    size, every, figsize = matrix_layout(names)
    ax = new_axes(ax, figsize=figsize)
    if statistic.startswith("prob_a_better"):
        kw = {"cmap": "RdBu", "vmin": 0.0, "vmax": 1.0}
    elif statistic.startswith("p_"):
        kw = {"cmap": "viridis", "vmin": 0.0, "vmax": 1.0}
    else:
        lim = np.nanmax(np.abs(mat)) if np.isfinite(mat).any() else 1.0
        kw = {"cmap": "RdBu", "vmin": -lim, "vmax": lim}
    image = ax.imshow(np.ma.masked_invalid(mat), interpolation="nearest", **kw)
    ax.figure.colorbar(image, ax=ax, label=_LABELS.get(statistic, statistic), shrink=0.8)
    source, adjusted = _significance(pairs, alpha)
    if source is not None:
        sig, _ = pair_matrix(pairs.assign(_adj=adjusted), "_adj", order)
        rows, cols = np.nonzero(sig < alpha)
        ax.scatter(
            cols,
            rows,
            s=max(4, 600 / max(m, 1)),
            c="k",
            marker=".",
            gid="significant",
        )
        note = f"; dots: {source} < {alpha:g}"
    else:
        note = " (no p-values: significance not marked)"
    ticks = np.arange(0, m, every)
    shown = [names[i] for i in ticks]
    ax.set_xticks(ticks, shown, rotation=90, fontsize=size)
    ax.set_yticks(ticks, shown, fontsize=size)
    thinned = f", every {every}th named" if every > 1 else ""
    ax.set_xlabel(f"model B (by accuracy{thinned})")
    ax.set_ylabel(f"model A (by accuracy{thinned})")
    ax.set_title(f"{_LABELS.get(statistic, statistic)}, A vs B{note}", fontsize=9)
    return ax


def plot_accuracy_scatter(pairs, *, pvalue="p_value", ax=None):
    """Eval-Arena's picture: accuracy of A against accuracy of B, coloured by the pair's p-value.

    Every unordered pair is drawn twice, (A, B) and (B, A), so the picture is symmetric about
    the diagonal; close pairs with large p-values hug the diagonal.

    Parameters
    ----------
    pairs : pandas.DataFrame
        :func:`bayesnoise.frequentist.pair_noise` output.
    pvalue : str, default "p_value"
        Column to colour by (``p_value_adjusted`` for the multiplicity-adjusted one).
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "accuracy_a": [0.5],
    ...                   "accuracy_b": [0.7], "p_value": [0.03]})
    >>> len(plot_accuracy_scatter(t).collections[0].get_offsets())
    2
    """
    from matplotlib.colors import BoundaryNorm

    a = pairs["accuracy_a"].to_numpy(dtype=float)
    b = pairs["accuracy_b"].to_numpy(dtype=float)
    p = pairs[pvalue].to_numpy(dtype=float)
    ax = new_axes(ax, figsize=(5.6, 4.8))
    norm = BoundaryNorm(P_BOUNDS, 256)
    points = ax.scatter(
        np.r_[a, b], np.r_[b, a], c=np.r_[p, p], s=10, cmap="viridis", norm=norm, gid="pairs"
    )
    ax.figure.colorbar(
        points, ax=ax, label=_LABELS.get(pvalue, pvalue), ticks=P_BOUNDS, format="%g"
    )
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.8)
    lo = max(0.0, min(a.min(initial=1), b.min(initial=1)) - 0.05)
    hi = min(1.0, max(a.max(initial=0), b.max(initial=0)) + 0.05)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel("accuracy of model A")
    ax.set_ylabel("accuracy of model B")
    ax.set_title(f"All pairs ({len(pairs)}), coloured by {pvalue}", fontsize=10)
    return ax
