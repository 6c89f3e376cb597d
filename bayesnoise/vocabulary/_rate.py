"""The columns of ``rate`` and ``threshold``."""

from __future__ import annotations

from ._column import _ACC, _DIFF, _PROB, NONE, POPULATION, THESE, Column, _c  # noqa: F401

# One success rate against a target, with a chosen prior; graded scores thresholded (``rate``,
# ``threshold``).
_RATE = "success rate (0-1)"
_RATE_ENTRIES: list[Column] = [
    _c(
        "threshold",
        "threshold",
        "score threshold T: a score >= T (success above) or <= T "
        "(success below) counts as a success; T inclusive",
    ),
    _c(
        "successes",
        "successes",
        "number of successful samples (0/1 scores, after any threshold)",
        "count",
    ),
    _c("trials", "trials", "number of samples (questions x samples per question)", "count"),
    _c(
        "rate_model",
        "rate model",
        "which posterior the rate columns come from: 'conjugate Beta (K = 1)' (one answer per "
        "question: independent Bernoulli trials, posterior Beta(a + s, b + n - s)) or "
        "'hierarchical: prior on mu (K > 1)' (samples of a question are not independent: the "
        "prior is on the population mean mu of the Beta-Binomial hierarchy, kappa integrated "
        "over its LogNormal(1, 1.5) prior)",
    ),
    _c("prior_a", "prior a", "first parameter of the Beta(a, b) prior on the rate"),
    _c("prior_b", "prior b", "second parameter of the Beta(a, b) prior on the rate"),
    _c(
        "prior_weight",
        "prior weight",
        "a + b of the Beta(a, b) prior: its weight in pseudo-trials, to set against trials "
        "(K = 1: the posterior mean is (a + s) / (a + b + n)) or questions (K > 1)",
        "count",
    ),
    _c(
        "p_value_prior",
        "p prior-data",
        "two-sided prior-predictive p-value of the observed count, min(1, 2 min(P(X <= s), "
        "P(X >= s))) with X ~ Beta-Binomial(n, a, b) (K > 1: s and n effective trials from "
        "the per-question variance); below 0.01 the prior and the data disagree (warned)",
        _PROB,
        POPULATION,
        "bayes",
    ),
    _c(
        "rate",
        "rate (posterior mean)",
        "posterior mean of the model's success rate (K > 1: of the population mean mu) under "
        "its prior; its interval is the equal-tailed credible interval (posterior quantiles)",
        _RATE,
        POPULATION,
        "bayes",
        True,
    ),
    _c(
        "rate_sd",
        "rate sd",
        "posterior standard deviation of the success rate",
        _RATE,
        POPULATION,
        "bayes",
    ),
    _c(
        "rate_var",
        "rate variance",
        "posterior variance of the success rate",
        "",
        POPULATION,
        "bayes",
    ),
    _c(
        "rate_hpd",
        "rate HPD",
        "highest-posterior-density credible interval of the success rate (the shortest "
        "interval holding the level's posterior mass)",
        _RATE,
        POPULATION,
        "bayes",
        True,
    ),
    _c(
        "target",
        "target p0",
        "target rate p0 of the test (H0: rate <= p0 with alternative greater)",
        _RATE,
    ),
    _c(
        "prob_rate_above",
        "P(rate > p0)",
        "posterior probability that the success rate (K > 1: mu) is above the target p0",
        _PROB,
        POPULATION,
        "bayes",
    ),
    _c(
        "p_value_binomial",
        "p exact binomial",
        "exact binomial p-value of H0: rate <= p0 (alternative greater: P(X >= s), X ~ "
        "Binomial(n, p0); scipy binomtest); K = 1 only (independent trials)",
        _PROB,
        POPULATION,
        "freq",
    ),
    _c(
        "z_rate",
        "score z",
        "score statistic (p^ - p0) / sqrt(p0 (1 - p0) / n) of the success-probability note; "
        "K = 1 only",
        "",
        POPULATION,
        "freq",
    ),
    _c(
        "p_value_score",
        "p score",
        "normal p-value of z_rate in the direction of alternative",
        _PROB,
        POPULATION,
        "freq",
    ),
    _c(
        "lr_statistic",
        "LR g",
        "likelihood-ratio statistic g = -ln Lambda = n p^ ln(p^/p0) + n (1 - p^) ln((1 - p^)/"
        "(1 - p0)) of the one-sided test (0 when p^ is on the null side); K = 1 only",
        "",
        POPULATION,
        "freq",
    ),
    _c(
        "p_value_lr",
        "p LR",
        "p-value of the likelihood-ratio test: standard normal tail of "
        "the signed root sign(p^ - p0) sqrt(2 g) (two-sided: chi-square(1) of 2 g)",
        _PROB,
        POPULATION,
        "freq",
    ),
    _c(
        "rate_exact",
        "rate Clopper-Pearson",
        "Clopper-Pearson (exact binomial) interval of the rate, dual to p_value_binomial: "
        "one-sided in the direction of alternative ([L, 1] for greater: the exact test at level "
        "1 - confidence_level rejects H0: rate <= p0 iff p0 < L), equal-tailed when two-sided; "
        "K = 1 only",
        _RATE,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "p_value_t",
        "p t-test",
        "K > 1: one-sample t-test p-value of the mean per-question score against p0 (one "
        "question = one independent unit; pooling samples as trials would overstate the "
        "evidence)",
        _PROB,
        POPULATION,
        "freq",
    ),
    _c(
        "rate_t",
        "rate t interval",
        "K > 1: t interval of the mean per-question score, one-sided like p_value_t (the open "
        "end is the rate's bound 0 or 1)",
        _RATE,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "rate_a",
        "rate A",
        "posterior mean of model A's success rate under its prior",
        _RATE,
        POPULATION,
        "bayes",
    ),
    _c(
        "rate_b",
        "rate B",
        "posterior mean of model B's success rate under its prior",
        _RATE,
        POPULATION,
        "bayes",
    ),
    _c(
        "prob_rate_a_better",
        "P(rate A > rate B)",
        "posterior probability that A's success rate is above B's under the chosen priors, the "
        "two posteriors taken as independent (the note's two-sample model: integral of f_A(x) "
        "F_B(x) dx); it ignores that the models share questions (see "
        "prob_rate_a_better_paired)",
        _PROB,
        POPULATION,
        "bayes",
    ),
    _c(
        "prob_rate_a_better_paired",
        "P(rate A > rate B), paired",
        "K = 1, shared questions: posterior probability that A's success rate is above B's "
        "from the paired outcomes, Dirichlet(1/2, 1/2, 1/2, 1/2) prior on the four outcome "
        "pairs (not the chosen Beta priors): P(Beta(a_only + 1/2, b_only + 1/2) > 1/2)",
        _PROB,
        POPULATION,
        "bayes",
    ),
    _c("a_only", "A only", "K = 1: shared questions A got right and B wrong (discordant)", "count"),
    _c("b_only", "B only", "K = 1: shared questions B got right and A wrong (discordant)", "count"),
    _c(
        "p_value_mcnemar_exact",
        "p exact McNemar",
        "K = 1: exact McNemar (sign) test on the discordant shared questions, binomial "
        "p-value of a_only out of a_only + b_only at 1/2, in the direction of alternative "
        "(1 when no question is discordant)",
        _PROB,
        POPULATION,
        "freq",
    ),
    _c(
        "p_value_paired_t",
        "p paired t",
        "K > 1: paired t-test p-value on the per-question mean differences A - B over the "
        "shared questions, in the direction of alternative",
        _PROB,
        POPULATION,
        "freq",
    ),
]
