"""The regression gate on scores graded by an LLM judge, corrected with human labels.

An LLM judge scores both models' answers to every question; humans label a random subset of
the questions for both models. The gate's question is :mod:`bayesnoise.decide.gate`'s: is
the population difference ``delta = candidate - baseline`` below ``-margin``? On the
questions both models were judged on, with ``d_i`` the human-label difference (where both are
labelled) and ``dhat_i`` the judge-score difference:

- ``method="frequentist"``: the one-sided PPI++ z test of ``delta >= -margin``
  (:func:`bayesnoise.frequentist.ppi.ppi_paired_difference` with ``alternative="less"``,
  ``null=-margin``; Angelopoulos, Duchi, Zrnic 2024): the estimate ``lam mean_U(dhat) +
  mean_L(d - lam dhat)``, its SE from both parts, the power-tuned ``lam`` clipped to [0, 1].
  The interval is the two-sided ``1 - 2 alpha`` PPI++ interval at the same ``lam``: each end
  is the one-sided ``1 - alpha`` PPI++ bound (the upper one is what the gate tests, so
  "regression" is exactly "the upper end lies below ``-margin``"). Column ``test``:
  ``"PPI++ paired z"``. The test is asymptotic (a z test): with few labelled questions that
  differ it is approximate, and a warning says so.
- ``method="bayes"``: the judge-misclassification model on the pair
  (:func:`bayesnoise.conjugate.judge.misclassification_posterior`; the four joint true
  outcomes of the two models, the judge's sensitivity and specificity per model, Beta(1, 1)
  priors): ``delta = P(candidate right, baseline wrong) - P(candidate wrong, baseline
  right)``; ``prob_no_regression = P(delta > -margin | data)``. The judge must give 0/1
  verdicts.

A gate on the judge's scores alone (taken as truth) measures the judge: when the judge is
harsher on the candidate than on the baseline it shows regressions that are not there, when
it is more lenient it hides real ones (``studies/judge_gate_null.py`` measures both).
"""

from __future__ import annotations

import numpy as np

from .gate import GateResult, _result

__all__ = ["judge_gate"]

#: Name of the frequentist test in column ``test``.
PPI_TEST = "PPI++ paired z"
#: Fewer labelled questions than this whose human labels differ: the z test is approximate.
FEW_LABELLED_DISCORDANT = 30
#: Columns the judge-graded gate adds to the gate's table.
JUDGE_GATE_COLUMNS = ["human_labels", "ppi_lambda", "effective_human_labels", "difference_judge"]


def _shared(human_b, human_c, judge_b, judge_c):
    hb, hc = np.asarray(human_b, float), np.asarray(human_c, float)
    jb, jc = np.asarray(judge_b, float), np.asarray(judge_c, float)
    if not hb.shape == hc.shape == jb.shape == jc.shape or hb.ndim != 1:
        raise ValueError("human_* and judge_* must be 1-d arrays over the same questions")
    items = np.isfinite(jb) & np.isfinite(jc)
    lab = items & np.isfinite(hb) & np.isfinite(hc)
    return hb, hc, jb, jc, items, lab


def judge_gate(
    human_baseline,
    human_candidate,
    judge_baseline,
    judge_candidate,
    *,
    margin: float = 0.0,
    alpha: float = 0.05,
    method: str = "frequentist",
    n_resamples: int = 4000,
    rng=0,
    label_prob=None,
    baseline: str = "baseline",
    candidate: str = "candidate",
    name: str = "benchmark",
) -> GateResult:
    """Regression gate of candidate - baseline on judge-graded scores (module docs).

    Parameters
    ----------
    human_baseline, human_candidate : array_like, shape (Q,)
        Human labels 0/1 per question, NaN where no human looked. Questions labelled for
        both models form the labelled set of the paired difference.
    judge_baseline, judge_candidate : array_like, shape (Q,)
        Judge scores in [0, 1] per question, NaN where the model has no answer; the
        questions both were judged on are used.
    margin : float, default 0.0
        Tolerated drop, in (-1, 1).
    alpha : float, default 0.05
        Level of the one-sided test.
    method : {"frequentist", "bayes"}
    n_resamples : int, default 4000
        Posterior draws (bayes): 4 chains of ``n_resamples // 4`` after 1,000 warm-up steps.
    rng : int or numpy.random.Generator, default 0
        Seed of the posterior sampler (bayes).
    label_prob : array_like, shape (Q,), optional
        Each question's probability of being labelled for both models: PPI++ weights the
        labelled questions by ``1 / pi`` (the others by ``1 / (1 - pi)``), bayes stratifies
        the pair's model by ``pi`` (:func:`bayesnoise.conjugate.judge.stratified_posterior`).
    baseline, candidate, name : str
        Names in the verdict, the JSON and the ``benchmark`` column.

    Returns
    -------
    GateResult
        Its row also holds ``human_labels`` (questions labelled for both), ``ppi_lambda``,
        ``effective_human_labels`` and ``difference_judge`` (the judge-only difference).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.binomial(1, [[0.75], [0.6]], (2, 1000)).astype(float)  # baseline, candidate
    >>> judge = np.where(y == 1, rng.random(y.shape) < 0.9, rng.random(y.shape) > 0.8) * 1.0
    >>> human = np.where(np.arange(1000) < 300, y, np.nan)
    >>> res = judge_gate(human[0], human[1], judge[0], judge[1], alpha=0.05)
    >>> res.test, res.regression
    ('PPI++ paired z', True)
    >>> import ppi_py  # the oracle: PPI++ on the per-question differences, one-sided
    >>> p = ppi_py.ppi_mean_pval(y[1, :300] - y[0, :300], judge[1, :300] - judge[0, :300],
    ...                          judge[1, 300:] - judge[0, 300:], null=0.0,
    ...                          alternative="smaller", lam=res.rows["ppi_lambda"][0])
    >>> bool(abs(res.pvalue - float(p[0])) < 1e-12)
    True
    """
    from bayesnoise.frequentist.ppi import (
        inclusion_weights,
        ppi_mean,
        ppi_paired_difference,
        z_interval,
    )

    if method not in ("frequentist", "bayes"):
        raise ValueError(f"method must be 'frequentist' or 'bayes', got {method!r}")
    if not -1.0 < margin < 1.0:
        raise ValueError(f"margin must be in (-1, 1), got {margin}")
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha}")
    hb, hc, jb, jc, items, lab = _shared(
        human_baseline, human_candidate, judge_baseline, judge_candidate
    )
    r = ppi_paired_difference(
        hc,
        hb,
        jc,
        jb,
        label_prob=label_prob,
        confidence_level=1.0 - alpha,
        alternative="less",
        null=-margin,
    )
    low, high = z_interval(r.estimate, r.se, 1.0 - 2.0 * alpha, "two-sided")
    degenerate = not r.se > 0
    accuracies = []
    for h, j in ((hb, jb), (hc, jc)):
        m_lab = items & np.isfinite(h)
        w = (None, None)
        if label_prob is not None:
            w = inclusion_weights(np.asarray(label_prob, float)[items], m_lab[items])
        est = ppi_mean(h[m_lab], j[m_lab], j[items & ~m_lab], w=w[0], w_unlabelled=w[1])
        accuracies.append(est.estimate)
    row = {
        "questions": int(items.sum()),
        "change": r.estimate,
        "se_change": r.se,
        "t_change": (r.estimate + margin) / r.se if not degenerate else np.nan,
        "df": np.inf,
        "test": PPI_TEST,
        # zero SE (no variation in labels nor judge differences): no test, never a p of 0
        "p_value_regression": np.nan if degenerate else r.p_value,
        # zero SE: no interval either (never a zero-width one)
        "change_low": np.nan if degenerate else float(low),
        "change_high": np.nan if degenerate else float(high),
        "all_zero": not np.any(jc[items] - jb[items]) and not np.any(hc[lab] - hb[lab]),
        "human_labels": r.n,
        "ppi_lambda": r.lam,
        "effective_human_labels": r.effective_labels,
        "difference_judge": float(np.mean(jc[items] - jb[items])),
        "discordant_labelled": int(np.count_nonzero(hc[lab] != hb[lab])),
    }
    if method == "bayes":
        row.update(_bayes_row(hb, hc, jb, jc, items, margin, alpha, n_resamples, rng, label_prob))
    res = _result(
        [row],
        [name],
        [tuple(accuracies)],
        margin,
        alpha,
        method,
        baseline,
        candidate,
        extra=JUDGE_GATE_COLUMNS,
    )
    if method == "frequentist":
        res.differences = None
        if degenerate:  # no interval in the attributes either
            res.se = np.nan
    res.verdict = (
        f"judge-graded scores, corrected with human labels of {r.n} questions "
        f"({'PPI++' if method == 'frequentist' else 'misclassification model'}): {res.verdict}"
    )
    return res


def _bayes_row(hb, hc, jb, jc, items, margin, alpha, n_resamples, rng, label_prob=None) -> dict:
    from bayesnoise.conjugate.judge import (
        misclassification_posterior,
        pattern_counts,
        stratified_posterior,
    )

    from .regression_tests import _p_no_regression

    verdicts = np.stack([jc, jb])[:, items]
    if not np.isin(verdicts, (0.0, 1.0)).all():
        raise ValueError(
            "the misclassification model needs 0/1 judge verdicts; got graded scores "
            "(threshold them, or use method='frequentist')"
        )
    if label_prob is not None:
        cell = stratified_posterior(
            np.stack([hc, hb])[:, items],
            verdicts,
            np.asarray(label_prob, float)[items],
            draws=max(int(n_resamples), 200),
            rng=rng,
        )
        delta = cell[:, 1] - cell[:, 2]
        low, high = np.quantile(delta, [alpha, 1.0 - alpha])
        return {
            "change_bayes": float(delta.mean()),
            "change_bayes_low": float(low),
            "change_bayes_high": float(high),
            "prob_no_regression": _p_no_regression(delta, margin),
            "draws": delta,
            "acceptance": float("nan"),
        }
    # slot 0 = candidate, slot 1 = baseline: cell 1 = candidate right & baseline wrong
    lab, unl = pattern_counts(np.stack([hc, hb])[:, items], verdicts)
    chains = 4
    out = misclassification_posterior(
        lab[None],
        unl[None],
        share="none",
        draws=max(int(n_resamples) // chains, 50),
        tune=1000,
        chains=chains,
        rng=rng,
    )
    cell = out["cell"].reshape(-1, 4)
    delta = cell[:, 1] - cell[:, 2]
    low, high = np.quantile(delta, [alpha, 1.0 - alpha])
    return {
        "change_bayes": float(delta.mean()),
        "change_bayes_low": float(low),
        "change_bayes_high": float(high),
        "prob_no_regression": _p_no_regression(delta, margin),
        "draws": delta,
        "acceptance": float(out["acceptance"][0]),
    }
