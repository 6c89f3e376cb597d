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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from bayesnoise._common import check_confidence_level

__all__ = [
    "PPIResult",
    "agreement",
    "human_labels_for_se",
    "labelling_checks",
    "power_tuned_lambda",
    "ppi_mean",
    "ppi_paired_difference",
    "z_interval",
]

ALTERNATIVES = ("two-sided", "greater", "less")


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


def _check_alternative(alternative: str) -> str:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    return alternative


def power_tuned_lambda(y, yhat, yhat_unlabelled) -> float:
    """PPI++'s variance-minimising weight of the judge, clipped to [0, 1].

    ``cov_L(y, yhat) / ((1 + n / N) var_{L+U}(yhat))``; 0 when every judge score is equal.

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
    cov = np.mean((y - y.mean()) * (yhat - yhat.mean()))
    var = np.var(np.concatenate([yhat, yu]), ddof=1)
    if not var > 0:
        return 0.0
    return float(np.clip(cov / ((1.0 + n / big_n) * var), 0.0, 1.0))


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


def ppi_mean(
    y,
    yhat,
    yhat_unlabelled,
    *,
    lam: float | None = None,
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
    >>> round(r.estimate, 4), round(r.se, 4)
    (0.7917, 0.229)
    """
    level = check_confidence_level(confidence_level)
    _check_alternative(alternative)
    y = np.asarray(y, float)
    yhat = np.asarray(yhat, float)
    yu = np.asarray(yhat_unlabelled, float)
    if y.shape != yhat.shape or y.ndim != 1:
        raise ValueError("y and yhat must be 1-d arrays of the same length")
    n, big_n = y.size, yu.size
    if n < 2 or big_n < 1:
        raise ValueError(f"need >= 2 labelled and >= 1 unlabelled items, got {n} and {big_n}")
    if lam is None:
        lam = power_tuned_lambda(y, yhat, yu)
    lam = float(lam)
    rect = y - lam * yhat
    estimate = float(lam * yu.mean() + rect.mean())
    se = float(np.sqrt(lam**2 * yu.var() / big_n + rect.var() / n))
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
        human_mean=float(y.mean()),
        se_human=float(y.std() / np.sqrt(n)),
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


def labelling_checks(labelled, judge) -> dict[str, float]:
    """What the data can say about whether the labelled items are a random sample.

    ``labelled``: (model, question) bool mask of human-labelled items among the judged ones
    (``judge`` finite). Returns the chi-square p-value that the labelled share is the same for
    every model (NaN with one model) and the smallest Bonferroni-adjusted p-value of the
    per-model z-tests that the judge's mean is the same on labelled and unlabelled items.

    Examples
    --------
    >>> import numpy as np
    >>> lab = np.array([[True, False, True, False], [True, False, False, True]])
    >>> sorted(labelling_checks(lab, np.ones((2, 4))))
    ['p_judge_mean', 'p_share']
    """
    labelled = np.asarray(labelled, bool)
    judge = np.asarray(judge, float)
    judged = np.isfinite(judge)
    lab = (labelled & judged).sum(axis=1)
    unl = (~labelled & judged).sum(axis=1)
    p_share = float("nan")
    if labelled.shape[0] > 1 and lab.sum() > 0 and unl.sum() > 0:
        table = np.stack([lab, unl])
        table = table[:, table.sum(axis=0) > 0]
        if table.shape[1] > 1:
            p_share = float(stats.chi2_contingency(table, correction=False).pvalue)
    ps = []
    for m in range(judge.shape[0]):
        a = judge[m, labelled[m] & judged[m]]
        b = judge[m, ~labelled[m] & judged[m]]
        if a.size < 2 or b.size < 2:
            continue
        se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        if se > 0:
            ps.append(2 * stats.norm.sf(abs(a.mean() - b.mean()) / se))
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
) -> dict[str, float]:
    """How many human labels a PPI (or PPI++) mean needs to reach ``target_se``.

    From a pilot's moments (var y, var yhat, cov; ddof 1): with ``items`` judged items in all
    (default: the pilot's), ``n`` labelled among them, the SE is
    ``sqrt(var(y - lam yhat) / n + lam^2 var(yhat) / (items - n))`` at the best ``lam`` in [0, 1]
    for that n (PPI++) or ``lam = 1`` (PPI); the smallest whole ``n`` that reaches the target.
    Beside it, the labels a human-only mean needs, ``var(y) / target_se^2``.

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
    vy = np.var(y, ddof=1)
    vh = np.var(np.concatenate([yhat, yu]), ddof=1)
    c = np.cov(y, yhat)[0, 1]
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
    return ppi_mean(
        d[lab],
        dhat[lab],
        dhat[items & ~lab],
        lam=lam,
        confidence_level=confidence_level,
        alternative=alternative,
        null=null,
    )
