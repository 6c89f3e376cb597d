"""Confidence intervals for a model's accuracy and a pair's difference, on the population of
questions or on these questions (score-type intervals and Wald, from the noise components).

For one plain binomial proportion use statsmodels' ``proportion_confint`` or scipy's
``binomtest(...).proportion_ci``.
"""

from __future__ import annotations

import numpy as np

from bayesnoise._common import new_spellings, reject_old, z_from_level
from bayesnoise.frequentist import _score

ACCURACY_METHODS = ("wilson", "wald")
DIFFERENCE_METHODS = ("tango", "t", "union", "newcombe", "wald")
HERE_DIFFERENCE_METHODS = ("newcombe", "wald")


def _check(method: str, allowed: tuple[str, ...]) -> None:
    if method not in allowed:
        raise ValueError(f"method must be one of {allowed}, got {method!r}")


def _out(low, high):
    return np.asarray(low, dtype=float)[()], np.asarray(high, dtype=float)[()]


def _wald(estimate, var_per_question, n_questions, z, bound):
    half = z * np.sqrt(np.maximum(var_per_question, 0.0) / n_questions)
    return np.clip(estimate - half, bound, 1.0), np.clip(estimate + half, bound, 1.0)


def _score_accuracy(accuracy, var_per_question, n_questions, z, *, fallback, cap=None, floor=None):
    """Wilson interval at n_eff = N acc (1 - acc) / var_per_question (``fallback`` if undefined)."""
    accuracy = np.asarray(accuracy, dtype=float)
    n_eff = _score.effective_n(
        accuracy * (1.0 - accuracy),
        var_per_question,
        n_questions,
        fallback=fallback,
        cap=cap,
        floor=floor,
    )
    return _score.wilson(accuracy, n_eff, z)


@new_spellings
def accuracy_interval(
    accuracy,
    var_mean,
    n_questions,
    *,
    samples_per_question=None,
    confidence_level: float = 0.95,
    method: str = "wilson",
    **old,
):
    """Interval for a model's accuracy on the *population* of questions (data + prediction noise).

    ``wilson`` (default): a score interval, the set of population means m that a score test
    accepts, N (acc - m)^2 <= z^2 v(m), under either of two models of how the per-question
    variance v(m) changes with the hypothesised mean m: (a) in proportion to m (1 - m), as under
    a Beta population of question difficulties with a fixed concentration (the Wilson interval at
    the effective number of questions n_eff = N acc (1 - acc) / var_mean, clipped to [N, N K],
    K = ``samples_per_question``; n_eff = N where undefined); (b) with the prediction noise held
    at its observed value, v(m) = m (1 - m) - c with c = acc (1 - acc) - var_mean. Both agree at
    m = acc. Model (a) alone under-covers when N is small and the accuracy lopsided (0.75-0.89 at
    N = 30, K = 5-20, accuracy 0.05 or 0.9: the few questions a model sometimes solves are then
    often not sampled, var_mean is underestimated and the upper end falls short); (b) errs the
    other way on the side away from 1/2. Their union covers 0.94-0.98 over Beta, logit-normal,
    mixture and two-point difficulties at N = 30-100, K = 5-20. With one 0/1 sample per question
    both are exactly the Wilson interval. Never outside [0, 1], never of zero width. ``wald``:
    accuracy +- z sqrt(var_mean / N), clipped to [0, 1] (poor coverage at small N or extreme
    accuracy; kept for comparison).

    Parameters
    ----------
    accuracy : array_like
        Observed accuracy: mean over the N questions of the K-averaged per-question scores p_i,
        each score in [0, 1].
    var_mean : array_like
        Per-question variance: var_i(p_i) over the questions (ddof 0), not a squared SE.
    n_questions : array_like
        N, the number of questions.
    samples_per_question : array_like, optional
        Mean K over the questions; caps n_eff at the total number of samples N K. No cap if None.
    confidence_level : float, default 0.95
    method : {"wilson", "wald"}

    Returns
    -------
    low, high : numpy.ndarray (0-d arrays become floats)

    Examples
    --------
    One 0/1 sample per question: the Wilson interval of 7 right out of 20.

    >>> low, high = accuracy_interval(0.35, 0.35 * 0.65, 20)
    >>> round(float(low), 4), round(float(high), 4)
    (0.1812, 0.5671)

    A model that got every question wrong still gets an interval of positive width.

    >>> low, high = accuracy_interval(0.0, 0.0, 30)
    >>> float(low), round(float(high), 4)
    (0.0, 0.1135)
    """
    reject_old("accuracy_interval", old)
    _check(method, ACCURACY_METHODS)
    z = z_from_level(confidence_level)
    n = np.asarray(n_questions, dtype=float)
    if method == "wald":
        return _out(*_wald(np.asarray(accuracy, float), np.asarray(var_mean, float), n, z, 0.0))
    cap = None if samples_per_question is None else n * np.asarray(samples_per_question, float)
    low, high = _score_accuracy(accuracy, var_mean, n, z, fallback=n, cap=cap, floor=n)
    held_low, held_high = _score.held_excess_score(accuracy, var_mean, n, z)
    return _out(np.minimum(low, held_low), np.maximum(high, held_high))


def here_accuracy_interval(
    accuracy,
    var_here,
    n_questions,
    harmonic_k,
    *,
    confidence_level: float = 0.95,
    method: str = "wilson",
):
    """Interval for a model's expected accuracy on *these* questions (prediction noise only).

    The target is ubar = mean_i u_i, u_i the probability of a right answer on question i. Its
    estimate, the accuracy, has variance sum_i u_i (1 - u_i) / K_i / N^2, estimated without bias
    by ``var_here / N`` with var_here = mean_i what_i / K_i and what_i = w_i K_i / (K_i - 1)
    (w_i the within-question variance of the K_i samples, ddof 0), which handles questions with
    different K exactly. ``wilson`` (default): the Wilson interval at n_eff = acc (1 - acc) N /
    var_here. When ``var_here`` is zero up to rounding (every question all right or all wrong)
    it falls back to the binomial-equivalent n = N K_h, K_h = N / sum_i (1 / K_i) the harmonic
    mean of the K_i, rather than a zero width. ``wald``: accuracy +- z sqrt(var_here / N).
    With K_i = 1 somewhere the prediction noise is not measured: pass NaN, get NaN.

    Parameters
    ----------
    accuracy : array_like
        Mean over questions of the K-averaged scores, each score in [0, 1].
    var_here : array_like
        Per-question units: mean_i w_i / (K_i - 1), so that ``var_here / N`` is the estimated
        variance of the accuracy around ubar. NaN where some K_i < 2.
    n_questions : array_like
        N.
    harmonic_k : array_like
        Harmonic mean of the K_i, N / sum_i (1 / K_i).
    confidence_level : float, default 0.95
    method : {"wilson", "wald"}

    Returns
    -------
    low, high : numpy.ndarray (0-d arrays become floats)

    Examples
    --------
    >>> low, high = here_accuracy_interval(0.5, 0.01, 100, 10)
    >>> round(float(low), 3), round(float(high), 3)
    (0.48, 0.52)
    >>> low, high = here_accuracy_interval(1.0, 0.0, 100, 10)  # all right: n = N K = 1000
    >>> round(float(low), 4), float(high)
    (0.9962, 1.0)
    """
    _check(method, ACCURACY_METHODS)
    z = z_from_level(confidence_level)
    n = np.asarray(n_questions, dtype=float)
    var_here = np.asarray(var_here, dtype=float)
    if method == "wald":
        return _out(*_wald(np.asarray(accuracy, float), var_here, n, z, 0.0))
    fallback = n * np.asarray(harmonic_k, dtype=float)
    return _out(*_score_accuracy(accuracy, var_here, n, z, fallback=fallback))


def _pair_moments(accuracy_a, accuracy_b, var_a, var_b, var_difference):
    a, b = np.asarray(accuracy_a, float), np.asarray(accuracy_b, float)
    va, vb, vd = (np.asarray(v, float) for v in (var_a, var_b, var_difference))
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = (va + vb - vd) / (2.0 * np.sqrt(va * vb))
    undefined = ~np.isfinite(phi) | _score.is_zero_variance(va) | _score.is_zero_variance(vb)
    phi = np.where(undefined, 0.0, np.clip(phi, -1.0, 1.0))
    return a, b, va, vb, vd, phi


@new_spellings
def difference_interval(
    accuracy_a,
    accuracy_b,
    var_a,
    var_b,
    var_difference,
    n_questions,
    *,
    samples_per_question=None,
    confidence_level: float = 0.95,
    method: str = "tango",
    **old,
):
    """Interval for the paired difference of two models' *population* accuracies (a - b).

    The per-question differences d_i = p_ai - p_bi lie in [-1, 1] and dbar = acc_a - acc_b.
    ``tango`` (default): Tango's score interval for a paired 2 x 2 table, applied to the
    effective table with discordance q = mean_i [p_ai (1 - p_bi) + p_bi (1 - p_ai)]
    = acc_a (1 - acc_b) + acc_b (1 - acc_a) - var_a - var_b + var_difference (the share of
    discordant sample pairs), b = n_eff (q + dbar) / 2 and c = n_eff (q - dbar) / 2 discordant
    counts and n_eff = N (q - dbar^2) / var_difference. Since ``|d_i| <= p_ai (1 - p_bi) +
    p_bi (1 - p_ai)``, var(d) <= q - dbar^2 and n_eff >= N; it is clipped to [N, N K] and is N where
    undefined (var_difference zero up to rounding). With one 0/1 sample per question n_eff = N,
    q is the share of discordant questions and this *is* Tango's interval. Its variance is
    evaluated under each candidate difference, so it does not collapse when few questions differ
    (two identical models on N questions get +- z^2 / (N + z^2)), and it is asymmetric where the
    differences are skewed; where they are not it is the Wald interval with the ddof-0 SE.

    Calibration (``studies/popdiff.py``, 400 replicates per cell, Monte Carlo SE 0.011; beta,
    two-point, three-component mixture and 2PL item-response difficulties, N = 30-2000, K = 1,
    5, 20, accuracy 0.05-0.95, a null and a shift): coverage within 2 MCSE of [0.93, 0.97] in 171
    of the 176 cells with N >= 30 and K >= 5 or N >= 100, median width 0.95-1.26 x the paired t
    interval's, power >= 0.87 x the t test's (the paired t interval itself: 165 cells). Not
    calibrated, and not fixable at a width near the t interval's: a population difference
    carried by rare questions that one model solves and the other does not (two-point
    difficulties, K = 20, accuracy 0.05 or 0.95: 0.75-0.83 at N = 30, 0.88 at N = 100; accuracy
    0.9 with a small shift, the ``studies.grid`` cell: 0.887; the paired t interval covers
    0.69-0.89 in the same cells). A small sample usually holds none of the decisive questions,
    so the data look like a null. The union with
    a second Tango interval that holds the prediction noise at its observed value
    (``method="union"``, the former default) covers those cells (0.97-1.00) but costs
    1.4-4.3 x the t width there, 1.3-2.7 x in the other lopsided (accuracy 0.05, 0.9, 0.95)
    N = 30 cells, where it over-covers (up to 0.998) and loses up to 78% of the power, and
    1.1-1.4 x at N = 100 (140 of the 176 cells meet the acceptance with it);
    the effective number of differing questions S2^2 / S4 (about 2.5-3.5 in the cells that
    need it, 2.4-6 in those that do not) cannot tell the two apart, so the union is not
    applied by default anywhere. Null coverage over 0.97 at N = 30 and accuracy 0.05 or 0.95
    (0.97-0.99, the paired t interval's too) is the discreteness of a handful of differing
    questions.

    ``t``: the paired t interval dbar +- t_{N-1} sqrt(var_difference / (N - 1)) (that of
    ``scipy.stats.ttest_rel``, the test behind ``pairs``' p_value), clipped to [-1, 1]; it has
    zero width when the two models agree on every question. ``union``: the ``tango`` interval
    widened to the held-prediction-noise Tango interval (see above).
    ``newcombe``: Newcombe's hybrid score interval (method 10) from the two marginal Wilson
    intervals of :func:`accuracy_interval` and the correlation of the K-averaged scores
    phi = (var_a + var_b - var_difference) / (2 sqrt(var_a var_b)) (0 where undefined), widened
    where needed to the ``tango`` interval: alone it collapses when phi is near 1 (two models that
    differ on 2 of 200 questions). ``wald``: dbar +- z sqrt(var_difference / N). All clipped to
    [-1, 1].

    Parameters
    ----------
    accuracy_a, accuracy_b : array_like
        Observed accuracies on the same N questions (scores in [0, 1]).
    var_a, var_b, var_difference : array_like
        Per-question variances (ddof 0, not squared SEs) of the K-averaged scores p_ai, p_bi and of
        their difference p_ai - p_bi.
    n_questions : array_like
        N.
    samples_per_question : array_like, optional
        Caps n_eff at N K (use the smaller of the two models' mean K). No cap if None.
    confidence_level : float, default 0.95
    method : {"tango", "t", "union", "newcombe", "wald"}

    Returns
    -------
    low, high : numpy.ndarray (0-d arrays become floats)

    Examples
    --------
    Two models that differ on 2 of 200 questions (one 0/1 sample each): a is right on both.

    >>> dbar, var_d = 0.01, 0.01 - 0.01**2
    >>> low, high = difference_interval(0.51, 0.50, 0.51 * 0.49, 0.25, var_d, 200)
    >>> round(float(low), 4), round(float(high), 4)
    (-0.009, 0.0357)

    Two models that are both wrong everywhere are not known to be equal:

    >>> low, high = difference_interval(0.0, 0.0, 0.0, 0.0, 0.0, 200)
    >>> round(float(low), 4), round(float(high), 4)
    (-0.0188, 0.0188)

    The ``t`` form is the paired t interval:

    >>> from scipy import stats
    >>> a, b = np.array([1.0, 0.5, 0.75, 1.0, 0.25]), np.array([0.5, 0.5, 0.25, 1.0, 0.0])
    >>> low, high = difference_interval(a.mean(), b.mean(), a.var(), b.var(), (a - b).var(), 5,
    ...                                 method="t")
    >>> ci = stats.ttest_rel(a, b).confidence_interval()
    >>> bool(np.allclose([low, high], [ci.low, ci.high]))
    True
    """
    reject_old("difference_interval", old)
    _check(method, DIFFERENCE_METHODS)
    z = z_from_level(confidence_level)
    n = np.asarray(n_questions, dtype=float)
    a, b, va, vb, vd, phi = _pair_moments(accuracy_a, accuracy_b, var_a, var_b, var_difference)
    d = a - b
    if method == "wald":
        return _out(*_wald(d, vd, n, z, -1.0))
    if method == "t":
        with np.errstate(invalid="ignore", divide="ignore"):
            half = _score.t_quantile(confidence_level, n - 1.0) * np.sqrt(
                np.maximum(vd, 0.0) / (n - 1.0)
            )
        return _out(np.clip(d - half, -1.0, 1.0), np.clip(d + half, -1.0, 1.0))
    cap = None if samples_per_question is None else n * np.asarray(samples_per_question, float)
    q = np.clip(a * (1 - b) + b * (1 - a) - va - vb + vd, np.abs(d), 1.0)
    n_eff = _score.effective_n(q - d * d, vd, n, fallback=n, cap=cap, floor=n)
    low, high = _score.tango(n_eff * (q + d) / 2, n_eff * (q - d) / 2, n_eff, z)
    if method == "union":  # with the score interval that holds the prediction noise fixed
        excess = np.clip(q - d * d - np.maximum(vd, 0.0), 0.0, None)
        held_low, held_high = _score.tango(n * (q + d) / 2, n * (q - d) / 2, n, z, excess=excess)
        low, high = np.minimum(low, held_low), np.maximum(high, held_high)
    if method == "newcombe":
        la, ua = _score_accuracy(a, va, n, z, fallback=n, cap=cap, floor=n)
        lb, ub = _score_accuracy(b, vb, n, z, fallback=n, cap=cap, floor=n)
        n_low, n_high = _score.newcombe(a, la, ua, b, lb, ub, phi)
        low, high = np.minimum(low, n_low), np.maximum(high, n_high)
    return _out(low, high)


def here_difference_interval(
    accuracy_a,
    accuracy_b,
    var_here_a,
    var_here_b,
    n_questions,
    harmonic_k_a,
    harmonic_k_b,
    *,
    confidence_level: float = 0.95,
    method: str = "newcombe",
):
    """Interval for the difference of two models' expected accuracies on *these* questions.

    Given the questions, the prediction noises of two models are independent, so the
    correlation is 0. ``newcombe`` (default): Newcombe's square-and-add combination of the two
    marginal intervals of :func:`here_accuracy_interval`,
    [dbar - sqrt((a - l_a)^2 + (u_b - b)^2), dbar + sqrt((u_a - a)^2 + (b - l_b)^2)].
    ``wald``: dbar +- z sqrt((var_here_a + var_here_b) / N). NaN when either model has K_i = 1.

    Parameters
    ----------
    accuracy_a, accuracy_b : array_like
        Observed accuracies on the same N questions (scores in [0, 1]).
    var_here_a, var_here_b : array_like
        Per-question units, mean_i w_i / (K_i - 1) for each model (see
        :func:`here_accuracy_interval`).
    n_questions : array_like
        N.
    harmonic_k_a, harmonic_k_b : array_like
        Harmonic mean of each model's K_i.
    confidence_level : float, default 0.95
    method : {"newcombe", "wald"}

    Returns
    -------
    low, high : numpy.ndarray (0-d arrays become floats)

    Examples
    --------
    >>> low, high = here_difference_interval(0.6, 0.5, 0.01, 0.01, 100, 10, 10)
    >>> round(float(low), 3), round(float(high), 3)
    (0.072, 0.128)
    """
    _check(method, HERE_DIFFERENCE_METHODS)
    z = z_from_level(confidence_level)
    n = np.asarray(n_questions, dtype=float)
    a, b = np.asarray(accuracy_a, float), np.asarray(accuracy_b, float)
    if method == "wald":
        var = np.asarray(var_here_a, float) + np.asarray(var_here_b, float)
        return _out(*_wald(a - b, var, n, z, -1.0))
    kw = {"confidence_level": confidence_level}
    la, ua = here_accuracy_interval(a, var_here_a, n, harmonic_k_a, **kw)
    lb, ub = here_accuracy_interval(b, var_here_b, n, harmonic_k_b, **kw)
    return _out(*_score.newcombe(a, la, ua, b, lb, ub, 0.0))
