"""The Beta-Binomial marginal log likelihood on scipy's special functions, per cell: the
independent reference for the package's rising-factorial likelihood
(:mod:`bayesnoise.conjugate.rising`, used by :mod:`bayesnoise.conjugate.kappa_grid`).

Moved here from ``bayesnoise.conjugate.likelihood`` (issue 38): only the tests called it.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from bayesnoise.conjugate.beta import posterior_parameters


def marginal_loglik(eta, lam, cu, ku, w, prior=(0.0, 0.0), *, derivatives=True):
    """Penalised Beta-Binomial marginal log likelihood, gradient and Hessian in (eta, lam).

    ``eta = logit mu``, ``lam = log kappa``; the penalty is the Beta(a0, b0) prior on mu,
    ``a0 log mu + b0 log(1 - mu)``.

    Parameters
    ----------
    eta, lam : numpy.ndarray, shape (M,)
    cu, ku : numpy.ndarray, shape (U,)
        Distinct cells (:func:`bayesnoise.conjugate.likelihood.group_cells`).
    w : numpy.ndarray, shape (M, U)
        Cell weights per model.
    prior : (a0, b0), default (0, 0)
    derivatives : bool, default True

    Returns
    -------
    ll, g_eta, g_lam, h_ee, h_el, h_ll : numpy.ndarray, shape (M,)
        Only ``ll`` when ``derivatives=False``.

    """
    m = special.expit(eta)[:, None]
    kap = np.exp(lam)[:, None]
    a = m * kap
    b = (1.0 - m) * kap
    ap, bp = posterior_parameters(m, kap, cu, ku)
    n = w.sum(axis=1)
    a1, b1 = a[:, 0], b[:, 0]
    ll = (w * special.betaln(ap, bp)).sum(axis=1) - n * special.betaln(a1, b1)
    a0, b0 = prior
    ll = ll + a0 * np.log(m[:, 0]) + b0 * np.log1p(-m[:, 0])
    if not derivatives:
        return ll

    def wsum(x):
        return (w * x).sum(axis=1)

    psi_t = special.digamma(ku + a + b)
    psi_ab = special.digamma(a1 + b1)
    g_a = wsum(special.digamma(ap) - psi_t) - n * (special.digamma(a1) - psi_ab)
    g_b = wsum(special.digamma(bp) - psi_t) - n * (special.digamma(b1) - psi_ab)
    tri_t = special.polygamma(1, ku + a + b)
    tri_ab = special.polygamma(1, a1 + b1)
    h_aa = wsum(special.polygamma(1, ap) - tri_t) - n * (special.polygamma(1, a1) - tri_ab)
    h_bb = wsum(special.polygamma(1, bp) - tri_t) - n * (special.polygamma(1, b1) - tri_ab)
    h_ab = -wsum(tri_t) + n * tri_ab
    m, a, b = m[:, 0], a1, b1
    s = m * (1.0 - m)
    ks = kap[:, 0] * s
    g_eta = ks * (g_a - g_b) + a0 * (1.0 - m) - b0 * m
    g_lam = a * g_a + b * g_b
    h_ee = ks * ks * (h_aa - 2.0 * h_ab + h_bb) + ks * (1.0 - 2.0 * m) * (g_a - g_b)
    h_ee = h_ee - (a0 + b0) * s
    h_el = ks * (a * h_aa + (b - a) * h_ab - b * h_bb + g_a - g_b)
    h_ll = a * a * h_aa + 2.0 * a * b * h_ab + b * b * h_bb + a * g_a + b * g_b
    return ll, g_eta, g_lam, h_ee, h_el, h_ll
