"""The judge-misclassification model: a true success rate seen through a judge's errors.

Each item's true outcome ``y`` (1 = correct) is Bernoulli(p); the judge says 1 with
probability ``Se`` (sensitivity) when ``y = 1`` and ``1 - Sp`` (specificity) when ``y = 0``.
Humans label a random subset, so the labelled items show ``(y, judge)`` and the rest the
judge only. Priors: p ~ Beta (uniform by default, the package's one-rate prior), Se, Sp ~
Beta(1, 1); the labelled items turn these into the Beta posteriors that the unlabelled items
then update further.

- :func:`rate_posterior_exact`: one model, Se and Sp its own: the exact posterior of p, a
  mixture of Betas over how many unlabelled judge-positives and judge-negatives are truly
  positive (a, b): weight ``C(J1, a) C(J0, b) B(p) B(Se) B(Sp)``, p | a, b ~ Beta(a_p + n1 + a + b,
  b_p + n0 + J1 - a + J0 - b).
- :func:`gibbs_misclassification`: the same model for several models at once (Se and Sp
  shared by them, or not) and for pairs on shared questions (the four joint outcomes of two
  models with a Dirichlet prior whose margins are uniform), by a conjugate Gibbs sampler on
  the counts (latent allocation of unlabelled judge patterns to true outcomes).
- :func:`stratified_posterior`: labels drawn with known unequal inclusion probabilities. The
  design-consistent likelihood: selection depends only on the stratum (the items sharing an
  inclusion probability), so within a (stratum, judge pattern) cell the labelled items are a
  random sample and the likelihood ignores the selection. Per cell, the share of items
  (Dirichlet over the observed cells, from every judged item) and the true outcome given the
  cell (Dirichlet whose margins are Beta(1, 1), from the labelled items); the population's
  true-outcome probabilities are the share-weighted sum. With one stratum this is the
  misclassification model's likelihood with the prior put on P(verdict) and P(truth |
  verdict) instead of p, Se and Sp; labels chosen by the judge's verdict are covered too.
- :func:`rogan_gladen`: the moment estimator ``(q + Sp - 1) / (Se + Sp - 1)``, a point check.

Everything works on counts: the data enter only through how many labelled items have each
(true outcome, judge pattern) and how many unlabelled items have each judge pattern.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from bayesnoise._common import tail_probabilities

__all__ = [
    "BetaMixture",
    "gibbs_misclassification",
    "misclassification_posterior",
    "pattern_counts",
    "rate_posterior_exact",
    "rogan_gladen",
    "stratified_posterior",
]

#: Largest number of (a, b) components the exact mixture evaluates (memory ~ 8 bytes each).
EXACT_LIMIT = 4_000_000


@dataclass(frozen=True)
class BetaMixture:
    """A mixture of Beta(alpha_s, beta_s) with weights w_s (summing to 1)."""

    weights: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray

    @property
    def mean(self) -> float:
        return float(np.sum(self.weights * self.alpha / (self.alpha + self.beta)))

    def cdf(self, x: float) -> float:
        return float(np.sum(self.weights * special.betainc(self.alpha, self.beta, x)))

    def quantile(self, q: float) -> float:
        return float(optimize.brentq(lambda x: self.cdf(x) - q, 0.0, 1.0, xtol=1e-12))

    def interval(self, confidence_level: float) -> tuple[float, float]:
        lo, hi = tail_probabilities(confidence_level)
        return self.quantile(lo), self.quantile(hi)

    def draws(self, size: int, rng) -> np.ndarray:
        rng = np.random.default_rng(rng)
        s = rng.choice(self.weights.size, size=size, p=self.weights)
        return rng.beta(self.alpha[s], self.beta[s])


def rate_posterior_exact(
    tp: int,
    fn: int,
    fp: int,
    tn: int,
    j1: int,
    j0: int,
    *,
    prior=(1.0, 1.0),
    prior_se=(1.0, 1.0),
    prior_sp=(1.0, 1.0),
) -> BetaMixture:
    """Exact posterior of one model's true rate p under the misclassification model.

    Parameters
    ----------
    tp, fn, fp, tn : int
        Labelled items: human 1 & judge 1, human 1 & judge 0, human 0 & judge 1, human 0 &
        judge 0.
    j1, j0 : int
        Unlabelled items the judge says 1 / 0.
    prior, prior_se, prior_sp : (float, float)
        Beta priors of p, Se and Sp.

    Returns
    -------
    BetaMixture
        Components with weight below 1e-15 of the largest are left out.

    Examples
    --------
    >>> post = rate_posterior_exact(40, 5, 10, 45, 500, 400)
    >>> round(post.mean, 3)
    0.485
    """
    n1, n0 = tp + fn, fp + tn
    if (j1 + 1) * (j0 + 1) > EXACT_LIMIT:
        raise ValueError(
            f"{(j1 + 1) * (j0 + 1)} mixture components exceed {EXACT_LIMIT}; use the Gibbs sampler"
        )
    a = np.arange(j1 + 1, dtype=float)[:, None]
    b = np.arange(j0 + 1, dtype=float)[None, :]
    lw = (
        special.gammaln(j1 + 1)
        - special.gammaln(a + 1)
        - special.gammaln(j1 - a + 1)
        + special.gammaln(j0 + 1)
        - special.gammaln(b + 1)
        - special.gammaln(j0 - b + 1)
        + special.betaln(prior[0] + n1 + a + b, prior[1] + n0 + (j1 - a) + (j0 - b))
        + special.betaln(prior_se[0] + tp + a, prior_se[1] + fn + b)
        + special.betaln(prior_sp[0] + tn + (j0 - b), prior_sp[1] + fp + (j1 - a))
    )
    lw = lw - lw.max()
    s = (a + b).astype(np.int64)
    w = np.bincount(
        np.broadcast_to(s, lw.shape).ravel(), weights=np.exp(lw).ravel(), minlength=j1 + j0 + 1
    )
    w /= w.sum()
    keep = w > 1e-15 * w.max()
    idx = np.flatnonzero(keep)
    w = w[keep] / w[keep].sum()
    unl = j1 + j0
    return BetaMixture(w, prior[0] + n1 + idx, prior[1] + n0 + unl - idx)


def rogan_gladen(tp, fn, fp, tn, j1, j0) -> float:
    """Rogan-Gladen's corrected rate ``(q + Sp - 1) / (Se + Sp - 1)`` (not clipped to [0, 1]).

    ``q`` is the judge-positive share of every item, Se and Sp the labelled items' rates.

    Examples
    --------
    >>> round(rogan_gladen(40, 5, 10, 45, 500, 400), 4)
    0.5207
    """
    se = tp / (tp + fn) if tp + fn else np.nan
    sp = tn / (tn + fp) if tn + fp else np.nan
    q = (tp + fp + j1) / (tp + fn + fp + tn + j1 + j0)
    return float((q + sp - 1) / (se + sp - 1))


def _bits(slots: int) -> np.ndarray:
    """(2^slots, slots) 0/1 table: row c holds the outcome of each slot (slot s = bit s)."""
    c = np.arange(2**slots)
    return ((c[:, None] >> np.arange(slots)[None, :]) & 1).astype(float)


def pattern_counts(y, verdicts):
    """Counts of (true outcome cell, judge pattern) on labelled items and of judge patterns on
    the rest, for ``slots`` models on the same items.

    ``y``: (slots, items) human labels (NaN where none); ``verdicts``: (slots, items) judge 0/1.
    An item is labelled when every slot is. Returns ``(labelled (C, P), unlabelled (P,))``.

    Examples
    --------
    >>> import numpy as np
    >>> lab, unl = pattern_counts(np.array([[1, 0, np.nan]]), np.array([[1, 1, 0]]))
    >>> lab.tolist(), unl.tolist()
    ([[0.0, 1.0], [0.0, 1.0]], [1.0, 0.0])
    """
    y = np.atleast_2d(np.asarray(y, float))
    v = np.atleast_2d(np.asarray(verdicts, float))
    slots = y.shape[0]
    weights = 2 ** np.arange(slots)[:, None]
    lab = np.isfinite(y).all(axis=0)
    cell = (np.nan_to_num(y) * weights).sum(axis=0).astype(int)
    pat = (v * weights).sum(axis=0).astype(int)
    size = 2**slots
    labelled = np.zeros((size, size))
    np.add.at(labelled, (cell[lab], pat[lab]), 1.0)
    unlabelled = np.bincount(pat[~lab], minlength=size).astype(float)
    return labelled, unlabelled


def _likelihood(se, sp, ys, js):
    """P(pattern k | cell c) as (..., C, P) from (..., S) sensitivities and specificities."""
    se = se[..., None, None, :]
    sp = sp[..., None, None, :]
    y = ys[:, None, :]
    j = js[None, :, :]
    f = y * (j * se + (1 - j) * (1 - se)) + (1 - y) * (j * (1 - sp) + (1 - j) * sp)
    return f.prod(axis=-1)


def gibbs_misclassification(
    labelled,
    unlabelled,
    *,
    share: str = "none",
    prior_se=(1.0, 1.0),
    prior_sp=(1.0, 1.0),
    draws: int = 2000,
    tune: int = 500,
    chains: int = 4,
    rng=0,
):
    """Posterior draws of the misclassification model by a conjugate Gibbs sampler.

    Parameters
    ----------
    labelled : array (units, C, P)
        Per unit (a model, or a pair), counts of labelled items by true outcome cell and judge
        pattern (:func:`pattern_counts`; C = P = 2 for one model, 4 for a pair).
    unlabelled : array (units, P)
        Counts of unlabelled items by judge pattern.
    share : {"none", "slots", "all"}
        Se and Sp per unit and slot ("none"), one per unit ("slots": both models of a pair
        graded alike) or one for everything ("all": the same judge for every model).
    draws, tune, chains : int
        Kept draws and burn-in sweeps per chain; chains run side by side.
    rng : int or numpy.random.Generator

    Returns
    -------
    dict
        ``cell`` (chains, draws, units, C): the true-outcome probabilities (for one model,
        cell 1 is the success rate; for a pair, P(A) = cells 1 + 3, P(B) = cells 2 + 3), and
        ``se``, ``sp`` (chains, draws, units, S).

    Examples
    --------
    >>> import numpy as np
    >>> lab = np.array([[[45.0, 10.0], [5.0, 40.0]]])  # rows: y = 0, 1; columns: judge 0, 1
    >>> out = gibbs_misclassification(lab, np.array([[400.0, 500.0]]), draws=500, rng=1)
    >>> out["cell"].shape
    (4, 500, 1, 2)
    """
    rng = np.random.default_rng(rng)
    lab = np.asarray(labelled, float)
    unl = np.asarray(unlabelled, float)
    units, size, _ = lab.shape
    slots = int(np.log2(size))
    ys, js = _bits(slots), _bits(slots)
    alpha = np.full(size, 2.0 ** -(slots - 1))  # each slot's margin is Beta(1, 1)

    def rates(table):
        """Counts tp, fn, tn, fp per (…, S) from a (…, C, P) table."""
        tp = np.einsum("...ck,cs,ks->...s", table, ys, js)
        fn = np.einsum("...ck,cs,ks->...s", table, ys, 1 - js)
        tn = np.einsum("...ck,cs,ks->...s", table, 1 - ys, 1 - js)
        fp = np.einsum("...ck,cs,ks->...s", table, 1 - ys, js)
        if share in ("slots", "all"):
            axes = (-1,) if share == "slots" else (-2, -1)
            tp, fn, tn, fp = (
                np.broadcast_to(x.sum(axis=axes, keepdims=True), x.shape) for x in (tp, fn, tn, fp)
            )
        return tp, fn, tn, fp

    def draw_rates(table):
        tp, fn, tn, fp = rates(table)
        se = rng.beta(prior_se[0] + tp, prior_se[1] + fn)
        sp = rng.beta(prior_sp[0] + tn, prior_sp[1] + fp)
        if share in ("slots", "all"):  # one draw for what is shared
            first = (..., slice(0, 1)) if share == "slots" else (..., slice(0, 1), slice(0, 1))
            se = np.broadcast_to(se[first], se.shape).copy()
            sp = np.broadcast_to(sp[first], sp.shape).copy()
        return se, sp

    shape = (chains, units)
    table = np.broadcast_to(lab, (*shape, size, size)).copy()
    se, sp = draw_rates(table)
    cell = _dirichlet(rng, alpha + lab.sum(axis=-1), shape)
    out = {
        "cell": np.empty((chains, draws, units, size)),
        "se": np.empty((chains, draws, units, slots)),
        "sp": np.empty((chains, draws, units, slots)),
    }
    counts = np.broadcast_to(unl, (*shape, size)).astype(np.int64)
    for t in range(tune + draws):
        like = _likelihood(se, sp, ys, js)  # (chains, units, C, P)
        w = cell[..., :, None] * like
        w = np.swapaxes(w / w.sum(axis=-2, keepdims=True), -1, -2)  # (chains, units, P, C)
        w[..., -1] = np.clip(1.0 - w[..., :-1].sum(axis=-1), 0.0, 1.0)
        alloc = rng.multinomial(counts, w)  # (chains, units, P, C)
        table = lab + np.swapaxes(alloc, -1, -2)
        cell = _dirichlet(rng, alpha + table.sum(axis=-1), None)
        se, sp = draw_rates(table)
        if t >= tune:
            out["cell"][:, t - tune] = cell
            out["se"][:, t - tune] = se
            out["sp"][:, t - tune] = sp
    return out


def _dirichlet(rng, conc, shape):
    """Dirichlet draws with the concentration's last axis (batched, via Gammas)."""
    conc = np.asarray(conc, float)
    if shape is not None:
        conc = np.broadcast_to(conc, (*shape, conc.shape[-1]))
    g = rng.standard_gamma(conc)
    return g / g.sum(axis=-1, keepdims=True)


def _log_target(z, lab, unl, share, slots, ys, js, alpha):
    """Log posterior density of the unconstrained parameters z (..., units, D) per unit."""
    size = 2**slots
    free = slots if share == "none" else 1
    zc = np.concatenate([np.zeros((*z.shape[:-1], 1)), z[..., : size - 1]], axis=-1)
    log_cell = zc - special.logsumexp(zc, axis=-1, keepdims=True)
    zs, zp = z[..., size - 1 : size - 1 + free], z[..., size - 1 + free :]
    log_se, log_1mse = -np.logaddexp(0, -zs), -np.logaddexp(0, zs)
    log_sp, log_1msp = -np.logaddexp(0, -zp), -np.logaddexp(0, zp)
    if free == 1:
        log_se, log_1mse, log_sp, log_1msp = (
            np.repeat(x, slots, axis=-1) for x in (log_se, log_1mse, log_sp, log_1msp)
        )
    y = ys[:, None, :]
    j = js[None, :, :]
    # log P(pattern k | cell c): sum over slots (..., C, P)
    f = (
        y * (j * log_se[..., None, None, :] + (1 - j) * log_1mse[..., None, None, :])
        + (1 - y) * (j * log_1msp[..., None, None, :] + (1 - j) * log_sp[..., None, None, :])
    ).sum(axis=-1)
    joint = log_cell[..., :, None] + f
    out = np.sum(lab * joint, axis=(-2, -1))
    out += np.sum(unl * special.logsumexp(joint, axis=-2), axis=-1)
    out += np.sum(alpha * log_cell, axis=-1)
    out += np.sum(log_se[..., :free] + log_1mse[..., :free], axis=-1)  # Beta(1, 1) + Jacobian
    out += np.sum(log_sp[..., :free] + log_1msp[..., :free], axis=-1)
    return out


def _to_z(cell, se, sp, share, slots):
    free = slots if share == "none" else 1
    logit = special.logit
    return np.concatenate(
        [
            np.log(cell[..., 1:]) - np.log(cell[..., :1]),
            logit(se[..., :free]),
            logit(sp[..., :free]),
        ],
        axis=-1,
    )


def _from_z(z, share, slots):
    size = 2**slots
    free = slots if share == "none" else 1
    zc = np.concatenate([np.zeros((*z.shape[:-1], 1)), z[..., : size - 1]], axis=-1)
    cell = special.softmax(zc, axis=-1)
    se = special.expit(z[..., size - 1 : size - 1 + free])
    sp = special.expit(z[..., size - 1 + free :])
    return (
        cell,
        np.broadcast_to(se, (*se.shape[:-1], slots)),
        np.broadcast_to(sp, (*sp.shape[:-1], slots)),
    )


def _t_proposal(draws):
    """Multivariate-t (5 df) proposal per unit from (n, units, D) draws: mean, Cholesky, logdet."""
    mean = draws.mean(axis=0)
    d = draws - mean
    cov = np.einsum("nui,nuj->uij", d, d) / max(d.shape[0] - 1, 1)
    cov = cov * 1.5 + 1e-8 * np.eye(cov.shape[-1])
    chol = np.linalg.cholesky(cov)
    logdet = 2 * np.log(np.diagonal(chol, axis1=-2, axis2=-1)).sum(axis=-1)
    return mean, chol, logdet


_DF = 5.0


def _t_logpdf(z, mean, chol, logdet):
    dim = z.shape[-1]
    diff = (z - mean)[..., None]
    sol = np.linalg.solve(np.broadcast_to(chol, (*z.shape[:-1], dim, dim)), diff)[..., 0]
    m = np.sum(sol**2, axis=-1)
    return -0.5 * logdet - 0.5 * (_DF + dim) * np.log1p(m / _DF)


def _t_draw(rng, shape, mean, chol):
    y = rng.standard_normal((*shape, *mean.shape))
    w = np.sqrt(_DF / rng.chisquare(_DF, size=(*shape, mean.shape[0], 1)))
    return mean + np.einsum("uij,...uj->...ui", chol, y) * w


def misclassification_posterior(
    labelled,
    unlabelled,
    *,
    share: str = "none",
    draws: int = 2000,
    tune: int = 1000,
    chains: int = 4,
    rng=0,
):
    """Posterior draws of the misclassification model: Gibbs warm-up, then an independence
    Metropolis-Hastings sampler on the counts' exact likelihood.

    The Gibbs sampler alone mixes slowly when most items are unlabelled (the latent
    allocation and the rates move each other in small steps: about 30 effective draws per
    1,000 at 100 labels among 2,000 items, measured). After ``tune`` Gibbs sweeps, a
    multivariate-t proposal (5 df, covariance x 1.5) fitted to the warm-up draws of each unit,
    refitted once after ``tune // 2`` independence steps, proposes whole parameter vectors;
    the accept/reject step keeps the exact posterior. ``share="all"`` couples the units and
    stays with the Gibbs sampler.

    Returns
    -------
    dict
        As :func:`gibbs_misclassification`, plus ``acceptance`` (per unit; NaN for Gibbs).

    Examples
    --------
    >>> import numpy as np
    >>> lab = np.array([[[45.0, 10.0], [5.0, 40.0]]])
    >>> out = misclassification_posterior(lab, np.array([[400.0, 500.0]]), draws=500, rng=1)
    >>> out["cell"].shape, bool(out["acceptance"][0] > 0.3)
    ((4, 500, 1, 2), True)
    """
    rng = np.random.default_rng(rng)
    lab = np.asarray(labelled, float)
    unl = np.asarray(unlabelled, float)
    units, size, _ = lab.shape
    if share == "all":
        out = gibbs_misclassification(
            lab, unl, share=share, draws=draws, tune=tune, chains=chains, rng=rng
        )
        out["acceptance"] = np.full(units, np.nan)
        return out
    slots = int(np.log2(size))
    ys, js = _bits(slots), _bits(slots)
    alpha = np.full(size, 2.0 ** -(slots - 1))
    warm = gibbs_misclassification(
        lab,
        unl,
        share=share,
        draws=max(tune // 2, 50),
        tune=tune - tune // 2,
        chains=chains,
        rng=rng,
    )
    z_warm = _to_z(np.clip(warm["cell"], 1e-12, None), warm["se"], warm["sp"], share, slots)
    z = z_warm[:, -1]  # (chains, units, D): the chains' last Gibbs states
    mean, chol, logdet = _t_proposal(z_warm.reshape(-1, units, z.shape[-1]))

    def target(x):
        return _log_target(x, lab, unl, share, slots, ys, js, alpha)

    def run(steps, keep):
        nonlocal z
        logw = target(z) - _t_logpdf(z, mean, chol, logdet)
        kept = np.empty((steps, *z.shape)) if keep else None
        accepted = np.zeros(z.shape[:-1])
        for t in range(steps):
            prop = _t_draw(rng, (chains,), mean, chol)
            logw_prop = target(prop) - _t_logpdf(prop, mean, chol, logdet)
            take = np.log(rng.random(logw.shape)) < logw_prop - logw
            z = np.where(take[..., None], prop, z)
            logw = np.where(take, logw_prop, logw)
            accepted += take
            if keep:
                kept[t] = z
        return kept, accepted / steps

    adapt, _ = run(max(tune // 2, 50), keep=True)
    mean, chol, logdet = _t_proposal(adapt.reshape(-1, units, z.shape[-1]))
    kept, rate = run(draws, keep=True)
    cell, se, sp = _from_z(np.moveaxis(kept, 0, 1), share, slots)  # (chains, draws, units, .)
    return {"cell": cell, "se": se, "sp": sp, "acceptance": rate.mean(axis=0)}


def stratified_posterior(y, verdicts, strata, *, draws: int = 4000, rng=0) -> np.ndarray:
    """Posterior draws of the true-outcome probabilities when labels were drawn by stratum.

    Parameters
    ----------
    y : array (slots, items)
        Human labels (NaN where none); an item is labelled when every slot is.
    verdicts : array (slots, items)
        Judge verdicts 0/1.
    strata : array (items,)
        Each item's stratum (e.g. its inclusion probability); labels must be a random sample
        within a stratum (module docs).
    draws : int
    rng : int or numpy.random.Generator

    Returns
    -------
    ndarray (draws, 2**slots)
        Cell probabilities as in :func:`gibbs_misclassification` (one model: cell 1 is the
        success rate; a pair: cell 1 = A right & B wrong, cell 2 = A wrong & B right).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([[1, 0, 1, np.nan, np.nan, np.nan]])
    >>> cells = stratified_posterior(y, np.array([[1, 0, 1, 1, 0, 1]]), [0, 0, 1, 1, 1, 1])
    >>> cells.shape
    (4000, 2)
    """
    rng = np.random.default_rng(rng)
    y = np.atleast_2d(np.asarray(y, float))
    v = np.atleast_2d(np.asarray(verdicts, float))
    _, code = np.unique(np.asarray(strata), return_inverse=True)
    slots = y.shape[0]
    size = 2**slots
    pattern = (v * (2 ** np.arange(slots))[:, None]).sum(axis=0).astype(int)
    cells, where = np.unique(code * size + pattern, return_inverse=True)
    n_items = np.bincount(where, minlength=cells.size).astype(float)
    lab = np.isfinite(y).all(axis=0)
    truth = (np.nan_to_num(y) * (2 ** np.arange(slots))[:, None]).sum(axis=0).astype(int)
    counts = np.zeros((cells.size, size))
    np.add.at(counts, (where[lab], truth[lab]), 1.0)
    share = _dirichlet(rng, 1.0 + n_items, (int(draws),))  # (draws, cells)
    cond = _dirichlet(rng, 2.0 ** -(slots - 1) + counts, (int(draws), cells.size))
    return np.einsum("dc,dck->dk", share, cond)
