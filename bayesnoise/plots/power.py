"""Power curves: the smallest detectable difference against N and against K."""

from __future__ import annotations

import numpy as np

from ._figure import new_figure

__all__ = ["plot_power"]


def plot_power(data, prediction, *, n, k=1, total=None, alpha=0.05, power=0.8, title=None):
    """Minimum detectable difference vs the number of questions and vs samples per question.

    Curves are :func:`bayesnoise.frequentist.minimum_detectable_difference` for the variance
    components of a difference (per question, e.g. the ``data`` / ``prediction`` columns of
    :func:`bayesnoise.frequentist.pair_noise` for a typical close pair). Left: against N for
    K = 1, the measured K and K -> infinity (data noise only); right: against K at the measured
    N. When the split is not identified (``data`` NaN, K = 1 runs) pass ``total``: the left panel
    then shows the one-sample curve only and the right panel says why it is empty.

    Parameters
    ----------
    data, prediction : float
        Variance components of the difference, per question (NaN when not identified).
    n : int
        Questions in the benchmark (marked).
    k : float, default 1
        Samples per question measured (marked).
    total : float, optional
        Total variance of the difference (used when the split is NaN).
    alpha, power : float
        Two-sided level and power of the test.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Two Axes; every curve is a Line2D whose ``gid`` says which (``"n:k=1"``, ``"k"``...).

    Examples
    --------
    >>> fig = plot_power(0.01, 0.1, n=500, k=5)
    >>> [line.get_gid() for line in fig.axes[0].lines][:3]
    ['n:k=1', 'n:k=5', 'n:k=inf']
    """
    from bayesnoise.frequentist import minimum_detectable_difference

    fig, (ax_n, ax_k) = new_figure(2, figsize=(9.6, 4.0))
    kw = {"alpha": alpha, "power": power}
    ns = np.unique(np.geomspace(10, max(100 * n, 1000), 200).round())
    split = np.isfinite(data) and np.isfinite(prediction)
    if split:
        for kk, style in ((1, "-"), (k, "--"), (np.inf, ":")):
            if kk == 1 and k == 1 and style == "--":
                continue
            label = "K = inf (data noise only)" if np.isinf(kk) else f"K = {kk:g}"
            mdd = minimum_detectable_difference(ns, data=data, prediction=prediction, k=kk, **kw)
            ax_n.plot(ns, mdd, style, label=label, gid=f"n:k={kk:g}")
        ks = np.unique(np.geomspace(1, max(1000, 20 * k), 200).round())
        mdd_k = minimum_detectable_difference(n, data=data, prediction=prediction, k=ks, **kw)
        ax_k.plot(ks, mdd_k, "-", color="C1", label=f"N = {n}", gid="k")
        floor = minimum_detectable_difference(n, data=data, prediction=0.0, **kw)
        ax_k.axhline(floor, color="0.5", ls=":", label="data noise floor", gid="k:floor")
        ax_k.axvline(k, color="0.3", lw=0.8, ls="--", label=f"measured K = {k:g}")
        ax_k.legend(fontsize=8)
    else:
        mdd = minimum_detectable_difference(ns, data=total, prediction=0.0, **kw)
        ax_n.plot(ns, mdd, "-", label="K = 1 (total noise)", gid="n:k=1")
        ax_k.text(
            0.5,
            0.5,
            "K = 1 per question:\nthe data / prediction split\nis not identified,\n"
            "so the effect of more samples\ncannot be predicted",
            ha="center",
            va="center",
            transform=ax_k.transAxes,
            fontsize=9,
        )
    ax_n.axvline(n, color="0.3", lw=0.8, ls="--", label=f"measured N = {n}")
    for ax, xlabel in ((ax_n, "questions N"), (ax_k, "samples per question K")):
        ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("minimum detectable difference")
        ax.grid(alpha=0.3, which="both")
    ax_n.set_yscale("log")
    ax_n.legend(fontsize=8)
    ax_k.set_ylim(bottom=0)
    fig.suptitle(title or f"Power {power:.0%} at two-sided level {alpha:g}", fontsize=10)
    return fig
