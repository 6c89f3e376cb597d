"""The columns of the two-noise estimators: identifiers and sizes, frequentist per model and per
pair, clustered questions, conjugate Bayes and MCMC."""

from __future__ import annotations

from ._column import _ACC, _DIFF, _PROB, NONE, POPULATION, THESE, Column, _c  # noqa: F401

_ENTRIES = [
    # identifiers and sizes
    _c("model", "model", "model name"),
    _c("model_a", "model A", "first model of the pair (differences are A - B)"),
    _c("model_b", "model B", "second model of the pair"),
    _c("benchmark", "benchmark", "benchmark (task) name"),
    _c("question", "question", "question id"),
    _c("models", "models", "number of models", "count"),
    _c("questions", "questions", "number of questions the model (or pair) answered", "count"),
    _c(
        "samples_per_question",
        "K",
        "samples per question (the mean when it varies between questions)",
        "count",
    ),
    _c("k", "k", "attempts per question in pass@k", "count"),
    _c(
        "planned_questions",
        "N planned",
        "questions of the planned eval (power; default: the file's)",
        "count",
    ),
    _c(
        "planned_samples_per_question",
        "K planned",
        "samples per question of the planned eval (power; default: the constant K with the "
        "file's variance)",
        "count",
    ),
    # frequentist, per model
    _c(
        "accuracy",
        "accuracy",
        "observed accuracy: mean over questions of the per-question mean score; its interval "
        "is the frequentist score interval for the accuracy on the question population",
        _ACC,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "accuracy_here",
        "accuracy, these questions (freq)",
        "frequentist interval for the expected accuracy on these questions (Wilson at the "
        "effective size from the unbiased prediction variance); point estimate = accuracy",
        _ACC,
        THESE,
        "freq",
        True,
    ),
    _c(
        "question_accuracy",
        "question accuracy",
        "of one question: the mean over the models of their mean score on it (`questions`)",
        _ACC,
    ),
    _c("accuracy_a", "accuracy A", "observed accuracy of model A on the pair's questions", _ACC),
    _c("accuracy_b", "accuracy B", "observed accuracy of model B on the pair's questions", _ACC),
    _c(
        "se_total",
        "SE total (K = 1)",
        "standard error of a run with one sample per question: sqrt((data + prediction) / N)",
        _ACC,
        POPULATION,
        "freq",
    ),
    _c(
        "se_data",
        "SE data",
        "data-noise part of the SE: sqrt(var_i(E u_i) / N), small-K corrected",
        _ACC,
        POPULATION,
        "freq",
    ),
    _c(
        "se_prediction",
        "SE prediction, these questions (K = 1)",
        "prediction-noise part of the SE of one sample per question: sqrt(E u(1 - u) / N)",
        _ACC,
        THESE,
        "freq",
    ),
    _c(
        "se_mean",
        "SE of the score",
        "SE of a model's observed score (each question averaged over its K samples): "
        "sqrt(var_i(p_i) / N)",
        _ACC,
        POPULATION,
        "freq",
    ),
    # clustered questions
    _c("clusters", "clusters", "number of question clusters", "count"),
    _c(
        "se_clustered",
        "SE clustered",
        "cluster-robust SE of the score (questions correlated within a cluster)",
        _ACC,
        POPULATION,
        "freq",
    ),
    _c("se_iid", "SE iid", "SE of the score treating questions as independent", _ACC),
    _c("design_effect", "design effect", "variance ratio clustered / independent questions"),
    _c("design_effect_pair", "design effect (pair)", "design effect of the pair difference"),
    _c("icc", "ICC", "intra-cluster correlation of per-question scores"),
    _c(
        "clustered",
        "accuracy, cluster-robust",
        "cluster-robust score interval for the population accuracy (point = accuracy)",
        _ACC,
        POPULATION,
        "freq",
        True,
    ),
    _c("z_clustered", "z clustered", "difference / cluster-robust SE"),
    _c("p_value_clustered", "p clustered", "two-sided p-value of z_clustered (t, clusters - 1 df)"),
    _c(
        "p_value_clustered_adjusted",
        "p clustered adjusted",
        "p_value_clustered adjusted over all pairs",
    ),
    # frequentist, per pair
    _c(
        "difference",
        "A - B",
        "observed difference of accuracies on the shared questions; its interval is the "
        "frequentist paired score interval for the difference on the question population",
        _DIFF,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "difference_here",
        "A - B, these questions (freq)",
        "frequentist interval for the expected difference on these questions (Newcombe "
        "combination of the two these-questions intervals); point estimate = difference",
        _DIFF,
        THESE,
        "freq",
        True,
    ),
    _c(
        "se_difference",
        "SE of the difference",
        "SE of the observed difference (each question averaged over its K samples): "
        "sqrt(var_i(d_i) / N), d_i = p_A,i - p_B,i",
        _DIFF,
        POPULATION,
        "freq",
    ),
    _c("z", "z", "difference / se_difference"),
    _c(
        "p_value",
        "p (paired t)",
        "two-sided paired t test of the difference (t = z sqrt((N - 1) / N), N - 1 df; "
        "scipy.stats.ttest_rel on the K-averaged scores)",
        _PROB,
    ),
    _c(
        "p_value_adjusted",
        "p adjusted",
        "p_value adjusted over all pairs of the file (--adjust)",
        _PROB,
    ),
    _c(
        "p_value_sign_questions",
        "p sign",
        "exact sign test on the signs of the per-question differences",
        _PROB,
    ),
    _c("p_value_permutation", "p permutation", "sign-flip permutation test of sum_i d_i", _PROB),
    _c(
        "p_value_sign_one_sample",
        "p sign (one sample)",
        "Eval-Arena's sign test of one sample against one sample, on the expected win counts: "
        "a test for K = 1 (at K > 1 it almost never rejects: size 0.000 in simulation)",
        _PROB,
    ),
    _c(
        "p_value_mcnemar_one_sample",
        "p McNemar (one sample)",
        "Eval-Arena's McNemar test of one sample against one sample, on the expected win "
        "counts: a test for K = 1 (at K > 1 it almost never rejects: size 0.000 in simulation)",
        _PROB,
    ),
    _c("correlation", "correlation", "correlation of the two models' per-question scores"),
    _c("se_bootstrap", "SE bootstrap", "paired bootstrap SE of the difference", _DIFF),
    _c(
        "simultaneous",
        "A - B, simultaneous",
        "interval for the population difference that holds for all pairs at once "
        "(point = difference)",
        _DIFF,
        POPULATION,
        "freq",
        True,
    ),
    _c("p_value_simultaneous", "p simultaneous", "p-value adjusted for all pairs (max-|T|)", _PROB),
    # conjugate Bayes, per model
    _c(
        "mu",
        "mu (population, Bayes)",
        "posterior mean of the accuracy on the question population, i.e. of the mean of the "
        "per-question accuracies over new questions like these, under a Dirichlet (shape-free) "
        "posterior of that population (closed form); not the Beta mean mu of the model "
        "u_i ~ Beta(mu kappa, (1 - mu) kappa) (that is mu_beta, by MCMC), which it equals only "
        "when the difficulties are Beta-shaped",
        _ACC,
        POPULATION,
        "bayes",
        True,
    ),
    _c(
        "ubar",
        "ubar (these questions, Bayes)",
        "posterior mean of mean_i u_i, the expected accuracy on these questions: each question "
        "shrunk toward the fitted Beta population (kappa integrated on a grid), or toward the "
        "nonparametric prior where ubar_prior says so (closed form)",
        _ACC,
        THESE,
        "bayes",
        True,
    ),
    _c(
        "kappa_median",
        "kappa, posterior median (Bayes)",
        "posterior median of kappa, the concentration of the Beta question-difficulty "
        "population (its posterior is right-skewed; the value given when assumed with "
        "--kappa)",
        "",
        NONE,
        "bayes",
    ),
    _c(
        "kappa_status",
        "kappa status",
        "estimated, at lower/upper bound, not identified (K = 1): prior, or assumed (--kappa)",
    ),
    _c(
        "se_data_bayes",
        "SE data (Bayes)",
        "data-noise SE implied by the fitted Beta population: sqrt(mu(1 - mu) / (kappa + 1) / N)",
        _ACC,
        POPULATION,
        "bayes",
    ),
    _c(
        "se_prediction_bayes",
        "SE prediction, these questions (Bayes)",
        "prediction-noise SE (one sample per question) implied by the fitted Beta population",
        _ACC,
        THESE,
        "bayes",
    ),
    # conjugate Bayes, per pair
    _c(
        "dbar",
        "dbar (these questions, Bayes)",
        "posterior mean of mean_i (u_A,i - u_B,i): A - B on these questions; with a K = 1 "
        "model, from the narrower of the binomial bound and the population interval "
        "(dbar_method says which)",
        _DIFF,
        THESE,
        "bayes",
        True,
    ),
    _c(
        "prob_a_better",
        "P(A > B), these questions (Bayes)",
        "posterior P(dbar > 0) (with a K = 1 model, from the answer dbar_method names)",
        _PROB,
        THESE,
        "bayes",
    ),
    _c(
        "dbar_method",
        "dbar from (these questions, Bayes)",
        "where dbar, its interval and prob_a_better come from: posterior (the two models' ubar "
        "posteriors); binomial bound (K = 1) (kappa-free, ignores the pairing); population "
        "interval (K = 1) (mu_difference's, valid for these questions too: the prediction "
        "variance of a paired difference is at most its total variance; used when narrower)",
        "",
        THESE,
        "bayes",
    ),
    _c(
        "mu_difference",
        "mu A - mu B (population, Bayes)",
        "posterior mean of mu A - mu B, the paired difference of the population accuracies "
        "(Dirichlet weights over questions, shared by the pair); not a difference of Beta means "
        "(that is mu_beta_difference, by MCMC)",
        _DIFF,
        POPULATION,
        "bayes",
        True,
    ),
    _c(
        "prob_a_better_population",
        "P(A > B), population (Bayes)",
        "posterior P(mu_difference > 0)",
        _PROB,
        POPULATION,
        "bayes",
    ),
    # MCMC (full Bayes in PyMC)
    _c(
        "mu_beta",
        "mu (Beta population, MCMC)",
        "posterior mean of the Beta population mean mu of u_i ~ Beta(mu kappa, (1 - mu) kappa), "
        "by MCMC; differs from mu when the difficulties are not Beta-shaped",
        _ACC,
        POPULATION,
        "mcmc",
        True,
    ),
    _c(
        "ubar_mcmc",
        "ubar (these questions, MCMC)",
        "posterior mean of mean_i u_i by MCMC (checks ubar)",
        _ACC,
        THESE,
        "mcmc",
        True,
    ),
    _c(
        "kappa_median_mcmc",
        "kappa, posterior median (MCMC)",
        "posterior median of kappa by MCMC",
        "",
        NONE,
        "mcmc",
    ),
    _c(
        "se_data_mcmc",
        "SE data (MCMC)",
        "data-noise SE implied by the MCMC posterior",
        _ACC,
        POPULATION,
        "mcmc",
    ),
    _c(
        "se_prediction_mcmc",
        "SE prediction, these questions (MCMC)",
        "prediction-noise SE (one sample per question) implied by the MCMC posterior",
        _ACC,
        THESE,
        "mcmc",
    ),
    _c(
        "dbar_mcmc",
        "dbar (these questions, MCMC)",
        "posterior mean of mean_i (u_A,i - u_B,i) by MCMC (checks dbar)",
        _DIFF,
        THESE,
        "mcmc",
        True,
    ),
    _c(
        "prob_a_better_mcmc",
        "P(A > B), these questions (MCMC)",
        "posterior P(dbar > 0) by MCMC",
        _PROB,
        THESE,
        "mcmc",
    ),
    _c(
        "mu_beta_difference",
        "mu A - mu B (Beta population, MCMC)",
        "posterior mean of the difference of the Beta population means by MCMC",
        _DIFF,
        POPULATION,
        "mcmc",
        True,
    ),
    _c(
        "prob_a_better_beta",
        "P(mu_beta A > B), population (MCMC)",
        "posterior P(mu_beta_difference > 0) by MCMC",
        _PROB,
        POPULATION,
        "mcmc",
    ),
]
