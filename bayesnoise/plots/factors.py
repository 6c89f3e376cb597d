"""Figures of a crossed factor (``noises``): the parts of each model's squared SE, stacked, and
the model x template table of accuracies as a heat map. Both draw numbers computed elsewhere."""

from __future__ import annotations

import numpy as np

from ._figure import new_axes

__all__ = ["plot_template_heatmap", "plot_variance_parts"]

_COLOURS = ("C0", "C1", "C2", "C7")


def plot_variance_parts(result, *, ax=None, title=None):
    """Stacked bars, one per model (or pair): each component's part of ``se_templates^2``.

    Parameters
    ----------
    result : xarray.Dataset
        :func:`bayesnoise.noises` output (dims ``model`` or ``pair``, and ``component``).
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    A part estimated below 0 (an unbiased estimate of a small component) is drawn as 0; the
    legend says which.
    """
    ax = new_axes(ax)
    dim = "model" if "model" in result["variance_part"].dims else "pair"
    parts = result["variance_part"].transpose(dim, "component").values
    labels = [str(v) for v in result[dim].values]
    components = [str(c) for c in result["component"].values]
    rows = np.arange(len(labels))
    left = np.zeros(len(labels))
    for j, name in enumerate(components):
        shown = np.clip(parts[:, j], 0, None)
        negative = bool(np.any(parts[:, j] < 0))
        label = name + (" (< 0 drawn as 0)" if negative else "")
        ax.barh(rows, shown, left=left, color=_COLOURS[j % len(_COLOURS)], label=label)
        left += shown
    ax.set_yticks(rows, labels)
    ax.invert_yaxis()
    ax.set_xlabel("part of SE^2, template population (variance of the mean)")
    ax.legend(loc="lower right", fontsize="small")
    factor = result.attrs.get("factor", "template")
    if dim == "pair":  # the template part of a difference: the model x template interaction
        default = f"where the SE of A - B comes from: questions, model x {factor}, runs"
    else:
        default = f"where the SE comes from: questions, {factor}s, runs"
    ax.set_title(title or default)
    return ax


def plot_template_heatmap(table, *, ax=None, title=None):
    """Model x template accuracies as a heat map, each cell annotated.

    Parameters
    ----------
    table : xarray.DataArray
        Dims ``(model, <factor>)``: each model's mean score under each template
        (:func:`bayesnoise.verbs.factors.template_accuracies`).
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = new_axes(ax)
    model_dim, factor = table.dims
    values = table.values
    image = ax.imshow(values, cmap="viridis", aspect="auto", vmin=0, vmax=1)
    ax.set_yticks(range(values.shape[0]), [str(v) for v in table[model_dim].values])
    ax.set_xticks(range(values.shape[1]), [str(v) for v in table[factor].values], rotation=45)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            if np.isfinite(values[i, j]):
                shade = "black" if values[i, j] > 0.6 else "white"
                ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", color=shade)
    ax.figure.colorbar(image, ax=ax, label="accuracy (mean over questions)")
    ax.set_xlabel(factor)
    ax.set_title(title or f"accuracy per model and {factor}")
    return ax
