"""Numba kernels of the joint model's log density and gradient (imported lazily by ``numba_joint``).

The log density is that of :func:`bayesnoise.mcmc.joint_model` on the sampler's unconstrained
space, term for term (priors, log / zero-sum transforms and their Jacobians, the Beta-Binomial
likelihood without binomial coefficients); ``tests/test_mcmc_speed.py`` checks value and gradient
against PyMC's compiled graph. Layout of the unconstrained vector ``x`` (``M`` models, ``N``
questions)::

    x[0]                  log sigma_b
    x[1]                  difficulty_mean
    x[2 : 2+M]            theta_rel
    x[2+M : 1+M+N]        zero-sum coordinates of difficulty_dev (or difficulty_z), N - 1 values
    x[1+M+N : 1+2M+N]     log phi

The log rising factorial ``log (x)_n = sum_{j<n} log(x + j)`` and its derivative
``sum_{j<n} 1 / (x + j)`` are evaluated together as a product ``P`` and its derivative ``D``
(``D <- D (x + j) + P``, ``P <- P (x + j)``) for ``n <= PRODUCT_MAX``, so a cell costs one
``log`` and one division whatever its count; larger counts use ``lgamma`` and a digamma.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .loglik import PRODUCT_MAX

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
# log of a product that stays safely below float64's largest value (log 1.8e308 = 709.8)
_LOG_MAX = 700.0


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _digamma(x):
    """Digamma for x > 0: recurrence up to x >= 10, then the asymptotic series (error < 1e-15)."""
    r = 0.0
    while x < 10.0:
        r -= 1.0 / x
        x += 1.0
    z = 1.0 / (x * x)
    series = z * (
        1.0 / 12
        - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * 691.0 / 32760))))
    )
    return r + math.log(x) - 0.5 / x - series


@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _rising_product(x, n):
    """``(prod_{j<n} (x + j), d/dx of it)``; exact while the product stays finite."""
    p = 1.0
    d = 0.0
    for j in range(n):
        f = x + j
        d = d * f + p
        p = p * f
    return p, d


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _log_rising(x, n, block):
    """``(log (x)_n, d/dx log (x)_n)``: products of ``block`` factors, lgamma for large n."""
    if n > PRODUCT_MAX:
        return math.lgamma(x + n) - math.lgamma(x), _digamma(x + n) - _digamma(x)
    value = 0.0
    deriv = 0.0
    start = 0
    while start < n:
        stop = min(start + block, n)
        p, d = _rising_product(x + start, stop - start)
        value += math.log(p)
        deriv += d / p
        start = stop
    return value, deriv


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _cell_log_rising(a, b, c, k, ph, kmax):
    """One cell the product pass could not take: both rising factorials, blocked products."""
    bl = max(1, int(_LOG_MAX / math.log(max(ph + kmax, 2.0))))
    va, la = _log_rising(a, c, bl)
    vb, lb = _log_rising(b, k - c, bl)
    return va + vb, la, lb


@numba.njit(cache=True, nogil=True, error_model="numpy")
def loglik_grad(theta_rel, d, phi, correct, count, norm_k, norm_w, g_theta, g_d, g_phi):
    """Beta-Binomial log-likelihood of the joint model; writes its gradient into ``g_*``.

    ``norm_k[m], norm_w[m]`` are the distinct counts of model ``m`` (largest first) and their
    numbers of cells. Per model, the products run over ``j < max K`` for all questions at once
    (branch-free, so the compiler vectorises them); logs of many cells' products are taken
    together while their product stays within [1e-250, 1e250].
    """
    n_models, n_questions = correct.shape
    ed = np.exp(d)
    total = 0.0
    g_d[:] = 0.0
    pa = np.empty(n_questions)
    da = np.empty(n_questions)
    pb = np.empty(n_questions)
    db = np.empty(n_questions)
    a = np.empty(n_questions)
    b = np.empty(n_questions)
    p = np.empty(n_questions)
    q = np.empty(n_questions)
    cf = np.empty(n_questions)
    kf = np.empty(n_questions)
    for m in range(n_models):
        ph = phi[m]
        et = math.exp(-theta_rel[m])
        k_top = norm_k[m, 0]
        k_prod = min(k_top, PRODUCT_MAX)
        for i in range(n_questions):
            # p = logistic(theta_rel - d) and q = 1 - p, both to full relative precision
            t = ed[i] * et
            pp = 1.0 / (1.0 + t)
            p[i] = pp
            q[i] = t * pp
            a[i] = pp * ph
            cf[i] = correct[m, i]
            kf[i] = count[m, i] if count[m, i] <= PRODUCT_MAX else 0.0
            b[i] = q[i] * ph - cf[i]  # factors b + j - c for c <= j < K
            pa[i] = 1.0
            da[i] = 0.0
            pb[i] = 1.0
            db[i] = 0.0
        for j in range(k_prod):
            jf = float(j)
            for i in range(n_questions):
                in_a = jf < cf[i]
                in_b = (jf >= cf[i]) & (jf < kf[i])
                fa = a[i] + jf if in_a else 1.0
                fb = b[i] + jf if in_b else 1.0
                da[i] = da[i] * fa + (pa[i] if in_a else 0.0)
                pa[i] = pa[i] * fa
                db[i] = db[i] * fb + (pb[i] if in_b else 0.0)
                pb[i] = pb[i] * fb
        acc = 1.0
        gt = 0.0
        gp = 0.0
        for i in range(n_questions):
            k = count[m, i]
            if k == 0:
                continue
            prod = pa[i] * pb[i]
            if k <= PRODUCT_MAX and 1e-50 < prod < 1e50:
                inv = 1.0 / prod
                la = da[i] * pb[i] * inv
                lb = db[i] * pa[i] * inv
                acc *= prod
                if not 1e-250 < acc < 1e250:
                    total += math.log(acc)
                    acc = 1.0
            else:  # large count, or a product too large / small to multiply into acc
                c = correct[m, i]
                val, la, lb = _cell_log_rising(a[i], b[i] + c, c, k, ph, k_top)
                total += val
            ge = ph * (la - lb) * p[i] * q[i]
            gt += ge
            g_d[i] -= ge
            gp += p[i] * la + q[i] * lb
        total += math.log(acc)
        bl = max(1, int(_LOG_MAX / math.log(max(ph + k_top, 2.0))))
        for v in range(norm_k.shape[1]):
            w = norm_w[m, v]
            if w > 0.0:
                val, der = _log_rising(ph, norm_k[m, v], bl)
                total -= w * val
                gp -= w * der
        g_theta[m] = gt
        g_phi[m] = gp
    return total


@numba.njit(cache=True, nogil=True, error_model="numpy")
def zero_sum_extend(y):
    """PyMC's zero-sum backward transform: ``N - 1`` free values to ``N`` summing to 0."""
    n = y.shape[0] + 1.0
    s = y.sum()
    norm = s / (math.sqrt(n) + n)
    out = np.empty(y.shape[0] + 1)
    out[:-1] = y - norm
    out[-1] = -s / math.sqrt(n)
    return out


@numba.njit(cache=True, nogil=True, error_model="numpy")
def logp_grad(x, n_models, noncentered, consts, correct, count, norm_k, norm_w):
    """Log density of the joint model at ``x`` (layout in the module docstring) and gradient.

    ``consts = (difficulty_scale, theta_sd, log phi_median, phi_log_sd)``.
    """
    scale, theta_sd, log_phi_med, phi_log_sd = consts[0], consts[1], consts[2], consts[3]
    n_q = x.shape[0] - 1 - 2 * n_models
    grad = np.zeros_like(x)
    s = x[0]
    sigma = math.exp(s)
    bm = x[1]
    theta_rel = x[2 : 2 + n_models]
    y = x[2 + n_models : 1 + n_models + n_q]
    log_phi = x[1 + n_models + n_q :]
    phi = np.exp(log_phi)
    # sigma_b ~ HalfNormal(scale), log transform (Jacobian + s)
    lp = math.log(2.0) - _HALF_LOG_2PI - math.log(scale) - 0.5 * (sigma / scale) ** 2 + s
    g_s = 1.0 - (sigma / scale) ** 2
    # difficulty_mean ~ Normal(0, sigma / sqrt(N))
    zb = bm * math.sqrt(n_q) / sigma
    lp += -_HALF_LOG_2PI - s + 0.5 * math.log(n_q) - 0.5 * zb * zb
    g_s += zb * zb - 1.0
    g_bm = -zb * math.sqrt(n_q) / sigma
    # theta_rel ~ Normal(-difficulty_mean, theta_sd)
    r = (theta_rel + bm) / theta_sd
    lp += (-_HALF_LOG_2PI - math.log(theta_sd)) * n_models - 0.5 * (r * r).sum()
    g_tr = -r / theta_sd
    g_bm += g_tr.sum()
    # zero-sum difficulty deviations: ZeroSumNormal(sigma) (centred) or sigma * ZeroSumNormal(1)
    v = zero_sum_extend(y)
    if noncentered:
        d = sigma * v
        lp += -0.5 * (v * v).sum() - (n_q - 1) * _HALF_LOG_2PI
        g_v = -v
    else:
        d = v
        zz = (v * v).sum() / (sigma * sigma)
        lp += -0.5 * zz - (n_q - 1) * (_HALF_LOG_2PI + s)
        g_s += zz - (n_q - 1)
        g_v = -v / (sigma * sigma)
    # phi ~ LogNormal(log phi_median, phi_log_sd), log transform (Jacobian cancels -log phi)
    zp = (log_phi - log_phi_med) / phi_log_sd
    lp += (-_HALF_LOG_2PI - math.log(phi_log_sd)) * n_models - 0.5 * (zp * zp).sum()
    g_lphi = -zp / phi_log_sd
    # likelihood
    g_theta = np.empty(n_models)
    g_d = np.empty(n_q)
    g_phi = np.empty(n_models)
    lp += loglik_grad(theta_rel, d, phi, correct, count, norm_k, norm_w, g_theta, g_d, g_phi)
    g_tr += g_theta
    g_lphi += g_phi * phi
    if noncentered:
        g_s += (g_d * d).sum()
        g_v += sigma * g_d
    else:
        g_v += g_d
    # back through the zero-sum transform
    n = float(n_q)
    head = g_v[:-1]
    grad[2 + n_models : 1 + n_models + n_q] = (
        head - head.sum() / (math.sqrt(n) + n) - g_v[-1] / math.sqrt(n)
    )
    grad[0] = g_s
    grad[1] = g_bm
    grad[2 : 2 + n_models] = g_tr
    grad[1 + n_models + n_q :] = g_lphi
    return lp, grad


@numba.njit(cache=True, nogil=True, error_model="numpy")
def joint_u_stats(gen, theta, b, phi, correct, count, ubar, v_x, v_pred, u_out):
    """Exact u-draws of the joint model and their per-model summaries, one pass per draw.

    For each posterior draw ``s`` (rows of ``theta (S, M)``, ``b (S, N)``, ``phi (S, M)``)
    and answered cell, ``u ~ Beta(p phi + c, (1 - p) phi + K - c)`` with
    ``p = logistic(theta - b)``, drawn with the numpy Generator ``gen``. Writes the mean,
    variance and mean of ``u (1 - u)`` over each model's answered questions into ``ubar``,
    ``v_x``, ``v_pred`` (S, M), and ``u`` itself (0 on unanswered cells) into ``u_out`` unless
    it is empty.
    """
    n_draws, n_models = theta.shape
    n_questions = b.shape[1]
    store = u_out.shape[0] > 0
    row = np.empty(n_questions)
    for s in range(n_draws):
        for m in range(n_models):
            ph = phi[s, m]
            total = 0.0
            total_pred = 0.0
            n = 0
            for i in range(n_questions):
                k = count[m, i]
                if k == 0:
                    row[i] = 0.0
                    continue
                c = correct[m, i]
                p = 1.0 / (1.0 + math.exp(-(theta[s, m] - b[s, i])))
                u = gen.beta(p * ph + c, (1.0 - p) * ph + k - c)
                row[i] = u
                total += u
                total_pred += u * (1.0 - u)
                n += 1
            mean = total / n
            var = 0.0
            for i in range(n_questions):
                if count[m, i] > 0:
                    var += (row[i] - mean) ** 2
            ubar[s, m] = mean
            v_x[s, m] = var / n
            v_pred[s, m] = total_pred / n
            if store:
                u_out[s, m, :] = row
