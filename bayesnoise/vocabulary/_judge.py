"""The columns of ``judge`` and of judge-graded ``check`` and ``plan``."""

from __future__ import annotations

from ._column import _ACC, _DIFF, _PROB, NONE, POPULATION, THESE, Column, _c  # noqa: F401

# Scores graded by an LLM judge, corrected with human labels (``judge``).
_JUDGED = "an item is one model's answer to one question, graded by an LLM judge"
_LABELS = "human-labelled items (a random subset of the judged ones)"
_JUDGE_ENTRIES: list[Column] = [
    _c("judge", "judge", "the LLM judge (a judge column, or one judge-score column each)"),
    _c("items", "items", f"judged items of the model ({_JUDGED})", "count"),
    _c(
        "human_labels",
        "human labels",
        f"{_LABELS}; for a pair, questions labelled for both models",
        "count",
    ),
    _c(
        "accuracy_judge",
        "accuracy, judge only",
        "mean judge score over every judged item, taken as truth; normal interval (ddof 0). "
        "Biased whenever the judge errs: shown to compare, not to quote",
        _ACC,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "accuracy_human",
        "accuracy, human labels only",
        "mean human label over the labelled items; normal interval (ddof 0, the classical "
        "interval PPI is measured against)",
        _ACC,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "accuracy_ppi",
        "accuracy (PPI)",
        "prediction-powered accuracy: lam x judge mean of the unlabelled items + mean of "
        "(human - lam x judge) over the labelled items, lam = ppi_lambda; normal interval from "
        "both parts' variances (Angelopoulos et al. 2023; PPI++ 2024)",
        _ACC,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "ppi_lambda",
        "PPI weight",
        "weight of the judge in the PPI estimate: tuned to minimise the variance and clipped to "
        "[0, 1] (PPI++), or 1 (PPI, power_tuning=False); 0 means the judge did not help",
    ),
    _c(
        "effective_human_labels",
        "effective human labels",
        "human labels alone that would give the corrected interval's SE: n (SE human only / "
        "SE PPI)^2",
        "count",
    ),
    _c(
        "accuracy_corrected",
        "accuracy, judge corrected (bayes)",
        "posterior mean of the true success rate under the judge-misclassification model (true "
        "outcome Bernoulli(p), the judge says 1 with probability Se if right and 1 - Sp if "
        "wrong; p, Se, Sp ~ Beta(1, 1), Se and Sp per model or shared); exact mixture "
        "posterior or a conjugate Gibbs sampler; equal-tailed credible interval",
        _ACC,
        POPULATION,
        "bayes",
        True,
    ),
    _c(
        "accuracy_corrected_mcmc",
        "accuracy, judge corrected (MCMC)",
        "accuracy_corrected's model sampled by PyMC (NUTS); equal-tailed credible interval",
        _ACC,
        POPULATION,
        "mcmc",
        True,
    ),
    _c(
        "accuracy_rogan_gladen",
        "accuracy (Rogan-Gladen)",
        "moment estimate (q + Sp - 1) / (Se + Sp - 1): q the judge-positive share of every "
        "item, Se and Sp the labelled items' rates; a point check, not clipped to [0, 1]",
        _ACC,
        POPULATION,
        "freq",
    ),
    _c(
        "judge_sensitivity",
        "judge sensitivity",
        "mean judge score on the labelled items a human marked correct (for 0/1 verdicts: the "
        "share the judge also marked correct)",
        _PROB,
    ),
    _c(
        "judge_specificity",
        "judge specificity",
        "1 - mean judge score on the labelled items a human marked wrong (for 0/1 verdicts: "
        "the share the judge also marked wrong)",
        _PROB,
    ),
    _c(
        "judge_kappa",
        "judge kappa",
        "Cohen's kappa of the judge's verdicts (score >= 0.5) and the human labels on the "
        "labelled items (1 = perfect agreement, 0 = chance)",
    ),
    _c(
        "difference_judge",
        "difference, judge only",
        "mean over shared questions of the judge-score difference A - B, taken as truth; normal "
        "interval (ddof 0); biased when the judge errs differently for the two models",
        _DIFF,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "difference_human",
        "difference, human labels only",
        "mean of the human-label difference A - B over the questions labelled for both; normal "
        "interval (ddof 0)",
        _DIFF,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "difference_ppi",
        "difference (PPI)",
        "prediction-powered paired difference A - B: PPI on the per-question differences of "
        "judge scores and human labels (labelled where both models are); normal interval",
        _DIFF,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "p_value_ppi",
        "p-value (PPI)",
        "z-test of difference_ppi = 0 (alternative as asked: two-sided, greater or less)",
        _PROB,
        POPULATION,
        "freq",
    ),
    _c(
        "difference_corrected",
        "difference, judge corrected (bayes)",
        "posterior mean of p_A - p_B under the paired misclassification model (the four joint "
        "outcomes of a question, Dirichlet prior with uniform margins; each model's Se, Sp); "
        "conjugate Gibbs sampler; equal-tailed credible interval",
        _DIFF,
        POPULATION,
        "bayes",
        True,
    ),
    _c(
        "difference_corrected_mcmc",
        "difference, judge corrected (MCMC)",
        "difference_corrected's model sampled by PyMC (NUTS)",
        _DIFF,
        POPULATION,
        "mcmc",
        True,
    ),
    _c(
        "prob_a_better_corrected",
        "P(A > B), judge corrected (bayes)",
        "posterior probability that A's true success rate exceeds B's (paired misclassification "
        "model)",
        _PROB,
        POPULATION,
        "bayes",
    ),
    _c(
        "prob_a_better_corrected_mcmc",
        "P(A > B), judge corrected (MCMC)",
        "prob_a_better_corrected from PyMC draws",
        _PROB,
        POPULATION,
        "mcmc",
    ),
    _c(
        "human_cost",
        "cost per human label",
        "cost of one human label (plan --human-cost), in the unit of the other costs",
        "cost",
    ),
    _c(
        "human_labels_needed",
        "human labels needed",
        "smallest number of human labels among the judged items for which the PPI++ SE of the "
        "accuracy reaches target_se (from the pilot's variances)",
        "count",
    ),
    _c(
        "human_labels_alone",
        "human labels alone",
        "labels a human-only mean needs for the same SE: var(human) / target_se^2",
        "count",
    ),
    _c("human_labels_cost", "human-label cost", "human_labels_needed x human_cost", "cost"),
]
