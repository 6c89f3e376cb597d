"""Simulation study of the *population* paired difference of two models (issue 20, item 2).

Simulation machinery, not library API. Target: ``delta = E_x[u_A(x) - u_B(x)]`` over the
question population. For every cell (difficulty shape, N, K, accuracy) it draws ``R``
replicated pairs under a null (B has A's difficulty distribution: delta = 0) and under a shift,
and measures for each candidate interval: coverage (null and shift, binomial Monte Carlo SE
``sqrt(p (1 - p) / R)``), the median width over the null replicates divided by the median
width of the paired t interval ``dbar +- t_{N-1, 0.975} sd(d, ddof=1) / sqrt(N)`` on the same
replicates, and power (the share of shift replicates whose interval excludes 0) divided by
the t interval's power, with its delta-method Monte Carlo SE (the two powers are measured on
the same replicates: ``Var(r) = (Var(p1) + r^2 Var(p0) - 2 r Cov(p1, p0)) / p0^2``).

Designs.

* ``beta``, ``twopoint``, ``mixture``: :class:`studies.grid.Difficulty` with kappa = 1, the two
  models paired by the Gaussian copula of :func:`studies.grid._copula_rho` (corr(u_A, u_B) =
  0.8 under the null), B's shifted population accuracy ``expit(logit(mu) - s)``;
* ``2pl``: item response, ``u_mi = expit(a_i (theta_m - b_i) + eps_mi)``, b_i ~ N(0, 1.5^2),
  a_i ~ LogNormal(0, 0.3^2), eps_mi ~ N(0, 0.5^2) independent per model; theta set so that the
  population accuracy hits the target, exactly (Gauss-Hermite over (b, log a, eps), 40^3 nodes,
  root by brentq); the null B has A's theta (fresh eps), the shifted B the theta of
  ``expit(logit(mu) - s)``; the truth is the difference of the two targets;
* the logit shift ``s = SHIFT_LOGIT * sqrt(200 / N)`` (0.77 at N = 30, 0.42 at N = 100, 0.19
  at N = 500, 0.095 at N = 2000; :mod:`studies.grid` uses 0.3 everywhere) keeps the t test's
  power in a range where a power ratio is informative at every N;
* c ~ Binomial(K, u), scores p = c / K, d_i = p_Ai - p_Bi.

Candidates. Frequentist: ``t`` (the reference), ``union`` (the default before issue 20: the
effective-n Tango interval united with the held-prediction-noise Tango interval),
``tango_eff`` (the effective-n Tango interval alone: the default since issue 20),
``tango_eff_t`` (the same at the t_{N-1} quantile on the ddof-1 scale), ``t_skew`` (the t
interval shifted by the Edgeworth skewness term s g (2 t^2 + 1) / (6 N)), ``tt_union5``
(``tango_eff_t`` united with the held interval only where S2^2 / S4 < 5), ``package``
(:func:`bayesnoise.frequentist.difference_interval` as shipped). Bayesian (Dirichlet weights
alpha per question and two atoms of total mass a at -e, +e; m = sqrt(S4 / S2), n = S2^2 / S4):
``dp1`` (before issue 20: alpha 1, a 1, e = m + (1 - m) / sqrt(n + 1)), ``dp_a025`` (the same
with a = 1/4), ``bb_t_a025`` (alpha scaled so that the posterior variance matches the t
interval, a = 1/4), ``bb_t_m05`` (alpha scaled, a = 1/2 at e = m), ``dp1_m`` (alpha 1, a 1 at
e = m: the default since issue 20), ``dp_eq`` (old atoms with mass (m / e)^2), and
``package_bayes`` (:func:`bayesnoise.conjugate.paired_population_posterior` as shipped, N <= 100
only: it draws for every replicate).

Decision (R = 400, 176 cells where the acceptance applies, counted within 2 MCSE): frequentist
``tango_eff`` 171 (``t`` 165, ``tango_eff_t`` 161, ``union`` 140, ``tt_union5`` 151, ``t_skew``
135); Bayesian ``dp1_m`` 169 (``bb_t_a025`` 166, ``dp_a025`` 164, ``dp1`` 147); the
``bb_t_a025`` / ``dp_a025`` variants cover 0.87-0.90 at K = 1, N = 100 and accuracy 0.05 /
0.95, where a = 1 at +-1 (Jeffreys on the discordant cells) is needed.

Candidates are computed here from their formulas (``bayesnoise.frequentist._score`` and the
closed-form Dirichlet cumulants), so that the "before" numbers stay reproducible after the
package's defaults change; ``package_*`` entries call the package's public functions.
"""

from __future__ import annotations

import functools
import time
import zlib

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from bayesnoise.conjugate import pairs as cpairs
from bayesnoise.conjugate.dirichlet import dirichlet_cumulants
from bayesnoise.conjugate.expansion import summarise
from bayesnoise.frequentist import _score, difference_interval
from studies.grid import Difficulty, _copula_rho

__all__ = [
    "BAYES",
    "FREQ",
    "K_GRID",
    "MU_GRID",
    "N_GRID",
    "SHAPES",
    "bayes_candidates",
    "frequentist_candidates",
    "simulate_pairs",
    "study_cell",
    "summarise_cell",
]

SHAPES = ("beta", "twopoint", "mixture", "2pl")
N_GRID = (30, 100, 500, 2000)
K_GRID = (1, 5, 20)
MU_GRID = (0.05, 0.5, 0.9, 0.95)
KAPPA = 1.0
SHIFT_LOGIT = 0.3
LEVEL = 0.95
Z = float(special.ndtri(0.5 + LEVEL / 2))

FREQ = (
    "t",
    "union",  # before: effective-n Tango U held-noise Tango
    "tango_eff",
    "tango_eff_t",
    "t_skew",
    "tt_union5",
    "package",
)
BAYES = ("dp1", "dp_a025", "bb_t_a025", "bb_t_m05", "dp1_m", "dp_eq", "package_bayes")
PACKAGE_BAYES_MAX_N = 100


def shift_logit(n_questions: int) -> float:
    return SHIFT_LOGIT * float(np.sqrt(200.0 / n_questions))


# ----------------------------------------------------------------------------- 2PL


@functools.cache
def _gh3():
    x, w = np.polynomial.hermite_e.hermegauss(40)
    w = w / w.sum()
    b, la, e = np.meshgrid(x, x, x, indexing="ij")
    wt = (w[:, None, None] * w[None, :, None] * w[None, None, :]).ravel()
    return 1.5 * b.ravel(), np.exp(0.3 * la.ravel()), 0.5 * e.ravel(), wt


def irt_accuracy(theta: float) -> float:
    """Population accuracy E[expit(a (theta - b) + eps)] of the 2PL design (Gauss-Hermite)."""
    b, a, e, w = _gh3()
    return float((w * special.expit(a * (theta - b) + e)).sum())


@functools.cache
def irt_theta(mu: float) -> float:
    return float(optimize.brentq(lambda t: irt_accuracy(t) - mu, -30.0, 30.0, xtol=1e-12))


# ----------------------------------------------------------------------------- data


def simulate_pairs(shape, n_questions, samples, mu, replicates, rng):
    """Scores ``(p_a, p_null, p_shift)`` each (R, N), and the shift's true delta."""
    n, k, r = int(n_questions), int(samples), int(replicates)
    mu_b = float(special.expit(special.logit(mu) - shift_logit(n)))
    if shape == "2pl":
        b = 1.5 * rng.standard_normal((r, n))
        a = np.exp(0.3 * rng.standard_normal((r, n)))
        ta, tb = irt_theta(float(mu)), irt_theta(mu_b)
        eps = 0.5 * rng.standard_normal((2, r, n))
        u = [special.expit(a * (ta - b) + eps[0]), special.expit(a * (ta - b) + eps[1])]
        u.append(special.expit(a * (tb - b) + eps[1]))
    else:
        da, db = Difficulty(shape, mu, KAPPA), Difficulty(shape, mu_b, KAPPA)
        rho = _copula_rho(shape, float(mu), KAPPA)
        z = rng.standard_normal((r, n))
        zb = rho * z + np.sqrt(1 - rho * rho) * rng.standard_normal((r, n))
        u = [da.from_normal(z), da.from_normal(zb), db.from_normal(zb)]
    p = [rng.binomial(k, np.clip(x, 0.0, 1.0)) / k for x in u]
    return p[0], p[1], p[2], float(mu) - mu_b


# ----------------------------------------------------------------------------- frequentist


def _moments(pa, pb):
    a, b = pa.mean(-1), pb.mean(-1)
    return a, b, pa.var(-1), pb.var(-1), (pa - pb).var(-1)


def _union_parts(pa, pb, k, z):
    """(effective-n Tango, held-noise Tango) as in the pre-issue-20 ``difference_interval``."""
    n = pa.shape[-1]
    a, b, va, vb, vd = _moments(pa, pb)
    d = a - b
    q = np.clip(a * (1 - b) + b * (1 - a) - va - vb + vd, np.abs(d), 1.0)
    n_eff = _score.effective_n(q - d * d, vd, n, fallback=n, cap=n * k, floor=n)
    eff = _score.tango(n_eff * (q + d) / 2, n_eff * (q - d) / 2, n_eff, z)
    excess = np.clip(q - d * d - np.maximum(vd, 0.0), 0.0, None)
    held = _score.tango(n * (q + d) / 2, n * (q - d) / 2, n, z, excess=excess)
    return eff, held


def t_interval(d, level=LEVEL):
    n = d.shape[-1]
    t = stats.t.ppf(0.5 + level / 2, n - 1)
    half = t * d.std(-1, ddof=1) / np.sqrt(n)
    m = d.mean(-1)
    return m - half, m + half


def n_differing(d):
    """Effective number of differing questions S2^2 / S4 (0 when none differ)."""
    s2, s4 = (d * d).sum(-1), (d**4).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s4 > 0, s2 * s2 / np.where(s4 > 0, s4, 1.0), 0.0)


def frequentist_candidates(pa, pb, k):
    d = pa - pb
    n = d.shape[-1]
    tq = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1))
    out = {"t": t_interval(d)}
    eff, held = _union_parts(pa, pb, k, Z)
    out["union"] = (np.minimum(eff[0], held[0]), np.maximum(eff[1], held[1]))
    out["tango_eff"] = eff
    # t quantile with the ddof-1 scale: equals the t interval where Tango is symmetric
    eff_t, held_t = _union_parts(pa, pb, k, tq * np.sqrt(n / (n - 1.0)))
    out["tango_eff_t"] = eff_t
    # Edgeworth (Johnson 1978 / Hall 1992) skewness shift of the t interval
    m, s = d.mean(-1), d.std(-1, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.where(s > 0, ((d - m[:, None]) ** 3).mean(-1) / np.where(s > 0, s, 1) ** 3, 0.0)
    shift = s * g * (2 * tq * tq + 1) / (6 * n)
    lo, hi = out["t"]
    out["t_skew"] = (lo + shift, hi + shift)
    nd = n_differing(d)
    few = nd < 5
    out["tt_union5"] = (
        np.where(few, np.minimum(eff_t[0], held_t[0]), eff_t[0]),
        np.where(few, np.maximum(eff_t[1], held_t[1]), eff_t[1]),
    )
    a, b, va, vb, vd = _moments(pa, pb)
    out["package"] = difference_interval(a, b, va, vb, vd, n, samples_per_question=k)
    out["_n_differing"] = nd
    return out


# ----------------------------------------------------------------------------- Bayesian


def atom_size(s2, s4):
    """Typical size of a nonzero difference, m = sqrt(S4 / S2) (1 when none differ)."""
    s2, s4 = np.asarray(s2, float), np.asarray(s4, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s4 > 0, np.sqrt(np.minimum(s4 / np.where(s2 > 0, s2, 1.0), 1.0)), 1.0)


def _bayes(d, alpha, prior_mass, rng, draws=1000, atom=None):
    """Equal-tailed interval and P(delta > 0) of sum_j w_j x_j, w ~ Dirichlet(alpha, ...,
    alpha, a/2, a/2) over the N differences and the end atoms -e, +e.

    ``atom``: None, e = the package's ``end_atom``; "old", e = m + (1 - m) / sqrt(n + 1) (the
    end atoms before issue 20) with m = sqrt(S4 / S2) and n = S2^2 / S4; "size", e = m; "mid",
    e = m + (1 - m) / (n + 1); a number. ``prior_mass``: a number, or "eq" for the old atoms
    with mass (m / e)^2 (the prior variance of atoms of mass 1 at +-m)."""
    r, n = d.shape
    raw = [(d**j).sum(-1) for j in (1, 2, 3, 4)]
    m = atom_size(raw[1], raw[3])
    with np.errstate(invalid="ignore", divide="ignore"):
        nd = np.where(raw[3] > 0, raw[1] ** 2 / np.where(raw[3] > 0, raw[3], 1.0), 0.0)
    if atom == "old" or prior_mass == "eq":  # the end atoms before issue 20
        e = m + (1 - m) / np.sqrt(nd + 1)
    elif atom is None:
        e = cpairs.end_atom(raw[1], raw[3])
    elif atom == "size":
        e = m
    elif atom == "mid":
        e = m + (1 - m) / (nd + 1)
    else:
        e = np.full(r, float(atom))
    a = (m / e) ** 2 if prior_mass == "eq" else np.full(r, float(prior_mass))
    w_raw = (
        alpha * raw[0],
        alpha * raw[1] + a * e**2,
        alpha * raw[2],
        alpha * raw[3] + a * e**4,
    )
    mean, k2, k3, k4 = dirichlet_cumulants(w_raw, n * alpha + a)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        (lo, hi), p, ok = summarise(mean, k2, k3, k4, (0.025, 0.975))
    bad = np.flatnonzero(~ok)
    step = max(1, 2_000_000 // (draws * n))
    for s0 in range(0, bad.size, step):
        rows = bad[s0 : s0 + step]
        g = rng.standard_gamma(alpha, size=(rows.size, draws, n))
        ends = rng.standard_gamma(np.broadcast_to(a[rows, None, None] / 2, (rows.size, draws, 2)))
        num = np.einsum("rdn,rn->rd", g, d[rows]) + (ends[..., 1] - ends[..., 0]) * e[rows, None]
        delta = num / (g.sum(-1) + ends.sum(-1))
        lo[rows], hi[rows] = np.quantile(delta, (0.025, 0.975), axis=-1)
        p[rows] = (delta > 0).mean(-1) + 0.5 * (delta == 0).mean(-1)
    return lo, hi, p


def t_scaled_alpha(n: int) -> float:
    """Dirichlet weight per question whose posterior variance s0^2 / (N alpha + 1) equals
    (t_{N-1} / z)^2 s^2 / N with s^2 the ddof-1 variance: normal quantiles of the posterior
    then reproduce the t interval's half-width."""
    tq = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1))
    return ((n - 1.0) * (Z / tq) ** 2 - 1.0) / n


def bayes_candidates(d, rng, methods=BAYES):
    n = d.shape[-1]
    at = t_scaled_alpha(n)
    spec = {
        "dp1": (1.0, 1.0, "old"),  # before issue 20
        "dp_a025": (1.0, 0.25, "old"),
        "bb_t_a025": (at, 0.25, "old"),
        "bb_t_m05": (at, 0.5, "size"),
        "dp1_m": (1.0, 1.0, "size"),  # the package's default since issue 20
        "dp_eq": (1.0, "eq", None),
    }
    out = {m: _bayes(d, *spec[m][:2], rng, atom=spec[m][2]) for m in methods if m in spec}
    if "package_bayes" in methods:
        nan = np.full(d.shape[0], np.nan)
        out["package_bayes"] = (nan, nan, nan)
        if n <= PACKAGE_BAYES_MAX_N:  # Monte Carlo over every replicate: costly at large N
            post = cpairs.paired_population_posterior(d, n_resamples=1000, rng=rng)
            out["package_bayes"] = (post["low"], post["high"], post["prob_a_better"])
    return out


# ----------------------------------------------------------------------------- one cell


def cell_seed(shape, n, k, mu, base=0):
    key = f"popdiff|{shape}|{int(n)}|{int(k)}|{mu:.6g}"
    return np.random.SeedSequence([int(base), zlib.crc32(key.encode())])


def _ratio(p1, p0, both, r):
    """p1 / p0 and its delta-method MCSE (paired replicates)."""
    if p0 <= 0:
        return np.nan, np.nan
    ratio = p1 / p0
    cov = (both - p1 * p0) / r
    var = (p1 * (1 - p1) / r + ratio**2 * p0 * (1 - p0) / r - 2 * ratio * cov) / p0**2
    return ratio, float(np.sqrt(max(var, 0.0)))


def study_cell(shape, n_questions, samples, mu, replicates=400, seed=0, *, bayes=BAYES):
    """Long table (one row per candidate) of one cell."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(cell_seed(shape, n_questions, samples, mu, seed))
    pa, pn, ps, truth = simulate_pairs(shape, n_questions, samples, mu, replicates, rng)
    r = int(replicates)
    res = {}
    fn = frequentist_candidates(pa, pn, samples)
    fs = frequentist_candidates(pa, ps, samples)
    nd = float(np.median(fn.pop("_n_differing")))
    nds = float(np.median(fs.pop("_n_differing")))
    for name in fn:
        res[("freq", name)] = (*fn[name], None, *fs[name], None)
    if bayes:
        bn_ = bayes_candidates(pa - pn, rng, bayes)
        bs = bayes_candidates(pa - ps, rng, bayes)
        for name in bn_:
            res[("bayes", name)] = (*bn_[name], *bs[name])
    t_lo, t_hi = fn["t"]
    t_width = float(np.median(t_hi - t_lo))
    st_lo, st_hi = fs["t"]
    t_rej = (st_lo > 0) | (st_hi < 0)
    rows = []
    for (kind, name), (lo0, hi0, _p0, lo1, hi1, p1) in res.items():
        if np.all(np.isnan(lo0)):  # not computed in this cell
            continue
        cov0 = float(np.mean((lo0 <= 0) & (0 <= hi0)))
        cov1 = float(np.mean((lo1 <= truth) & (truth <= hi1)))
        rej = (lo1 > 0) | (hi1 < 0)
        if p1 is not None:  # the Bayesian decision also needs P(delta > 0) > 0.975
            rej_p = (p1 > 0.975) | (p1 < 0.025)
        else:
            rej_p = rej
        pw, pt = float(rej.mean()), float(t_rej.mean())
        ratio, ratio_se = _ratio(pw, pt, float((rej & t_rej).mean()), r)
        width = float(np.median(hi0 - lo0))
        rows.append(
            {
                "shape": shape,
                "N": int(n_questions),
                "K": int(samples),
                "mu": float(mu),
                "delta": truth,
                "kind": kind,
                "method": name,
                "cov_null": cov0,
                "cov_null_se": float(np.sqrt(cov0 * (1 - cov0) / r)),
                "cov_shift": cov1,
                "cov_shift_se": float(np.sqrt(cov1 * (1 - cov1) / r)),
                "width_ratio": width / t_width if t_width > 0 else np.nan,
                "power": pw,
                "power_p": float(rej_p.mean()),
                "power_t": pt,
                "power_ratio": ratio,
                "power_ratio_se": ratio_se,
                "n_differing": nd,
                "n_differing_shift": nds,
                "R": r,
                "seconds": round(time.perf_counter() - t0, 2),
            }
        )
    return pd.DataFrame(rows)


def in_target(df: pd.DataFrame) -> pd.Series:
    """Cells where issue 20's acceptance applies: N >= 30 and K >= 5, or N >= 100 at K = 1."""
    return ((df["N"] >= 30) & (df["K"] >= 5)) | ((df["N"] >= 100) & (df["K"] == 1))


def passes(df: pd.DataFrame) -> pd.Series:
    """The acceptance per row: both coverages in [0.93, 0.97], width ratio <= 1.3, power ratio
    >= 0.9 (point values, no Monte Carlo allowance)."""
    cov = df[["cov_null", "cov_shift"]]
    ok = ((cov >= 0.93) & (cov <= 0.97)).all(axis=1)
    return ok & (df["width_ratio"].fillna(np.inf) <= 1.3) & (df["power_ratio"].fillna(1) >= 0.9)


def summarise_cell(df: pd.DataFrame) -> pd.DataFrame:
    """Per method: cells in target, cells passing, worst coverage and width/power ratio."""
    sub = df[in_target(df)].copy()
    sub["pass"] = passes(sub)
    g = sub.groupby(["kind", "method"])
    return pd.DataFrame(
        {
            "cells": g.size(),
            "pass": g["pass"].sum(),
            "cov_min": g[["cov_null", "cov_shift"]].min().min(axis=1),
            "cov_max": g[["cov_null", "cov_shift"]].max().max(axis=1),
            "width_max": g["width_ratio"].max(),
            "power_ratio_min": g["power_ratio"].min(),
        }
    )
