"""The judge-misclassification model by full Bayes in PyMC (NUTS), imported lazily.

The same model as :mod:`bayesnoise.conjugate.judge` on the same counts: per unit (a model, or
a pair of models on shared questions) true-outcome probabilities with a Dirichlet prior whose
margins are uniform, and Se, Sp ~ Beta(1, 1) per unit and slot (or shared); the likelihood is
the labelled items' (outcome, judge pattern) counts and the unlabelled items' judge-pattern
counts, with the true outcome summed out.
"""

from __future__ import annotations

import numpy as np

__all__ = ["misclassification_model", "sample_misclassification"]


def _bits(slots: int) -> np.ndarray:
    c = np.arange(2**slots)
    return ((c[:, None] >> np.arange(slots)[None, :]) & 1).astype(float)


def misclassification_model(labelled, unlabelled, *, share: str = "none"):
    """The PyMC model of :func:`bayesnoise.conjugate.judge.gibbs_misclassification`.

    Parameters
    ----------
    labelled : array (units, C, P)
    unlabelled : array (units, P)
    share : {"none", "slots", "all"}

    Returns
    -------
    pymc.Model
        Free variables ``cell`` (units, C), ``se``, ``sp`` (units, S) or shared.

    Examples
    --------
    >>> import numpy as np
    >>> m = misclassification_model(np.ones((1, 2, 2)), np.ones((1, 2)))
    >>> sorted(v.name for v in m.free_RVs)
    ['cell', 'se_free', 'sp_free']
    """
    import pymc as pm
    import pytensor.tensor as pt

    lab = np.asarray(labelled, float)
    unl = np.asarray(unlabelled, float)
    units, size, _ = lab.shape
    slots = int(np.log2(size))
    ys, js = _bits(slots), _bits(slots)
    shape = {"none": (units, slots), "slots": (units, 1), "all": (1, 1)}[share]
    with pm.Model() as model:
        cell = pm.Dirichlet("cell", a=np.full(size, 2.0 ** -(slots - 1)), shape=(units, size))
        se_free = pm.Beta("se_free", 1.0, 1.0, shape=shape)
        sp_free = pm.Beta("sp_free", 1.0, 1.0, shape=shape)
        se = pm.Deterministic("se", pt.broadcast_to(se_free, (units, slots)))
        sp = pm.Deterministic("sp", pt.broadcast_to(sp_free, (units, slots)))
        s_e = se[:, None, None, :]
        s_p = sp[:, None, None, :]
        y = ys[None, :, None, :]
        j = js[None, None, :, :]
        f = y * (j * s_e + (1 - j) * (1 - s_e)) + (1 - y) * (j * (1 - s_p) + (1 - j) * s_p)
        like = pt.prod(f, axis=-1)  # (units, C, P): P(pattern | cell)
        joint = cell[:, :, None] * like
        pm.Potential("labelled", pt.sum(lab * pt.log(joint)))
        pm.Potential("unlabelled", pt.sum(unl * pt.log(pt.sum(joint, axis=1))))
    return model


def sample_misclassification(
    labelled,
    unlabelled,
    *,
    share: str = "none",
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 2,
    rng=0,
    progress: bool = True,
):
    """NUTS draws of :func:`misclassification_model`, shaped like the Gibbs sampler's output.

    Returns
    -------
    dict
        ``cell`` (chains, draws, units, C), ``se``, ``sp`` (chains, draws, units, S), and
        ``max_rhat``, ``divergences``.
    """
    import pymc as pm

    seed = int(np.random.default_rng(rng).integers(2**31))
    model = misclassification_model(labelled, unlabelled, share=share)
    with model:
        idata = pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            cores=1,
            random_seed=seed,
            progressbar=progress,
            compute_convergence_checks=False,
        )
    from .rank_diagnostics import convergence_arrays

    post = idata.posterior
    rhat = convergence_arrays(post["cell"].transpose("chain", "draw", ...).to_numpy())["r_hat"]
    return {
        "cell": post["cell"].to_numpy(),
        "se": post["se"].to_numpy(),
        "sp": post["sp"].to_numpy(),
        "max_rhat": float(np.nanmax(rhat)),
        "divergences": int(idata.sample_stats["diverging"].sum()),
    }
