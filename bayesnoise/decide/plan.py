"""The eval budget: how many questions N and samples per question K to pay for, and which
questions to resample next.

A paired difference averaged over K samples per question has per-question variance
``V(K) = data + prediction / K`` (``data`` and ``prediction``: the pair's variance components,
as in :func:`bayesnoise.frequentist.power_table`), so its SE over N questions is
``sqrt(V(K) / N)``. A question costs ``cost_question`` (curation) and each sample
``cost_sample`` (inference of every model compared on it), so the design costs
``N (cost_question + K cost_sample)``. For a target SE (or a difference to detect at a power,
which sets the SE: ``difference / (z_alpha + z_power)``), N = V(K) / SE^2 and the cost
``(cost_question + K cost_sample) (data + prediction / K) / SE^2`` is smallest at

    K* = sqrt(cost_question * prediction / (cost_sample * data)),

independent of the target. :func:`optimal_design` rounds it by searching every whole K up to
``max_samples`` with N rounded up (the exact optimum; K* is reported beside it, and the two
agree to integer rounding).

Adaptive K (:func:`resample_plan`): on the questions already asked, the prediction noise left
in the difference is ``sum_i (w_A,i / K_A,i + w_B,i / K_B,i) / N^2``, ``w_X,i`` the
per-sample variance ``u (1 - u)`` of model X on question i. One more sample of X on i removes
``w_X,i / (K (K + 1))``; the gains fall as K grows, so taking the largest gain one sample at a
time is the optimal allocation of a budget of samples. ``w`` is the posterior mean of
``u (1 - u)`` under each model's fitted Beta population (empirical Bayes,
:func:`bayesnoise.conjugate.fit_empirical_bayes`), defined also for questions with one sample.
"""

from __future__ import annotations

import heapq

import numpy as np
import pandas as pd
from scipy import special

from bayesnoise._common import check_alternative

__all__ = [
    "optimal_design",
    "question_prediction_variance",
    "resample_plan",
    "target_variance",
]

PLAN_COLUMNS = [
    "data",
    "prediction",
    "k_star",
    "optimal_questions",
    "optimal_samples_per_question",
    "se_planned",
    "power_planned",
    "cost_planned",
    "questions_k1",
    "cost_k1",
    "current_samples_per_question",
    "questions_current_k",
    "cost_current_k",
]
RESAMPLE_COLUMNS = [
    "priority",
    "question",
    "model",
    "samples_per_question",
    "extra_samples",
    "question_prediction_variance",
]


def _z(alpha, power, alternative):
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError("alpha and power must be in (0, 1)")
    tail = alpha / 2 if check_alternative(alternative) == "two-sided" else alpha
    return float(special.ndtri(1 - tail)), float(special.ndtri(power))


def target_variance(
    *, target_se=None, difference=None, power=0.8, alpha=0.05, alternative="two-sided"
) -> float:
    """The variance of the mean difference the plan must reach.

    ``target_se ** 2``, or ``(difference / (z_{1 - alpha/2} + z_power)) ** 2`` (the SE at which
    a true ``difference`` is detected with probability ``power``; ``z_{1 - alpha}`` one-sided),
    as in :func:`bayesnoise.frequentist.required_questions`.

    Examples
    --------
    >>> round(target_variance(target_se=0.01), 6)
    0.0001
    >>> round(target_variance(difference=0.028), 6)
    0.0001
    """
    if (target_se is None) == (difference is None):
        raise ValueError("give exactly one target: target_se or difference")
    if target_se is not None:
        if not target_se > 0:
            raise ValueError(f"target_se must be > 0, got {target_se}")
        return float(target_se) ** 2
    if not difference > 0:
        raise ValueError(f"difference must be > 0, got {difference}")
    za, zb = _z(alpha, power, alternative)
    return (float(difference) / (za + zb)) ** 2


def _questions(var, target):
    # N = V / SE^2 rounded up; the tiny shrink keeps an exact integer from rounding up on float
    # noise. At least 2 questions (a paired test needs a variance).
    return np.maximum(np.ceil(var / target * (1.0 - 1e-12)), 2.0)


def optimal_design(
    data,
    prediction,
    *,
    cost_question,
    cost_sample,
    target_se=None,
    difference=None,
    power=0.8,
    alpha=0.05,
    alternative="two-sided",
    current_samples=None,
    max_samples: int = 100,
    max_questions=None,
) -> pd.DataFrame:
    """The cost-optimal (N, K) for each pair's variance components (module docs).

    Parameters
    ----------
    data, prediction : float or array_like, shape (P,)
        Per-question data variance of the difference (clipped at 0) and prediction variance
        of one sample, as ``power_table`` reports them.
    cost_question, cost_sample : float
        Cost of a new question and of one sample of it (> 0, any currency).
    target_se, difference : float
        Exactly one: the SE to reach, or the difference to detect at ``power``.
    power, alpha : float
    alternative : {"two-sided", "greater", "less"}
    current_samples : float or array_like, optional
        K of the current design, for the comparison.
    max_samples : int, default 100
        Largest K searched.
    max_questions : int, optional
        Largest N available (e.g. the benchmark's size); designs needing more are skipped.

    Returns
    -------
    pandas.DataFrame
        ``PLAN_COLUMNS``: the inputs, ``k_star`` (continuous optimum), the exact optimum
        ``optimal_questions`` / ``optimal_samples_per_question`` with its ``se_planned``,
        ``power_planned`` (NaN for a target SE) and ``cost_planned``; N and cost at K = 1 and
        at the current K. NaN where no K up to ``max_samples`` fits ``max_questions``.

    Examples
    --------
    >>> t = optimal_design(0.02, 0.3, cost_question=10, cost_sample=1, target_se=0.01)
    >>> row = t.iloc[0]
    >>> round(float(row.k_star), 2), int(row.optimal_samples_per_question), int(row.optimal_questions)
    (12.25, 12, 450)
    >>> bool(row.cost_planned < row.cost_k1)
    True
    """
    for name, value in (("cost_question", cost_question), ("cost_sample", cost_sample)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {value}")
    if int(max_samples) < 1:
        raise ValueError(f"max_samples must be >= 1, got {max_samples}")
    target = target_variance(
        target_se=target_se,
        difference=difference,
        power=power,
        alpha=alpha,
        alternative=alternative,
    )
    data = np.maximum(np.atleast_1d(np.asarray(data, dtype=float)), 0.0)
    prediction = np.atleast_1d(np.asarray(prediction, dtype=float))
    data, prediction = np.broadcast_arrays(data, prediction)
    cq, cs = float(cost_question), float(cost_sample)
    with np.errstate(divide="ignore", invalid="ignore"):
        k_star = np.sqrt(cq * prediction / (cs * data))
    k_star = np.where(prediction <= 0, 0.0, k_star)
    ks = np.arange(1, int(max_samples) + 1, dtype=float)
    var = data[:, None] + prediction[:, None] / ks  # (P, K)
    n = _questions(var, target)
    cost = n * (cq + ks * cs)
    if max_questions is not None:
        cost = np.where(n <= float(max_questions), cost, np.inf)
    best = np.argmin(cost, axis=1)  # first minimum: the smaller K on a tie
    rows = np.arange(data.size)
    feasible = np.isfinite(cost[rows, best])
    n_opt = np.where(feasible, n[rows, best], np.nan)
    k_opt = np.where(feasible, ks[best], np.nan)
    se = np.sqrt((data + prediction / k_opt) / n_opt)
    out = pd.DataFrame(
        {
            "data": data,
            "prediction": prediction,
            "k_star": k_star,
            "optimal_questions": n_opt,
            "optimal_samples_per_question": k_opt,
            "se_planned": se,
        }
    )
    if difference is not None:
        za, _ = _z(alpha, power, alternative)
        out["power_planned"] = special.ndtr(float(difference) / se - za)
    else:
        out["power_planned"] = np.nan
    out["cost_planned"] = n_opt * (cq + k_opt * cs)
    n1 = _questions(data + prediction, target)
    out["questions_k1"], out["cost_k1"] = n1, n1 * (cq + cs)
    k_cur = np.broadcast_to(
        np.nan if current_samples is None else np.asarray(current_samples, float), data.shape
    )
    n_cur = _questions(data + prediction / k_cur, target)
    out["current_samples_per_question"] = k_cur
    out["questions_current_k"] = n_cur
    out["cost_current_k"] = n_cur * (cq + k_cur * cs)
    out.attrs.update({"target_se": float(np.sqrt(target)), "max_samples": int(max_samples)})
    return out[PLAN_COLUMNS]


def question_prediction_variance(correct, count, mu, kappa) -> np.ndarray:
    """Posterior mean of ``u (1 - u)`` per question under ``Beta(mu kappa, (1 - mu) kappa)``.

    With ``a = mu kappa + c`` and ``b = (1 - mu) kappa + K - c``:
    ``E[u (1 - u)] = a b / ((a + b) (a + b + 1))``.

    Examples
    --------
    >>> question_prediction_variance([[2]], [[4]], [0.5], [2.0]).round(4).tolist()
    [[0.2143]]
    """
    c, k = np.asarray(correct, float), np.asarray(count, float)
    mu, kappa = np.asarray(mu, float)[..., None], np.asarray(kappa, float)[..., None]
    a = mu * kappa + c
    b = (1.0 - mu) * kappa + k - c
    return a * b / ((a + b) * (a + b + 1.0))


def resample_plan(correct, count, budget: int, *, models=("a", "b"), questions=None):
    """Which questions to resample next, and how often, to shrink the pair's SE fastest.

    Parameters
    ----------
    correct, count : array_like, shape (2, N)
        Pilot counts of the two models on the same N questions (whole numbers correct out
        of K >= 1).
    budget : int
        Extra samples to allocate (over both models).
    models : (str, str)
    questions : sequence of str, optional
        Question ids (default ``q0, q1, ...``).

    Returns
    -------
    pandas.DataFrame
        ``RESAMPLE_COLUMNS``, one row per (question, model) that gets extra samples, in the
        order of the first extra sample each got (``priority`` 1 first); attrs
        ``se_prediction_before`` / ``_after``: the prediction-noise SE of the difference on
        these questions, ``sqrt(sum_i (w_A,i / K_A,i + w_B,i / K_B,i)) / N``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(0.5, 0.5, size=200)
    >>> c = np.stack([rng.binomial(4, u), rng.binomial(4, np.clip(u + 0.05, 0, 1))])
    >>> plan = resample_plan(c, np.full(c.shape, 4), 100)
    >>> int(plan["extra_samples"].sum()), bool(plan.attrs["se_prediction_after"] < plan.attrs["se_prediction_before"])
    (100, True)
    """
    from bayesnoise.conjugate import fit_empirical_bayes

    c, k = np.asarray(correct, float), np.asarray(count, float)
    if c.shape != k.shape or c.ndim != 2 or c.shape[0] != 2:
        raise ValueError("correct and count must both be (2, N): two models on N questions")
    if np.any(k < 1):
        raise ValueError("every question needs at least one sample of both models")
    if int(budget) < 1:
        raise ValueError(f"budget must be a whole number >= 1, got {budget}")
    n = c.shape[1]
    names = [f"q{i}" for i in range(n)] if questions is None else [str(q) for q in questions]
    fit = fit_empirical_bayes(c, k, warn=False)
    w = question_prediction_variance(c, k, fit.mu, fit.kappa)
    extra = np.zeros(c.shape, dtype=np.int64)
    first = {}
    heap = [(-w[m, i] / (k[m, i] * (k[m, i] + 1.0)), m, i) for m in range(2) for i in range(n)]
    heapq.heapify(heap)
    for step in range(int(budget)):
        _, m, i = heapq.heappop(heap)
        extra[m, i] += 1
        first.setdefault((m, i), step)
        kk = k[m, i] + extra[m, i]
        heapq.heappush(heap, (-w[m, i] / (kk * (kk + 1.0)), m, i))
    order = sorted(first, key=first.get)
    out = pd.DataFrame(
        {
            "priority": np.arange(1, len(order) + 1),
            "question": [names[i] for _, i in order],
            "model": [str(models[m]) for m, _ in order],
            "samples_per_question": [int(k[m, i]) for m, i in order],
            "extra_samples": [int(extra[m, i]) for m, i in order],
            "question_prediction_variance": [float(w[m, i]) for m, i in order],
        }
    )
    out.attrs["se_prediction_before"] = float(np.sqrt((w / k).sum()) / n)
    out.attrs["se_prediction_after"] = float(np.sqrt((w / (k + extra)).sum()) / n)
    return out[RESAMPLE_COLUMNS]
