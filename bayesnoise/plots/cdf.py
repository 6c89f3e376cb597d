"""Question-accuracy CDFs of models binned by accuracy, against fitted Betas (Figure 6)."""

from __future__ import annotations

import numpy as np

from ._figure import new_axes
from .arrange import pooled_counts

__all__ = ["plot_question_cdfs"]


def plot_question_cdfs(ds, *, bins: int = 5, groups=None, ax=None):
    """Empirical CDF of per-question accuracy per accuracy bin, with its fitted Beta CDF.

    The groups and their fits are :func:`bayesnoise.conjugate.accuracy_group_fits` (the ones
    :func:`bayesnoise.conjugate.benchmark_kappa` summarises): models sorted by accuracy and cut
    into groups, the samples on each question pooled within a group (:func:`pooled_counts`),
    p_i = pooled correct / pooled samples. Solid steps: the empirical CDF of p_i; dots: the CDF
    of Beta(mu kappa, (1 - mu) kappa) with the group's empirical-Bayes (mu, kappa). The Beta describes
    the question accuracies u_i; p_i adds binomial noise, so the steps are a little wider than
    the dots when the pooled number of samples per question is small.

    Parameters
    ----------
    ds : xarray.Dataset
        Whole numbers correct out of K (as for the Beta-Binomial model).
    bins : int, default 5
    groups : list of dict, optional
        Already computed :func:`bayesnoise.conjugate.accuracy_group_fits` of ``ds`` (e.g. the
        second value of :func:`bayesnoise.conjugate.benchmark_kappa`); ``bins`` is then unused.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Lines with ``gid`` ``"empirical-j"`` and ``"beta-j"`` for group j.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(0.6, 0.6, 150)
    >>> ds = from_arrays(rng.binomial(5, np.broadcast_to(u, (4, 150))), np.full((4, 150), 5))
    >>> len(plot_question_cdfs(ds, bins=2).get_legend().get_texts())
    2
    """
    from scipy import stats

    from bayesnoise.conjugate import accuracy_group_fits
    from bayesnoise.data import beta_binomial_counts
    from bayesnoise.frequentist import model_noise

    c, k = beta_binomial_counts(ds)
    if groups is None:
        groups = accuracy_group_fits(c, k, bins=bins)
    pc, pk = pooled_counts(c, k, [g["indices"] for g in groups])
    accuracy = model_noise(ds)["accuracy"].to_numpy()
    ax = new_axes(ax)
    grid = np.linspace(0.0, 1.0, 21)
    for j, group in enumerate(groups):
        answered = pk[j] > 0
        p = np.sort(pc[j][answered] / pk[j][answered])
        steps = np.arange(1, p.size + 1) / p.size
        color = f"C{j % 10}"
        lo, hi = accuracy[group["indices"]].min(), accuracy[group["indices"]].max()
        mu, kap = group["mu"], group["kappa"]
        label = (
            f"acc {lo:.2f}-{hi:.2f} ({group['models']} models): Beta mu={mu:.2f}, kappa={kap:.2g}"
        )
        ax.step(p, steps, where="post", color=color, lw=1.5, label=label, gid=f"empirical-{j}")
        cdf = stats.beta.cdf(grid, mu * kap, (1 - mu) * kap)
        ax.plot(grid, cdf, "o", color=color, ms=4, gid=f"beta-{j}")
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("per-question accuracy (samples pooled over the group's models)")
    ax.set_ylabel("fraction of questions (CDF)")
    ax.set_title(
        f"{ds.attrs.get('benchmark', '')}: per-question accuracy by model group\n"
        "lines: data (CDF), dots: fitted Beta",
        fontsize=10,
    )
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    return ax
