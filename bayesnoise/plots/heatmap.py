"""Question x model heatmap (the paper's Figure 4)."""

from __future__ import annotations

import numpy as np

from ._figure import new_axes
from .arrange import heatmap_matrix

__all__ = ["plot_heatmap"]

#: Up to this many models every column is named (the figure widens); beyond, ticks show accuracy.
_MAX_NAMED_MODELS = 80


def plot_heatmap(ds, *, accuracy=None, ax=None, cmap="RdYlGn"):
    """Per-question accuracy of every model: questions easiest first, models by accuracy.

    Rows are questions sorted by their mean score over the models (easiest at the top), columns
    are models from the lowest accuracy to the highest (:func:`heatmap_matrix`); colour is the
    fraction of a model's samples that were correct on the question (grey: no result).

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`.
    accuracy : array_like, optional
        Model accuracies in ``ds`` order; default ``model_noise(ds)["accuracy"]``.
    ax : matplotlib.axes.Axes, optional
    cmap : str, default "RdYlGn"

    Returns
    -------
    matplotlib.axes.Axes
        The image's array (``ax.images[0].get_array()``) is the sorted matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> ds = from_arrays(rng.integers(0, 3, (3, 40)), np.full((3, 40), 2), models=["a", "b", "c"])
    >>> plot_heatmap(ds).images[0].get_array().shape
    (40, 3)
    """
    if accuracy is None:
        from bayesnoise.frequentist import model_noise

        accuracy = model_noise(ds)["accuracy"].to_numpy()
    matrix, _, model_order = heatmap_matrix(ds, accuracy)
    names = ds["model"].values.astype(str)[model_order]
    acc = np.asarray(accuracy, float)[model_order]
    from matplotlib import colormaps

    m = len(names)
    size = 8 if m <= 15 else 7 if m <= 60 else 6
    named = m <= _MAX_NAMED_MODELS
    longest = max((len(n) for n in names), default=1) if named else 4
    label = min(3.0, 0.56 * size / 72 * longest)  # room for the rotated names
    width = max(6.4, 1.4 * size / 72 * m + 2.2) if named else 6.4
    ax = new_axes(ax, figsize=(width, 4.4 + label))
    image = ax.imshow(
        np.ma.masked_invalid(matrix),
        aspect="auto",
        interpolation="nearest",
        cmap=colormaps[cmap].with_extremes(bad="0.8"),
        vmin=0.0,
        vmax=1.0,
    )
    n, m = matrix.shape
    ax.set_ylabel(f"question ({n}; easiest at the top)")
    if named:
        ax.set_xticks(np.arange(m), names, rotation=90, fontsize=size)
        ax.set_xlabel("model, by accuracy")
    else:
        ticks = np.linspace(0, m - 1, 6).round().astype(int)
        ax.set_xticks(ticks, [f"{acc[i]:.2f}" for i in ticks])
        ax.set_xlabel(f"model ({m}), by accuracy (tick labels: accuracy)")
    ax.set_yticks([])
    ax.figure.colorbar(image, ax=ax, label="fraction of samples correct", shrink=0.8)
    ax.set_title(f"{ds.attrs.get('benchmark', '')}: questions x models", fontsize=10)
    return ax
