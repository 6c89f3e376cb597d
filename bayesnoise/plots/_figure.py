"""Axes creation and saving without pyplot's global state (matplotlib imported here only)."""

from __future__ import annotations

from pathlib import Path

#: Default figure size in inches: readable when shown at 100 dpi in a report or a notebook.
FIGSIZE = (6.4, 4.4)


def new_axes(ax=None, figsize=FIGSIZE):
    """``ax`` itself, or the Axes of a new :class:`matplotlib.figure.Figure` (no pyplot)."""
    if ax is not None:
        return ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    return fig.add_subplot()


def new_figure(ncols: int, figsize=None, sharey: bool = False):
    """A new Figure with ``ncols`` Axes in one row."""
    from matplotlib.figure import Figure

    size = figsize or (FIGSIZE[0] * min(ncols, 3) * 0.8, FIGSIZE[1])
    fig = Figure(figsize=size, layout="constrained")
    axes = fig.subplots(1, ncols, sharey=sharey, squeeze=False)[0]
    return fig, list(axes)


def save_figure(fig, path, dpi: int = 100) -> Path:
    """Write ``fig`` (a Figure or anything with ``.figure``) to ``path`` (.png, .svg or .pdf).

    Parameters
    ----------
    fig : matplotlib.figure.Figure or matplotlib.axes.Axes
        The figure, or an Axes of it.
    path : path
        The file to write; its extension picks the format.
    dpi : int, default 100
        Resolution of a PNG.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ValueError(f"{path}: figure files must end in .png, .svg or .pdf")
    getattr(fig, "figure", fig).savefig(path, dpi=dpi)
    return path
