"""The template budget: how many prompt templates T, questions N and runs K to pay for.

A crossed design (every question under every template, K runs per cell) estimates a model's
accuracy over the template population (templates a random draw,
:mod:`bayesnoise.frequentist.crossed`) with

    SE^2 = s2_q / N + s2_t / T + s2_qt / (N T) + s2_e / (N T K),

the balanced case of :func:`bayesnoise.frequentist.crossed.crossed_fit`'s parts (s2_t: the
template variance, or the model x template interaction for a pair's difference), with the same
truncation: the question, question x template and sampling parts together at >= 0, a negative
template estimate counted as 0. Its degrees of freedom are Satterthwaite's from the expected
mean squares ``T s2_q + r``, ``N s2_t + r`` and ``r = s2_qt + s2_e / K`` (on N - 1, T - 1 and
(N - 1)(T - 1)), as ``crossed_fit`` computes them from the observed ones; at the pilot's own
balanced (N, T, K) both give the pilot's SE and df. The search counts a negative component estimate
as 0 (:func:`planning_components`): a variance is >= 0, and a negative estimate carried to
other designs (fewer questions, more templates) would promise SEs no design gives.

Cost model. Questions are written once and every template is a full pass over them:

    cost = cost_question N + cost_template T + cost_sample N T K

(``cost_question``: curating one question; ``cost_template``: writing and validating one
template; ``cost_sample``: one model answer, N T K of them per model). The template term
``s2_t / T`` does not shrink with N or K, so a target below ``sqrt(s2_t / T)`` needs more
templates whatever else is bought.

:func:`optimal_template_design` searches every whole T in ``2..max_templates`` and K in
``1..max_samples``; for each it takes the least N in ``2..max_questions`` that reaches the
target (the SE, or the power of a t test with the planned df for a ``difference``; both are
monotone in N, found by bisection) and returns the cheapest (T, K, N), the first on a tie
(fewer templates, then fewer runs).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from bayesnoise._common import check_alternative

__all__ = [
    "optimal_template_design",
    "planning_components",
    "questions_needed",
    "template_design_df",
    "template_design_se",
]

#: Largest N searched when no ``max_questions`` is given.
N_CAP = 10**7


def _parts(components, n, t, k):
    s2q, s2t, s2qt, s2e = (np.asarray(c, dtype=float) for c in components)
    n, t, k = (np.asarray(x, dtype=float) for x in (n, t, k))
    fixed = s2q / n + s2qt / (n * t) + np.where(np.isnan(s2e), 0.0, s2e) / (n * t * k)
    return np.maximum(fixed, 0.0), np.maximum(s2t, 0.0) / t


def planning_components(components) -> np.ndarray:
    """The components the search uses: each estimate clipped at 0 (NaN kept).

    Examples
    --------
    >>> planning_components([-0.01, 0.002, 0.03, float("nan")]).tolist()
    [0.0, 0.002, 0.03, nan]
    """
    c = np.asarray(components, dtype=float)
    return np.where(np.isnan(c), c, np.maximum(c, 0.0))


def template_design_se(components, n, t, k):
    """SE of the accuracy over the template population of a balanced design (module docs).

    Parameters
    ----------
    components : sequence of 4 floats or arrays
        (s2_q, s2_t, s2_qt, s2_e) as :func:`~bayesnoise.frequentist.crossed.crossed_fit`
        estimates them; s2_e NaN when the pilot had one run per cell (s2_qt then includes it).
    n, t, k : int or array_like
        Questions, templates, runs per cell (broadcast).

    Examples
    --------
    >>> round(float(template_design_se((0.04, 0.001, 0.02, 0.2), 100, 5, 2)), 6)
    0.028983
    """
    fixed, template = _parts(components, n, t, k)
    return np.sqrt(fixed + template)


def template_design_df(components, n, t, k):
    """Satterthwaite degrees of freedom of :func:`template_design_se`'s SE (module docs).

    Examples
    --------
    >>> round(float(template_design_df((0.04, 0.0, 0.02, 0.2), 100, 5, 2)), 3)  # no template part
    99.0
    """
    s2q, s2t, s2qt, s2e = (float(c) for c in components)
    n, t, k = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (n, t, k)))
    r = s2qt + (0.0 if np.isnan(s2e) else s2e) / k
    # mean squares with their coefficients in N T SE^2 and their df (crossed_fit's terms)
    if s2t > 0:
        terms = [(t * s2q + r, n - 1), (n * s2t + r, t - 1), (-r, (n - 1) * (t - 1))]
    else:  # the template part counted 0: the fixed-template SE, MS_Q alone (c_qt - k_q = 0)
        terms = [(t * s2q + r, n - 1)]
    num = sum(m for m, _ in terms) ** 2
    den = sum(m * m / d for m, d in terms)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, num / den, np.nan)
    return out if out.ndim else float(out)


def _power(difference, se, df, alpha, alternative):
    tail = alpha / 2 if check_alternative(alternative) == "two-sided" else alpha
    crit = stats.t.ppf(1 - tail, df)
    return stats.nct.sf(crit, df, difference / se)


def optimal_template_design(
    components,
    *,
    cost_question,
    cost_sample,
    cost_template,
    target_se=None,
    difference=None,
    power=0.8,
    alpha=0.05,
    alternative="two-sided",
    max_questions=None,
    max_templates=50,
    max_samples=100,
) -> dict:
    """The cost-optimal (N, T, K) for a target SE or a difference to detect (module docs).

    Parameters
    ----------
    components : sequence of 4 floats
        (s2_q, s2_t, s2_qt, s2_e), negative ones counted as 0; s2_e NaN: K is fixed at 1 (the
        pilot had one run per cell).
    cost_question, cost_sample, cost_template : float
        Costs (> 0): cost = cost_question N + cost_template T + cost_sample N T K.
    target_se, difference : float
        Exactly one: the SE to reach, or the difference a t test (Satterthwaite df, level
        ``alpha``) detects with probability ``power``.
    power, alpha : float
    alternative : {"two-sided", "greater", "less"}
    max_questions, max_templates, max_samples : int
        Largest N (default 10**7), T and K searched.

    Returns
    -------
    dict
        ``optimal_questions``, ``optimal_templates``, ``optimal_samples_per_question``,
        ``se_planned``, ``df_planned``, ``power_planned`` (NaN for a target SE),
        ``cost_planned``; NaN everywhere when no design in the grid reaches the target.

    Examples
    --------
    >>> d = optimal_template_design((0.04, 0.002, 0.02, 0.2), cost_question=5, cost_sample=0.1,
    ...                             cost_template=50, target_se=0.03)
    >>> d["optimal_templates"], bool(d["se_planned"] <= 0.03)
    (7, True)
    """
    if (target_se is None) == (difference is None):
        raise ValueError("give exactly one target: target_se or difference")
    for name, value in (
        ("cost_question", cost_question),
        ("cost_sample", cost_sample),
        ("cost_template", cost_template),
    ):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {value}")
    components = planning_components(components)
    s2e = float(components[3])
    k_max = 1 if np.isnan(s2e) else int(max_samples)
    n_max = N_CAP if max_questions is None else int(max_questions)
    ts, ks = np.meshgrid(
        np.arange(2, int(max_templates) + 1, dtype=float),
        np.arange(1, k_max + 1, dtype=float),
        indexing="ij",
    )
    ts, ks = ts.ravel(), ks.ravel()

    target = {"target_se": target_se, "difference": difference, "power": power}
    ok = _reaches(components, ts, ks, alpha=alpha, alternative=alternative, **target)

    n, feasible = _least_questions(ok, ts.shape, n_max)
    cost = cost_question * n + cost_template * ts + cost_sample * n * ts * ks
    cost = np.where(feasible, cost, np.inf)
    best = int(np.argmin(cost))
    if not np.isfinite(cost[best]):
        keys = ("optimal_questions", "optimal_templates", "optimal_samples_per_question")
        keys += ("se_planned", "df_planned", "power_planned", "cost_planned")
        return dict.fromkeys(keys, float("nan"))
    n_b, t_b, k_b = n[best], ts[best], ks[best]
    se = float(template_design_se(components, n_b, t_b, k_b))
    df = float(template_design_df(components, np.array([n_b]), np.array([t_b]), np.array([k_b]))[0])
    pw = (
        float("nan")
        if difference is None
        else float(_power(difference, se, df, alpha, alternative))
    )
    return {
        "optimal_questions": int(n_b),
        "optimal_templates": int(t_b),
        "optimal_samples_per_question": int(k_b),
        "se_planned": se,
        "df_planned": df,
        "power_planned": pw,
        "cost_planned": float(cost[best]),
    }


def _reaches(components, t, k, *, target_se, difference, power, alpha, alternative):
    """n -> whether the design (n, t, k) reaches the target."""

    def ok(n):
        se = template_design_se(components, n, t, k)
        if target_se is not None:
            return se <= target_se * (1 + 1e-12)
        df = template_design_df(components, n, t, k)
        return _power(difference, se, df, alpha, alternative) >= power

    return ok


def _least_questions(ok, shape, n_max):
    """Least whole n in [2, n_max] with ``ok(n)`` per grid point (bisection; ``ok`` is
    monotone in n), and whether one exists."""
    lo = np.full(shape, 2.0)
    hi = np.full(shape, float(n_max))
    feasible = np.asarray(ok(hi), dtype=bool)
    done = np.asarray(ok(lo), dtype=bool)
    hi = np.where(done, lo, hi)
    while True:  # ok(hi) holds; ok(lo) fails unless done
        open_ = feasible & ~done & (hi - lo > 1)
        if not open_.any():
            return hi, feasible
        mid = np.floor((lo + hi) / 2)
        good = np.asarray(ok(mid), dtype=bool)
        hi = np.where(open_ & good, mid, hi)
        lo = np.where(open_ & ~good, mid, lo)


def questions_needed(
    components,
    t,
    k,
    *,
    target_se=None,
    difference=None,
    power=0.8,
    alpha=0.05,
    alternative="two-sided",
    max_questions=None,
) -> float:
    """Least N reaching the target at fixed T and K (NaN when none up to ``max_questions``).

    Examples
    --------
    >>> questions_needed((0.04, 0.0, 0.02, 0.2), 5, 2, target_se=0.02)
    160.0
    """
    target = {"target_se": target_se, "difference": difference, "power": power}
    components = planning_components(components)
    t, k = np.array([float(t)]), np.array([float(k)])
    ok = _reaches(components, t, k, alpha=alpha, alternative=alternative, **target)
    n, feasible = _least_questions(ok, (1,), N_CAP if max_questions is None else max_questions)
    return float(n[0]) if feasible[0] else float("nan")
