"""Crossed designs: question x template cells with runs as replicates (numpy/scipy only).

One model (or one pair's differences) gives, per question q and template t, a cell mean
``y_qt`` over its ``K_qt`` runs. The random-effects model is

    y_qt = mu + u_q + v_t + w_qt + e_qt,   Var u = s2_q, Var v = s2_t, Var w = s2_qt,
    Var e_qt = s2_e / K_qt                 (s2_e: variance of one run's score in a cell)

with every effect independent. For 0/1 scores the components are those of the functional
ANOVA (Hoeffding) decomposition of the expected score ``f(u, v, w)``: s2_q = Var E[f | u],
s2_t = Var E[f | v], s2_qt the rest of Var f, s2_e = E[f (1 - f)]; the expected mean squares
below hold for them exactly, so no normality is needed for unbiasedness.

Estimators (all unbiased, negative values kept; an interval truncates at 0):

* within-cell variance: per cell ``v_c = (sum_sq - correct^2 / K) / (K - 1)`` (the paper's
  small-K correction, eq. 23), so ``eta_c = v_c / K_c`` estimates ``Var e_c`` cell by cell;
  with a cell of one run the split of s2_qt and s2_e is not identified, and only their sum is
  reported (``split=False``);
* balanced designs (every cell present): ANOVA mean squares, E[MS_Q] = T s2_q + s2_qt + s2_e/K,
  E[MS_T] = N s2_t + s2_qt + s2_e/K, E[MS_QT] = s2_qt + s2_e/K;
* unbalanced designs (missing cells, ragged K): the U-statistic moments of Gao and Owen (2017,
  "Efficient moment calculations for variance components in large unbalanced crossed random
  effects models"): sums of squared differences of pairs of cells in the same question, in
  the same template and over all pairs, each with a known linear expectation in the
  components; for a balanced design they are an invertible map of the three mean squares and
  give the ANOVA estimates. REML (statsmodels MixedLM) keeps variances >= 0 and is biased
  upward where the unbiased estimate is often negative, as s2_t is with 3 templates: N = 40,
  T = 3, 20% missing, s2_t = 0.003: REML mean 0.00392 (z = +4.2 over 500 replicates), these
  moments 0.00301, at 0.3 ms per fit against 122 ms (``studies/noises_reml.py``).

The estimate of the accuracy is linear in the cells, ``theta = sum_c a_c y_c``: with every cell
present the grand mean; with cells missing the additive least-squares fit (question +
template) averaged over all N x T cells (:func:`additive_weights`), which fills a missing cell
from its question's and template's effects. Where cells go missing more often for hard
questions, the mean of the template means over the cells that remain is biased upward (it
weights the easy questions more): N = 200, T = 4, K = 1, 30% missing, R = 400, the probability
of a missing cell rising with the question's difficulty: bias +0.047 / +0.053 (two models;
mean of template means), +0.000 / +0.005 (per question first), +0.000 / +0.005 (additive);
rising with the cell's own difficulty: +0.048, +0.015, +0.009; at random +0.003 for all
three, with the same spread within 3% (``studies/crossed_edges.py``,
benchmarks/results/crossed_edges.md). :func:`missingness_test` is the diagnosis the verbs warn on. Its variance has one part
per component: ``c_q s2_q + c_t s2_t + c_qt s2_qt + sum_c a_c^2 eta_c`` with
``c_q = sum_q (sum_t a_qt)^2``, ``c_t = sum_t (sum_q a_qt)^2``, ``c_qt = sum_c a_c^2``.
Over the template population (templates a random draw) all four count; over these templates
(fixed) the template part drops out. Degrees of freedom: Satterthwaite's, from the mean
squares (balanced) or the mean squares the estimates imply (unbalanced), so that 3 templates
give about 2 degrees of freedom where the template part dominates, not N T K.

Few templates (``CrossedFit.fallback``): the template part rests on T - 1 degrees of freedom
and its estimate is often at or below 0 (37% of data sets at T = 2). Counting it as 0 with the
questions' N - 1 degrees of freedom, or Satterthwaite's on the untruncated sum (which run
below 1), covered 0.86-0.88 (accuracy) and 0.47-0.69 (A - B) at T = 2. So:

* T = 2: the SE with a template part below 0 counted as 0, on T - 1 = 1 degree of freedom,
  whatever the estimate (coverage 0.995-1.000 at T = 2 in the study; the interval is wide,
  as two templates allow: at N = 100 the whole of [0, 1] in half the data sets);
* T >= 3 and the template component at or below 0: that SE, with Satterthwaite's degrees of
  freedom computed as if the template mean square were at its expectation with s2_t = 0, on
  its T - 1 degrees of freedom (the sum keeps the template term's few degrees of freedom):
  coverage 0.93 -> 0.95-0.97 (a model, T = 3), 0.93-0.95 -> 0.98-0.99 (A - B, T = 3 and 5);
* the verbs clip the ends to the score's range ([0, 1], a difference [-1, 1]) and say so.

Edges (each said by the verbs in one warning line, docs/warnings.md):

* one template (T = 1): s2_q, s2_t and s2_qt are not identified; the accuracy over this
  template keeps its SE, the sample variance of the N cell means over N (unbiased for
  (s2_q + s2_qt) / N + mean eta / N, N - 1 df); the template-population SE is NaN;
* an SE estimate of 0 (every cell equal, or the question means equal in a balanced design),
  within rounding: SE 0, no degrees of freedom (NaN), a zero-width interval, p-value NaN;
* an SE estimate below 0 (the moments of an unbalanced design cancel), or Satterthwaite
  degrees of freedom below 1 (mean squares that nearly cancel): SE and interval NaN rather
  than a zero-width or ~1e20-wide interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "CrossedFit",
    "additive_weights",
    "anova_mean_squares",
    "cell_means",
    "crossed_fit",
    "missingness_test",
    "moment_components",
    "satterthwaite_df",
]


@dataclass(frozen=True)
class CrossedFit:
    """Variance components of a question x template design and the accuracy's SE.

    ``components``: unbiased (s2_q, s2_t, s2_qt, s2_e); with ``split=False`` the third is
    s2_qt + s2_e (one run per cell) and the fourth NaN. ``parts_random`` /
    ``parts_fixed``: each component's share of Var(estimate) (unbiased; the fixed one has 0
    for the template). ``se_*`` and ``df_*`` are what the intervals use (a negative template
    part truncated at 0; SE 0 with df NaN when the variance estimate is 0, both NaN when it is
    negative; with one template the template-population ones are NaN: module docs, "Edges").
    ``fallback``: why the template-population SE and df are not the plain Satterthwaite ones
    (:data:`FALLBACK_TWO_LEVELS`, :data:`FALLBACK_NOT_POSITIVE`, or ""); ``p_value_missing``:
    :func:`missingness_test` of the cells (NaN when none or evenly missing)."""

    estimate: float
    components: np.ndarray
    split: bool
    parts_random: np.ndarray
    parts_fixed: np.ndarray
    se_random: float
    se_fixed: float
    df_random: float
    df_fixed: float
    n_questions: int
    n_templates: int
    n_cells: int
    mean_runs: float
    balanced: bool
    fallback: str = ""
    p_value_missing: float = float("nan")

    def interval(
        self, confidence_level: float, *, fixed: bool = False, bounds=None
    ) -> tuple[float, float]:
        """t interval with the Satterthwaite degrees of freedom: ``(estimate, estimate)`` when
        the SE is 0, NaN when the SE is NaN or the degrees of freedom are below 1; ends
        clipped to ``bounds`` (the score's range: (0, 1) for an accuracy, (-1, 1) for a
        difference) when given (:meth:`clipped` says whether they were)."""
        se, df = (self.se_fixed, self.df_fixed) if fixed else (self.se_random, self.df_random)
        if se == 0:
            return self.estimate, self.estimate
        if not (se > 0 and df >= 1):
            return float("nan"), float("nan")
        half = stats.t.ppf(0.5 + confidence_level / 2, df) * se
        low, high = self.estimate - half, self.estimate + half
        if bounds is not None:
            low, high = max(low, bounds[0]), min(high, bounds[1])
        return low, high

    def clipped(self, confidence_level: float, bounds, *, fixed: bool = False) -> bool:
        """Whether :meth:`interval` at ``confidence_level`` reaches outside ``bounds``."""
        low, high = self.interval(confidence_level, fixed=fixed)
        return bool(low < bounds[0] or high > bounds[1])

    def p_value(self, *, fixed: bool = False) -> float:
        """Two-sided t test of ``estimate == 0`` (for a paired difference); NaN when the SE is
        0 or NaN or the degrees of freedom are below 1."""
        se, df = (self.se_fixed, self.df_fixed) if fixed else (self.se_random, self.df_random)
        if not (se > 0 and df >= 1):
            return float("nan")
        return float(2 * stats.t.sf(abs(self.estimate) / se, df))


def cell_means(correct, samples, sum_sq) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Cell means ``y``, the unbiased variance of each cell mean ``eta`` (None when a present
    cell has one run) and the mask of present cells, from ``(N, T)`` sums.

    Examples
    --------
    >>> y, eta, obs = cell_means([[1, 2]], [[2, 2]], [[1, 2]])
    >>> y.tolist(), eta.tolist(), obs.tolist()
    ([[0.5, 1.0]], [[0.25, 0.0]], [[True, True]])
    """
    c = np.asarray(correct, dtype=float)
    k = np.asarray(samples, dtype=float)
    sq = np.asarray(sum_sq, dtype=float)
    observed = k > 0
    safe = np.where(observed, k, 1.0)
    y = np.where(observed, c / safe, 0.0)
    if np.any(k[observed] < 2):
        return y, None, observed
    within = np.where(observed, (sq - c * c / safe) / np.maximum(safe - 1, 1), 0.0)
    return y, np.maximum(within, 0.0) / safe, observed


def anova_mean_squares(y) -> tuple[float, float, float]:
    """Mean squares (MS_Q, MS_T, MS_QT) of a complete ``(N, T)`` table of cell means.

    Examples
    --------
    >>> anova_mean_squares([[0.0, 1.0], [1.0, 1.0]])
    (0.25, 0.25, 0.25)
    """
    y = np.asarray(y, dtype=float)
    n, t = y.shape
    grand = y.mean()
    rows, cols = y.mean(axis=1), y.mean(axis=0)
    ms_q = t * np.sum((rows - grand) ** 2) / (n - 1)
    ms_t = n * np.sum((cols - grand) ** 2) / (t - 1)
    resid = y - rows[:, None] - cols[None, :] + grand
    ms_qt = np.sum(resid**2) / ((n - 1) * (t - 1))
    return float(ms_q), float(ms_t), float(ms_qt)


def moment_components(y, eta, observed) -> np.ndarray:
    """Unbiased (s2_q, s2_t, s2_qt) from the pairwise U-statistics (any pattern of cells).

    ``eta`` (cell-mean variances) may be None: the third value is then s2_qt + s2_e.

    Examples
    --------
    >>> s2 = moment_components([[0.0, 1.0], [1.0, 1.0]], None, [[True, True], [True, True]])
    >>> (s2.round(12) + 0.0).tolist()  # the ANOVA values of anova_mean_squares' example
    [0.0, 0.0, 0.25]
    """
    obs = np.asarray(observed, dtype=bool)
    y = np.where(obs, np.asarray(y, dtype=float), 0.0)
    e = np.zeros_like(y) if eta is None else np.where(obs, np.asarray(eta, dtype=float), 0.0)
    n_q, n_t, n = obs.sum(axis=1), obs.sum(axis=0), obs.sum()

    def u_stat(counts, sums, squares, etas):
        # sum over unordered pairs of (y - y')^2 within each group, and the eta part
        u = np.sum(counts * squares - sums**2)
        return u - np.sum((counts - 1) * etas), np.sum(counts * (counts - 1)) / 2

    u_row, p_row = u_stat(n_q, y.sum(1), (y * y).sum(1), e.sum(1))
    u_col, p_col = u_stat(n_t, y.sum(0), (y * y).sum(0), e.sum(0))
    u_all, p_all = u_stat(
        np.array([n]), np.array([y.sum()]), np.array([(y * y).sum()]), np.array([e.sum()])
    )
    a = 2 * np.array(
        [
            [0.0, p_row, p_row],
            [p_col, 0.0, p_col],
            [p_all - p_row, p_all - p_col, p_all],
        ]
    )
    if abs(np.linalg.det(a)) < 1e-12 * max(p_all, 1.0) ** 3:
        return np.full(3, np.nan)
    return np.linalg.solve(a, np.array([u_row, u_col, u_all]))


def satterthwaite_df(coefficients, mean_squares, dfs) -> float:
    """Satterthwaite's degrees of freedom of ``sum_i k_i MS_i`` (MS_i on ``df_i``).

    Examples
    --------
    >>> round(satterthwaite_df([1.0, 1.0], [2.0, 2.0], [4, 4]), 6)
    8.0
    """
    k = np.asarray(coefficients, dtype=float) * np.asarray(mean_squares, dtype=float)
    d = np.asarray(dfs, dtype=float)
    den = np.sum(np.where(d > 0, k * k / np.where(d > 0, d, 1.0), 0.0))
    return float(k.sum() ** 2 / den) if den > 0 and k.sum() > 0 else float("nan")


def additive_weights(observed) -> np.ndarray:
    """Weights ``a`` of the additive (question + template) least-squares estimate of the mean
    over all N x T cells: ``sum(a * y)`` is the mean of the fitted values ``alpha_q + beta_t``
    of the ordinary least-squares fit to the observed cells (the balanced-ANOVA estimate with
    missing cells filled by the fit).

    A missing cell is filled from its question's and its template's effects, so a question
    that lost cells keeps its weight ``1 / N`` (``sum_t a_qt = 1 / N`` for every question):
    the estimate is unbiased when which cells are missing depends on the question (hard
    questions losing more cells), where the mean of the template means is not. With the
    question effects absorbed, the template effects solve the ``T x T`` reduced normal
    equations ``C beta = Q`` (``C = diag(n_t) - O' diag(1 / n_q) O``), so the cost is
    ``O(N T^2)``. Every question needs at least one observed cell.

    Parameters
    ----------
    observed : array_like of bool, shape (N, T)

    Returns
    -------
    numpy.ndarray, shape (N, T)
        0 on missing cells; they sum to 1. With every cell present, ``1 / (N T)``.

    Examples
    --------
    >>> import numpy as np
    >>> obs = np.array([[1, 1], [1, 0], [1, 1]], bool)
    >>> y = np.array([[0.2, 0.6], [0.4, 0.0], [0.3, 0.5]])
    >>> a = additive_weights(obs)
    >>> # template 2 - template 1 = 0.3 on the complete questions; the missing cell 0.4 + 0.3
    >>> round(float(a.sum()), 12), round(float((a * y).sum()), 6)  # (0.4 + 0.55 + 0.4) / 3
    (1.0, 0.45)
    """
    obs = np.asarray(observed, dtype=bool)
    n, t = obs.shape
    o = obs.astype(float)
    n_q = o.sum(axis=1)
    if np.any(n_q == 0):
        raise ValueError("additive_weights: every question needs an observed cell")
    share = o / n_q[:, None]
    c = np.diag(o.sum(axis=0)) - o.T @ share
    h = 1.0 / t - share.sum(axis=0) / n
    g = np.linalg.lstsq(c, h, rcond=None)[0]
    g_bar = (share * g[None, :]).sum(axis=1)
    return o * (1.0 / (n * n_q)[:, None] + g[None, :] - g_bar[:, None])


#: The point estimates :func:`crossed_fit` takes: ``"additive"`` (default, least squares on
#: question + template, :func:`additive_weights`) and ``"template_means"`` (the mean over
#: templates of each template's mean over its questions). They agree when every cell is
#: present.
ESTIMATORS = ("additive", "template_means")


#: ``CrossedFit.fallback``: two levels of the factor (the template-population interval on the
#: template term's T - 1 = 1 degree of freedom, a negative template part counted as 0).
FALLBACK_TWO_LEVELS = "two levels"
#: ``CrossedFit.fallback``: the template component estimated at or below 0 (T >= 3): the SE
#: with it at 0, and Satterthwaite's degrees of freedom with the template mean square at its
#: expectation under s2_t = 0 on its T - 1 degrees of freedom (not the N - 1 of the questions).
FALLBACK_NOT_POSITIVE = "component <= 0"
#: Level of :func:`missingness_test` below which the verbs warn.
MISSINGNESS_LEVEL = 0.01


def missingness_test(score, observed) -> float:
    """Two-sided p-value of Kendall's tau-b between each question's number of missing cells
    and its mean score over its observed cells: small when missing cells go with the
    question's difficulty (hard questions losing more cells, say), which biases a mean over
    the cells that remain. NaN when every question has the same number of missing cells.

    Examples
    --------
    >>> import numpy as np
    >>> obs = np.ones((40, 4), bool)
    >>> obs[:20, :2] = False          # the first 20 questions lose 2 cells ...
    >>> score = np.where(np.arange(40)[:, None] < 20, 0.2, 0.8) + np.zeros((1, 4))
    >>> bool(missingness_test(score, obs) < 0.01)  # ... and are the hard ones
    True
    """
    obs = np.asarray(observed, dtype=bool)
    keep = obs.any(axis=1)
    obs = obs[keep]
    y = np.where(obs, np.asarray(score, dtype=float)[keep], 0.0)
    missing = (~obs).sum(axis=1)
    if missing.min() == missing.max():
        return float("nan")
    mean = y.sum(axis=1) / obs.sum(axis=1)
    return float(stats.kendalltau(missing, mean).pvalue)


#: A variance estimate within this fraction of the size of its parts is 0 (rounding).
ZERO_VARIANCE = 1e-12


def _se(var: float, scale: float, df: float) -> tuple[float, float]:
    """(SE, df) of a variance estimate: (0, NaN) when it is 0 up to rounding (``scale``: the
    size of the terms it sums), (NaN, NaN) when it is below 0 or NaN (module docs, "Edges")."""
    if abs(var) <= ZERO_VARIANCE * scale:
        return 0.0, float("nan")
    if not var > 0:
        return float("nan"), float("nan")
    return float(np.sqrt(var)), float(df)


def crossed_fit(
    y, eta, observed, runs=None, *, estimator="additive", difficulty=None
) -> CrossedFit:
    """Components, estimate, SEs and degrees of freedom of one ``(N, T)`` table of cells.

    Parameters
    ----------
    y, eta, observed : array_like, shape (N, T)
        From :func:`cell_means` (``eta`` None when a cell has one run).
    runs : array_like, shape (N, T), optional
        Runs per cell (``samples``): for s2_e per run and the mean number of runs.
    estimator : {"additive", "template_means"}
        The point estimate on an unbalanced design (:data:`ESTIMATORS`; the same number
        when every cell is present). Its SE counts each component with the estimate's own
        weights, whichever it is.
    difficulty : array_like, shape (N, T), optional
        Scores whose per-question mean :func:`missingness_test` sets against the missing
        cells (default ``y``; for a pair's differences, the two models' mean score).

    Returns
    -------
    CrossedFit

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=(40, 1)) + rng.normal(size=(1, 5)) + rng.normal(size=(40, 5))
    >>> fit = crossed_fit(y, None, np.ones((40, 5), bool))
    >>> fit.balanced, fit.n_templates, bool(fit.df_random < 10)
    (True, 5, True)
    """
    obs = np.asarray(observed, dtype=bool)
    y = np.where(obs, np.asarray(y, dtype=float), 0.0)
    keep_q, keep_t = obs.any(axis=1), obs.any(axis=0)
    y, obs = y[keep_q][:, keep_t], obs[keep_q][:, keep_t]
    e = None if eta is None else np.where(obs, np.asarray(eta, dtype=float)[keep_q][:, keep_t], 0)
    k = None if runs is None else np.asarray(runs, dtype=float)[keep_q][:, keep_t]
    score = y if difficulty is None else np.asarray(difficulty, dtype=float)[keep_q][:, keep_t]
    n_q, n_t = obs.shape
    n_cells = int(obs.sum())
    balanced = bool(obs.all())
    per_t = obs.sum(axis=0)
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
    if estimator == "additive" and not balanced:
        a = additive_weights(obs)
    else:
        a = np.where(obs, 1.0 / (n_t * np.maximum(per_t, 1))[None, :], 0.0)
    estimate = float(np.sum(a * y))
    c_q = float(np.sum(a.sum(axis=1) ** 2))
    c_t = float(np.sum(a.sum(axis=0) ** 2))
    c_qt = float(np.sum(a * a))
    e_part = 0.0 if e is None else float(np.sum(a * a * e))
    mean_runs = float("nan") if k is None else float(k[obs].mean())
    s2_e = float("nan")
    if e is not None and k is not None:
        s2_e = float(np.mean(e[obs] * k[obs]))  # s2_e per run: mean of v_c
    nan = float("nan")
    fallback = ""
    if n_q < 2 or n_t < 2:
        # One template: only the fixed-template variance, from the N cell means (one per
        # question); one question: nothing (module docs, "Edges").
        s2 = np.full(3, np.nan)
        parts_random = np.array([nan, nan, nan, e_part])
        parts_fixed = np.array([nan, 0.0, nan, e_part])
        if n_q >= 2:
            var = float(np.var(y[obs], ddof=1)) / n_q
            se_fixed, df_fixed = _se(var, float(np.mean(y[obs] ** 2)) / n_q, n_q - 1.0)
        else:
            se_fixed, df_fixed = nan, nan
        se_random, df_random = nan, nan
    else:
        if balanced:
            ms_q, ms_t, ms_qt = anova_mean_squares(y)
            e_bar = 0.0 if e is None else float(e.mean())
            s2 = np.array([(ms_q - ms_qt) / n_t, (ms_t - ms_qt) / n_q, ms_qt - e_bar])
        else:
            s2 = moment_components(y, e, obs)
        parts_random = np.array([c_q * s2[0], c_t * s2[1], c_qt * s2[2], e_part])
        parts_fixed = parts_random.copy()
        parts_fixed[1] = 0.0
        # Mean squares the estimates imply (the real ones for a balanced design).
        n_tilde, t_tilde = n_cells / n_t, n_cells / n_q
        r = s2[2] + (e_part / c_qt if c_qt > 0 else 0.0)
        ms = np.array([t_tilde * s2[0] + r, n_tilde * s2[1] + r, r])
        dfs = np.array([n_q - 1, n_t - 1, n_cells - n_q - n_t + 1], dtype=float)
        k_q, k_t = c_q / t_tilde, c_t / n_tilde
        df_fixed = satterthwaite_df([k_q, c_qt - k_q], ms[[0, 2]], dfs[[0, 2]])
        scale = float(np.sum(np.abs(parts_random)))
        se_fixed, df_fixed = _se(float(parts_fixed.sum()), scale, df_fixed)
        coef = [k_q, k_t, c_qt - k_q - k_t]
        if n_t == 2:
            fallback = FALLBACK_TWO_LEVELS
        elif not s2[1] > 0:
            fallback = FALLBACK_NOT_POSITIVE
        # a template part at or below 0 counts 0: the fixed-template variance
        var = float(parts_random.sum()) if s2[1] > 0 else float(parts_fixed.sum())
        if fallback == FALLBACK_TWO_LEVELS:  # the template term's own T - 1 = 1 df
            se_random, df_random = _se(var, scale, n_t - 1.0)
        elif fallback:  # Satterthwaite with the template mean square at s2_t = 0
            df_random = satterthwaite_df(coef, [ms[0], ms[2], ms[2]], dfs)
            se_random, df_random = _se(var, scale, df_random)
        else:
            df_random = satterthwaite_df(coef, ms, dfs)
            se_random, df_random = _se(var, scale, df_random)
    components = np.append(s2, s2_e)
    return CrossedFit(
        estimate=estimate,
        components=components,
        split=e is not None,
        parts_random=parts_random,
        parts_fixed=parts_fixed,
        se_random=se_random,
        se_fixed=se_fixed,
        df_random=df_random,
        df_fixed=df_fixed,
        n_questions=n_q,
        n_templates=n_t,
        n_cells=n_cells,
        mean_runs=mean_runs,
        balanced=balanced,
        fallback=fallback,
        p_value_missing=missingness_test(score, obs),
    )
