"""Prediction-powered inference for a mean graded by an LLM judge (numpy/scipy only).

A judge scores every item (``yhat``, in [0, 1]); humans label a random subset ``L`` of ``n``
items (``y``, 0/1); the ``N`` other items ``U`` have the judge's score only. PPI
(Angelopoulos et al. 2023) corrects the judge's mean with the labelled items' rectifier;
PPI++ (Angelopoulos, Duchi, Zrnic 2024) weights the judge by a power-tuning ``lam``:

    theta = lam mean_U(yhat) + mean_L(y - lam yhat)
    se^2  = lam^2 var_U(yhat) / N + var_L(y - lam yhat) / n          (ddof = 0)
    lam*  = cov_L(y, yhat) / ((1 + n / N) var_{L+U}(yhat))           clipped to [0, 1]

(``cov`` with ddof 0, the variance of all judge scores with ddof 1: the conventions of the
``ppi_py`` package, whose numbers these equal; ``lam = 1`` is PPI, ``lam = 0`` the human-only
mean.) The interval is ``theta +- z se``; p-values are z-tests of ``theta = null``. Paired
differences of two models are the same on per-question differences ``y_A - y_B`` and
``yhat_A - yhat_B``, labelled where both models are.

Labels drawn with known unequal inclusion probabilities ``pi`` (hard questions labelled more
often, or by the judge's verdict): the labelled items get weights ``w = 1 / pi`` and the
unlabelled ones ``w_U = 1 / (1 - pi)`` (each normalised to mean 1), exactly ``ppi_py``'s
``w=`` / ``w_unlabeled=``: both means are then inverse-probability (Hajek) means of the
population and ``lam`` is tuned on the weighted gradients as ``ppi_py`` does (estimate and
``lam`` equal to ``ppi_py``'s). The SEs are the Hajek means' linearised ones, the SDs of
``w (r - mean(w r))`` for ``r = y - lam yhat`` and of ``w_U lam (yhat - mean(w_U yhat))``;
``ppi_py`` takes the SDs of ``w r`` and ``w_U lam yhat``, which add about ``mean(w r)^2
var(w)``. Chosen by measurement (``benchmarks/results/judge_weights_se.md``, 2,000 data sets
per cell, Monte Carlo SE 0.005, hard/easy and judge-verdict designs, n_eff 127-178): these
cover 0.936-0.949 on every model and pair, pooled 0.943; ``ppi_py``'s 0.967-0.981 on the
models with intervals 1.17x as wide; ``n / (n - 1)`` with a t quantile on Kish's ``n_eff - 1``
df, or a jackknife, cover 0.001-0.002 more for 0.5-1.0% more width, so they are not used.
Equal probabilities give the unweighted numbers, ``ppi_py``'s.

The rectifier's SE has a floor: when the labelled rectifier hardly varies (every label the
same, e.g. 30 of 30 labels right), its sample SE is 0 or too small and the z interval would
collapse to a point. The floor is the Clopper-Pearson (rule-of-three) SE: the SE at which the
z interval of ``n`` agreeing labels reaches the exact binomial bound,
``(1 - tail^(1/n_eff)) / z_tail`` (``tail`` = (1 - level) / 2 two-sided, 1 - level one-sided;
``n_eff`` = Kish's effective number of labels, ``n`` unweighted). It is active only when the
rectifier's sample SE lies below it (about 0.059 at n = 30, 0.012 at n = 150, 95%), so
ordinary data give ``ppi_py``'s numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from bayesnoise._common import check_alternative, check_confidence_level

__all__ = [
    "PPIResult",
    "agreement",
    "human_labels_for_se",
    "inclusion_weights",
    "labelling_checks",
    "power_tuned_lambda",
    "ppi_mean",
    "ppi_paired_difference",
    "rectifier_se_floor",
    "z_interval",
]


@dataclass(frozen=True)
class PPIResult:
    """A prediction-powered mean: estimate, SE, interval, p-value and what went in.

    ``se_human`` is the SE of the human-labels-only mean (ddof 0), and
    ``effective_labels = n (se_human / se)^2`` the number of human labels alone that would
    give the same SE.
    """

    estimate: float
    se: float
    low: float
    high: float
    p_value: float
    lam: float
    n: int
    N: int
    human_mean: float
    se_human: float
    judge_mean: float
    se_judge: float

    @property
    def effective_labels(self) -> float:
        if not self.se > 0:
            return float("nan")
        return self.n * (self.se_human / self.se) ** 2


def _unit_weights(w, size, what):
    """Weights normalised to mean 1 (``ppi_py``'s convention); ones when ``w`` is None."""
    if w is None:
        return np.ones(size)
    w = np.asarray(w, float)
    if w.shape != (size,) or not np.all(np.isfinite(w)) or not np.all(w > 0):
        raise ValueError(f"{what} must be {size} finite positive weights")
    return w / w.sum() * size


def power_tuned_lambda(y, yhat, yhat_unlabelled, *, w=None, w_unlabelled=None) -> float:
    """PPI++'s variance-minimising weight of the judge, clipped to [0, 1].

    ``cov_L(y, yhat) / ((1 + n / N) var_{L+U}(yhat))``; 0 when every judge score is equal.
    With weights (``w`` of the labelled items, ``w_unlabelled`` of the others), ``ppi_py``'s
    rule on the weighted gradients ``w (y - theta_1)``, ``w (yhat - theta_1)``,
    ``w_U (yhat_U - theta_1)`` around the PPI (``lam = 1``) estimate ``theta_1``.

    Examples
    --------
    >>> y = [1, 0, 1, 1]; yhat = [1, 0, 1, 0]
    >>> round(power_tuned_lambda(y, yhat, [1, 0, 0, 1, 1, 0]), 4)
    0.27
    """
    y = np.asarray(y, float)
    yhat = np.asarray(yhat, float)
    yu = np.asarray(yhat_unlabelled, float)
    n, big_n = y.size, yu.size
    w = _unit_weights(w, n, "w")
    wu = _unit_weights(w_unlabelled, big_n, "w_unlabelled")
    theta1 = np.mean(wu * yu) + np.mean(w * (y - yhat))
    g, gh, ghu = w * (y - theta1), w * (yhat - theta1), wu * (yu - theta1)
    cov = np.mean((g - g.mean()) * (gh - gh.mean()))
    var = np.var(np.concatenate([gh, ghu]), ddof=1)
    if not var > 0:
        return 0.0
    return float(np.clip(cov / ((1.0 + n / big_n) * var), 0.0, 1.0))


def inclusion_weights(label_prob, labelled):
    """Inverse-probability weights ``(w, w_unlabelled)`` from inclusion probabilities.

    ``label_prob``: each item's probability of being labelled (in (0, 1]); ``labelled``: the
    items that were. ``w = 1 / pi`` on the labelled, ``1 / (1 - pi)`` on the others (an item
    with ``pi = 1`` must be labelled). None for both when ``label_prob`` is None.

    Examples
    --------
    >>> w, wu = inclusion_weights([0.5, 0.25, 0.5, 0.2], [True, True, False, False])
    >>> w.tolist(), wu.tolist()
    ([2.0, 4.0], [2.0, 1.25])
    """
    if label_prob is None:
        return None, None
    pi = np.asarray(label_prob, float)
    lab = np.asarray(labelled, bool)
    if not np.all((pi > 0) & (pi <= 1)):
        raise ValueError("inclusion probabilities must lie in (0, 1]")
    if np.any(~lab & (pi >= 1)):
        raise ValueError("an item with inclusion probability 1 has no label")
    return 1.0 / pi[lab], 1.0 / (1.0 - pi[~lab])


def rectifier_se_floor(n_labels, confidence_level=0.95, alternative="two-sided") -> float:
    """The smallest SE a mean of ``n_labels`` 0/1 labels is given (module docs).

    ``(1 - tail^(1/n)) / z_tail``: with every label the same, the z interval then reaches
    the Clopper-Pearson bound ``tail^(1/n)`` (or ``1 - tail^(1/n)``).

    Examples
    --------
    >>> from scipy import stats
    >>> se = rectifier_se_floor(30, 0.95)
    >>> cp_low = stats.binomtest(30, 30).proportion_ci(0.95, method="exact").low
    >>> bool(abs(1 - 1.959964 * se - cp_low) < 1e-6)
    True
    """
    if not n_labels > 0:
        return float("nan")
    tail = (1.0 - confidence_level) / 2.0 if alternative == "two-sided" else 1.0 - confidence_level
    return float(-np.expm1(np.log(tail) / n_labels) / special.ndtri(1.0 - tail))


def z_interval(estimate, se, confidence_level, alternative):
    """Normal interval ``estimate +- z se`` (one-sided: one end infinite).

    Examples
    --------
    >>> [round(float(x), 3) for x in z_interval(0.5, 0.1, 0.95, "two-sided")]
    [0.304, 0.696]
    """
    if alternative == "two-sided":
        z = special.ndtri(0.5 + confidence_level / 2.0)
        return estimate - z * se, estimate + z * se
    z = special.ndtri(confidence_level)
    if alternative == "greater":
        return estimate - z * se, np.inf
    return -np.inf, estimate + z * se


def _z_pvalue(estimate, se, null, alternative):
    z = (estimate - null) / max(se, 1e-16)
    if alternative == "two-sided":
        return float(2.0 * stats.norm.sf(abs(z)))
    return float(stats.norm.sf(z) if alternative == "greater" else stats.norm.cdf(z))


def _linearised_sd(w, x) -> float:
    """``sqrt(mean(w^2 (x - mean(w x))^2))`` for weights of mean 1: the SD of a Hajek mean's
    linearised terms; ``x.std()`` when every weight is 1."""
    return float(np.sqrt(np.mean((w * (x - np.mean(w * x))) ** 2)))


def ppi_mean(
    y,
    yhat,
    yhat_unlabelled,
    *,
    lam: float | None = None,
    w=None,
    w_unlabelled=None,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    null: float = 0.0,
) -> PPIResult:
    """PPI (``lam=1``) or PPI++ (``lam=None``: power-tuned) mean, interval and p-value.

    Parameters
    ----------
    y : array
        Human labels of the labelled items (or per-question differences of labels).
    yhat : array
        The judge's scores of the same items.
    yhat_unlabelled : array
        The judge's scores of the items no human labelled.
    lam : float, optional
        Weight of the judge: None (default) tunes it (PPI++), 1 is PPI, 0 the human-only mean.
    w, w_unlabelled : array, optional
        Inverse-probability weights of the labelled items (``1 / pi``) and of the unlabelled
        ones (``1 / (1 - pi)``), ``pi`` each item's probability of being labelled; ``ppi_py``'s
        ``w`` and ``w_unlabeled``. Default: equal (a simple random subset).
    confidence_level : float, default 0.95
    alternative : {"two-sided", "greater", "less"}
        Sidedness of the interval and of the test of ``mean = null`` ("greater": H1 mean >
        null, interval ``[low, inf)``).
    null : float, default 0

    Returns
    -------
    PPIResult

    Examples
    --------
    >>> r = ppi_mean([1, 0, 1, 1, 0, 1], [1, 0, 1, 0, 0, 1], [1, 1, 0, 1, 0, 1, 1, 0], lam=1)
    >>> round(r.estimate, 4), round(r.se, 4)  # six labels: the SE floor (module docs)
    (0.7917, 0.2902)
    """
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    y = np.asarray(y, float)
    yhat = np.asarray(yhat, float)
    yu = np.asarray(yhat_unlabelled, float)
    if y.shape != yhat.shape or y.ndim != 1:
        raise ValueError("y and yhat must be 1-d arrays of the same length")
    n, big_n = y.size, yu.size
    if n < 2 or big_n < 1:
        raise ValueError(f"need >= 2 labelled and >= 1 unlabelled items, got {n} and {big_n}")
    w = _unit_weights(w, n, "w")
    wu = _unit_weights(w_unlabelled, big_n, "w_unlabelled")
    if lam is None:
        lam = power_tuned_lambda(y, yhat, yu, w=w, w_unlabelled=wu)
    lam = float(lam)
    rect = w * (y - lam * yhat)
    estimate = float(lam * np.mean(wu * yu) + rect.mean())
    n_eff = w.sum() ** 2 / np.sum(w**2)
    floor = rectifier_se_floor(n_eff, level, alternative)
    # Hajek linearisation: each weight times the value's deviation from the weighted mean
    # (= the sample SD, ddof 0, without weights, so ppi_py's numbers). Weighted: covers
    # 0.936-0.949 per cell where ppi_py's uncentred SD covers up to 0.981 with 1.17x the
    # width (benchmarks/results/judge_weights_se.md; module docs)
    se_rect = max(_linearised_sd(w, y - lam * yhat) / np.sqrt(n), floor)
    se = float(np.sqrt((lam * _linearised_sd(wu, yu)) ** 2 / big_n + se_rect**2))
    low, high = z_interval(estimate, se, level, alternative)
    every = np.concatenate([yhat, yu])
    return PPIResult(
        estimate=estimate,
        se=se,
        low=float(low),
        high=float(high),
        p_value=_z_pvalue(estimate, se, null, alternative),
        lam=lam,
        n=n,
        N=big_n,
        human_mean=float(np.mean(w * y)),
        se_human=max(_linearised_sd(w, y) / np.sqrt(n), floor),
        judge_mean=float(every.mean()),
        se_judge=float(every.std() / np.sqrt(every.size)),
    )


def agreement(y, yhat) -> dict[str, float]:
    """The judge against the humans on the labelled items.

    ``sensitivity`` = mean judge score where the human says 1, ``specificity`` = 1 - mean judge
    score where the human says 0 (the usual rates for 0/1 verdicts), ``kappa`` = Cohen's kappa
    of the verdicts ``yhat >= 0.5`` and the labels.

    Examples
    --------
    >>> agreement([1, 1, 0, 0], [1, 0, 0, 0])
    {'sensitivity': 0.5, 'specificity': 1.0, 'kappa': 0.5}
    """
    y = np.asarray(y, float)
    yhat = np.asarray(yhat, float)
    pos, neg = y == 1, y == 0
    sens = float(yhat[pos].mean()) if pos.any() else float("nan")
    spec = float(1.0 - yhat[neg].mean()) if neg.any() else float("nan")
    v = (yhat >= 0.5).astype(float)
    observed = np.mean(v == y)
    chance = v.mean() * y.mean() + (1 - v.mean()) * (1 - y.mean())
    kappa = float((observed - chance) / (1 - chance)) if chance < 1 else float("nan")
    return {"sensitivity": sens, "specificity": spec, "kappa": kappa}


LABELLING_CHECK_LEVEL = 0.05
"""The p-value below which ``judge``, ``check`` and ``plan`` warn that the labelled questions'
judge scores differ from the others' (:func:`labelling_checks`' ``p_judge_mean``): about 1 in
20 random subsets warn, and a subset drawn with probability 0.35 / 0.10 from hard / easy
questions is caught in about 9 of 10 data sets (``benchmarks/results/judge_weights.md``)."""


def labelling_checks(labelled, judge) -> dict[str, float]:
    """What the data can say about whether the labelled items are a random sample.

    ``labelled``: (model, question) bool mask of human-labelled items among the judged ones
    (``judge`` finite). Returns ``p_share``, the chi-square p-value that the labelled share is
    the same for every model (NaN with one model), and ``p_judge_mean``, the two-sided
    Mann-Whitney p-value (``scipy.stats.mannwhitneyu``, normal approximation with the tie
    correction) that the questions' judge means -- each question's mean judge score over the
    models and samples, observed for every question, labelled or not -- have the same
    distribution on the labelled questions (those labelled for any model) as on the others.

    Every model's verdicts on a question see its difficulty, so a subset leaning to hard or
    easy questions shifts the question means in every model at once; per-model tests each see
    it through one model's noise and lose more to a multiplicity correction than they add.
    When the models' labelled questions are not the same ones, the per-model tests (each
    model's judge scores, labelled against unlabelled) are added and ``p_judge_mean`` is the
    Bonferroni-adjusted smallest p-value. Under a random subset ``p_judge_mean`` is uniform
    whatever the judge's scores (a rank test conditional on them).

    Examples
    --------
    >>> import numpy as np
    >>> lab = np.array([[True, False, True, False], [True, False, False, True]])
    >>> sorted(labelling_checks(lab, np.ones((2, 4))))
    ['p_judge_mean', 'p_share']
    >>> judge = np.array([[0, 0, 0, 1, 1, 1, 1, 1, 0, 1] * 3, [0, 0, 1, 0, 1, 1, 1, 1, 1, 1] * 3])
    >>> lab = np.broadcast_to(np.arange(30) % 10 < 3, judge.shape)
    >>> f"{labelling_checks(lab, judge)['p_judge_mean']:.1e}"  # the judge fails them all
    '2.7e-05'
    """
    labelled = np.asarray(labelled, bool)
    judge = np.asarray(judge, float)
    judged = np.isfinite(judge)
    lab_mask = labelled & judged
    lab = lab_mask.sum(axis=1)
    unl = (~labelled & judged).sum(axis=1)
    p_share = float("nan")
    if labelled.shape[0] > 1 and lab.sum() > 0 and unl.sum() > 0:
        table = np.stack([lab, unl])
        table = table[:, table.sum(axis=0) > 0]
        if table.shape[1] > 1:
            p_share = float(stats.chi2_contingency(table, correction=False).pvalue)
    seen = judged.any(axis=0)
    with np.errstate(invalid="ignore"):
        q_mean = np.nanmean(np.where(judged, judge, np.nan)[:, seen], axis=0)
    q_lab = lab_mask.any(axis=0)[seen]
    groups = [(q_mean[q_lab], q_mean[~q_lab])]
    same_questions = np.all((lab_mask[:, seen] == q_lab[None, :]) | ~judged[:, seen])
    if judge.shape[0] > 1 and not same_questions:
        groups += [
            (judge[m, lab_mask[m]], judge[m, ~labelled[m] & judged[m]])
            for m in range(judge.shape[0])
        ]
    ps = []
    for a, b in groups:
        if a.size < 2 or b.size < 2 or np.ptp(np.concatenate([a, b])) == 0:
            continue
        res = stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic")
        ps.append(float(res.pvalue))
    p_mean = float(min(1.0, min(ps) * len(ps))) if ps else float("nan")
    return {"p_share": p_share, "p_judge_mean": p_mean}


def human_labels_for_se(
    y,
    yhat,
    yhat_unlabelled,
    target_se: float,
    *,
    items: int | None = None,
    power_tuning: bool = True,
    w=None,
) -> dict[str, float]:
    """How many human labels a PPI (or PPI++) mean needs to reach ``target_se``.

    From a pilot's moments (var y, var yhat, cov; ddof 1): with ``items`` judged items in all
    (default: the pilot's), ``n`` labelled among them, the SE is
    ``sqrt(var(y - lam yhat) / n + lam^2 var(yhat) / (items - n))`` at the best ``lam`` in [0, 1]
    for that n (PPI++) or ``lam = 1`` (PPI); the smallest whole ``n`` that reaches the target.
    Beside it, the labels a human-only mean needs, ``var(y) / target_se^2``. A pilot whose
    labels were drawn with unequal probabilities gives ``w = 1 / pi``: ``var y`` and the
    covariance are then weighted (``numpy.cov``'s ``aweights``), the plan is for a simple
    random subset.

    Returns
    -------
    dict
        ``human_labels`` (NaN when no n <= items reaches the target), ``human_labels_alone``,
        ``se_all_labelled`` (the SE with every item labelled), ``lam`` at the answer.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.binomial(1, 0.6, 200); yhat = np.where(rng.random(200) < 0.85, y, 1 - y)
    >>> r = human_labels_for_se(y, yhat, rng.binomial(1, 0.6, 1800), 0.02)
    >>> r["human_labels"] < r["human_labels_alone"]
    True
    """
    y = np.asarray(y, float)
    yhat = np.asarray(yhat, float)
    yu = np.asarray(yhat_unlabelled, float)
    if not target_se > 0:
        raise ValueError(f"target_se must be > 0, got {target_se}")
    total = int(items) if items is not None else y.size + yu.size
    cov = np.cov(y, yhat, aweights=None if w is None else np.asarray(w, float))
    vy = cov[0, 0]
    vh = np.var(np.concatenate([yhat, yu]), ddof=1)
    c = cov[0, 1]
    n = np.arange(2, total, dtype=float)
    rest = total - n
    if power_tuning and vh > 0:
        lam = np.clip(c / (vh * (1.0 + n / rest)), 0.0, 1.0)
    else:
        lam = np.ones_like(n) if power_tuning is False else np.zeros_like(n)
    var = (vy - 2 * lam * c + lam**2 * vh) / n + lam**2 * vh / rest
    ok = np.flatnonzero(var <= target_se**2)
    best = int(n[ok[0]]) if ok.size else float("nan")
    return {
        "human_labels": best,
        "human_labels_alone": float(np.ceil(vy / target_se**2)),
        "se_all_labelled": float(np.sqrt(vy / total)),
        "lam": float(lam[ok[0]]) if ok.size else float("nan"),
    }


def ppi_paired_difference(
    human_a,
    human_b,
    judge_a,
    judge_b,
    *,
    lam: float | None = None,
    label_prob=None,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    null: float = 0.0,
) -> PPIResult:
    """PPI (or PPI++) for the paired difference A - B on shared questions.

    ``human_*``: human labels per question (NaN where none), ``judge_*``: judge scores per
    question (NaN where the model has no answer). Questions both models answered are used;
    those labelled for both form the labelled set, the rest the unlabelled one; the rectifier
    and the judge mean are taken on the per-question differences, so the pairing is kept.
    ``alternative="less"`` with ``null=-margin`` is a one-sided gate test (H0: A - B >= -margin).
    ``label_prob``: per question, its probability of being labelled for both models
    (:func:`inclusion_weights`; default: a simple random subset).

    Examples
    --------
    >>> import numpy as np
    >>> nan = np.nan
    >>> r = ppi_paired_difference([1, 0, 1, nan, nan, nan], [0, 0, 1, nan, nan, nan],
    ...                           [1, 0, 1, 1, 0, 1], [0, 1, 1, 0, 0, 1], lam=1)
    >>> round(r.estimate, 4), r.n, r.N
    (0.6667, 3, 3)
    """
    ha, hb = np.asarray(human_a, float), np.asarray(human_b, float)
    ja, jb = np.asarray(judge_a, float), np.asarray(judge_b, float)
    items = np.isfinite(ja) & np.isfinite(jb)
    lab = items & np.isfinite(ha) & np.isfinite(hb)
    d, dhat = ha - hb, ja - jb
    w, wu = (None, None)
    if label_prob is not None:
        w, wu = inclusion_weights(np.asarray(label_prob, float)[items], lab[items])
    return ppi_mean(
        d[lab],
        dhat[lab],
        dhat[items & ~lab],
        lam=lam,
        w=w,
        w_unlabelled=wu,
        confidence_level=confidence_level,
        alternative=alternative,
        null=null,
    )
