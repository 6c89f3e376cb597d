"""MCMC fits through ArviZ's plotting (arviz-plots): trace, rank and forest plots."""

from __future__ import annotations

from bayesnoise._common import require

__all__ = [
    "plot_mcmc",
]

#: Plot kinds and the arviz-plots function drawing each.
MCMC_KINDS = {"trace": "plot_trace_dist", "rank": "plot_rank", "forest": "plot_forest"}


def plot_mcmc(tree, kind: str = "trace", *, var_names=("mu", "kappa"), **kwargs):
    """Draw an MCMC fit with arviz-plots (matplotlib backend) and return the PlotCollection.

    Parameters
    ----------
    tree : xarray.DataTree
        A fit from :func:`bayesnoise.mcmc.fit` (or :func:`bayesnoise.mcmc.load_fit`).
    kind : {"trace", "rank", "forest"}
        ``arviz_plots.plot_trace_dist``, ``plot_rank`` or ``plot_forest``.
    var_names : sequence of str, default ("mu", "kappa")
        Posterior variables to draw.
    **kwargs
        Passed on to the arviz-plots function.

    Returns
    -------
    arviz_plots.PlotCollection
        ``.savefig(path)`` writes it; ``.viz["figure"]`` is the matplotlib Figure.

    Examples
    --------
    >>> plot_mcmc(None, "histogram")
    Traceback (most recent call last):
    ...
    ValueError: kind must be one of ['trace', 'rank', 'forest'], not 'histogram'
    """
    if kind not in MCMC_KINDS:
        raise ValueError(f"kind must be one of {list(MCMC_KINDS)}, not {kind!r}")
    require("arviz_plots", "plots", "MCMC plots")
    import arviz_plots

    draw = getattr(arviz_plots, MCMC_KINDS[kind])
    return draw(tree, var_names=list(var_names), backend="matplotlib", **kwargs)
