"""The column registry: every column name the package prints, what it estimates, and how.

One table, read by every table, CSV/JSON output, command-line help, report and plot label. The
rules it encodes:

* a name means one estimand computed one way wherever it appears; where two methods estimate
  the same estimand the name says the method (``ubar`` from the closed form, ``ubar_mcmc``
  from MCMC; ``se_data`` frequentist, ``se_data_bayes`` from the posterior);
* the *scope* is either ``these questions`` (the N questions asked: prediction noise only) or
  ``question population`` (new questions like these: data and prediction noise);
* interval columns are ``<name>_low`` / ``<name>_high`` of a registered ``<name>``.

Nothing here imports numpy or xarray: the registry is plain data.

Examples
--------
>>> describe("mu_difference_low")["scope"]
'question population'
>>> label("prob_a_better")
'P(A > B), these questions (Bayes)'
"""

from __future__ import annotations

from dataclasses import dataclass

# The documented API of this layer (the surface is counted over these lists,
# tests/test_surface.py); the other names stay importable for the package's own layers.
__all__ = [
    "describe",
    "is_registered",
]

THESE = "these questions"
POPULATION = "question population"
NONE = ""


@dataclass(frozen=True)
class Column:
    """One registered column: its label, meaning, unit, scope and method."""

    name: str
    label: str
    description: str
    unit: str = ""
    scope: str = NONE
    method: str = ""
    interval: bool = False  # ``<name>_low`` / ``<name>_high`` exist


def _c(name, label, description, unit="", scope=NONE, method="", interval=False):
    return Column(name, label, description, unit, scope, method, interval)


_ACC = "fraction correct (0-1)"
_DIFF = "difference of fractions correct (-1 to 1)"
_PROB = "probability (0-1)"

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
    # ranks
    _c("prob_best", "P(best)", "probability that the model has the highest accuracy", _PROB),
    _c("expected_rank", "expected rank", "expected rank (1 = best)"),
    _c("rank", "rank", "rank interval (1 = best)", "", NONE, "", True),
    _c("in_top_group", "top group", "the model cannot be told apart from the best"),
    _c("group", "group", "compact letter display: models sharing a letter are tied"),
    # power
    _c(
        "data",
        "data variance",
        "per-question data variance (of the pair difference in power and plan; of the model's "
        "score in plan on one model), clipped at 0; NaN where K = 1 leaves it unsplit",
    ),
    _c(
        "prediction",
        "prediction variance",
        "per-question prediction variance of one sample (of the pair difference in power and "
        "plan; of the model's score in plan on one model)",
    ),
    _c("paired_min_difference", "min. difference (paired)", "smallest detectable", _DIFF),
    _c("unpaired_min_difference", "min. difference (unpaired)", "smallest detectable", _DIFF),
    _c("paired_questions_needed", "N needed (paired)", "questions for the power asked", "count"),
    _c("paired_samples_needed", "K needed (paired)", "samples per question needed", "count"),
    _c("unpaired_questions_needed", "N needed (unpaired)", "questions needed", "count"),
    _c("unpaired_samples_needed", "K needed (unpaired)", "samples per question needed", "count"),
    _c("cluster_size", "cluster size", "mean questions per cluster", "count"),
    _c("clustered_min_difference", "min. difference (clusters)", "smallest detectable", _DIFF),
    _c("clustered_clusters_needed", "clusters needed", "clusters for the power asked", "count"),
    _c("clustered_questions_needed", "N needed (clusters)", "questions needed", "count"),
    # pass@k
    _c(
        "pass_at_k",
        "pass@k",
        "mean over questions of the unbiased per-question pass@k estimate; its interval is "
        "the frequentist interval for the population pass@k",
        _ACC,
        POPULATION,
        "freq",
        True,
    ),
    _c("se_pass_at_k", "SE pass@k", "SE of pass_at_k over questions", _ACC),
    _c("pass_at_k_a", "pass@k A", "pass_at_k of model A", _ACC),
    _c("pass_at_k_b", "pass@k B", "pass_at_k of model B", _ACC),
    _c(
        "pass_at_k_difference",
        "pass@k A - B",
        "pass_at_k_a - pass_at_k_b; its interval is frequentist, for the population",
        _DIFF,
        POPULATION,
        "freq",
        True,
    ),
    _c("se_pass_at_k_difference", "SE pass@k A - B", "paired SE of the difference", _DIFF),
    _c("t_pass_at_k", "t pass@k", "paired t statistic of pass_at_k_difference (N - 1 df)"),
    _c("p_value_pass_at_k", "p pass@k", "two-sided paired t test of pass_at_k_difference", _PROB),
    _c(
        "pass_at_k_bayes",
        "pass@k, these questions (Bayes)",
        "posterior mean of pass@k on these questions",
        _ACC,
        THESE,
        "bayes",
        True,
    ),
    _c(
        "population_pass_at_k",
        "pass@k, population (Bayes)",
        "posterior mean of pass@k on the question population",
        _ACC,
        POPULATION,
        "bayes",
        True,
    ),
    # benchmark quality
    _c(
        "solved_by",
        "solved by",
        "number of models with at least one sample of the question correct",
        "count",
    ),
    _c("weakest_solver", "weakest solver", "the least accurate model that solved the question"),
    _c(
        "weakest_solver_accuracy",
        "weakest solver accuracy",
        "overall accuracy of the weakest model that solved the question",
        _ACC,
    ),
    _c(
        "kendall_tau",
        "Kendall tau",
        "Kendall tau-b between the question's per-model scores and the models' overall "
        "accuracies (scipy.stats.kendalltau); negative: better models do worse on it",
    ),
    _c(
        "suspect_rank",
        "suspect rank",
        "rank of kendall_tau, most negative first (1 = most suspect)",
    ),
    _c(
        "win_rate",
        "win rate",
        "Eval-Arena's win rate: mean over the other models and the questions of "
        "P(the model passes and the other fails)",
        _PROB,
    ),
    _c(
        "elo",
        "Elo",
        "Bradley-Terry rating fitted to the expected win counts, a tie (both pass or both "
        "fail) counted as half a win for each side as in Chatbot Arena and Eval-Arena, 400 "
        "points per factor of 10 in odds, mean 1000; interval from a bootstrap over questions",
        "Elo points",
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "elo_decisive",
        "Elo (ties excluded)",
        "Bradley-Terry rating fitted to the expected decisive wins only (a tie is no battle; "
        "frequentist.elo(ties='exclude')); wider spread than elo, not comparable with arena "
        "tables; 400 points per factor of 10 in odds, mean 1000",
        "Elo points",
        POPULATION,
        "freq",
        True,
    ),
    # signal-to-noise and decision accuracy
    _c("subtask", "subtask", "the value of the group column (--group-column) of the row"),
    _c("noise_model", "noise model", "the model whose noise is in the row's noise columns"),
    _c(
        "checkpoints",
        "checkpoints",
        "checkpoints of the noise model's series in the noise",
        "count",
    ),
    _c(
        "signal",
        "signal",
        "spread of the models' scores relative to their mean: max_jk |m_j - m_k| / mean_j m_j "
        "(signal-and-noise); m_j the final-checkpoint score, else the accuracy",
    ),
    _c(
        "noise_checkpoints",
        "noise (checkpoints)",
        "std / mean of the noise model's scores over its last checkpoints (ddof 0; "
        "signal-and-noise)",
    ),
    _c("snr_checkpoints", "SNR (checkpoints)", "signal / noise_checkpoints (signal-and-noise)"),
    _c(
        "noise_se_total",
        "noise (SE total)",
        "se_total / accuracy of the noise model: the measured total noise (one sample per "
        "question) relative to its score; not the checkpoint noise",
    ),
    _c("snr_se_total", "SNR (SE total)", "signal / noise_se_total"),
    _c(
        "noise_se_prediction",
        "noise (SE prediction)",
        "se_prediction / accuracy of the noise model: the measured prediction noise relative to "
        "its score (empty at K = 1); not the checkpoint noise",
    ),
    _c("snr_se_prediction", "SNR (SE prediction)", "signal / noise_se_prediction"),
    _c("family", "family", "model series (--families)"),
    _c("size_a", "size A", "size of model A, the bigger model of the pair (--families)"),
    _c("size_b", "size B", "size of model B, the next smaller model of its family"),
    _c("size_doublings", "size doublings", "log2(size_a / size_b)"),
    _c(
        "family_snr",
        "family SNR",
        "Eval-Arena's family signal-to-noise: z / size_doublings = (accuracy_a - accuracy_b) / "
        "se_difference / log2(size_a / size_b)",
    ),
    _c("model_pairs", "model pairs", "number of model pairs compared", "count"),
    _c(
        "decision_accuracy",
        "decision accuracy",
        "fraction of model pairs i < j (models by name) with (s_i > s_j) == (t_i > t_j) "
        "(signal-and-noise decision_acc_fast); interval: percentile bootstrap over models",
        _PROB,
        "",
        "freq",
        True,
    ),
    _c(
        "expected_decision_accuracy",
        "expected decision accuracy",
        "decision accuracy the measured noise alone allows: its mean when the small side ranks "
        "the models as the target and both are re-measured with their bootstrap-over-questions "
        "noise",
        _PROB,
    ),
    # coverage self-check (bayesnoise coverage)
    _c(
        "interval",
        "interval",
        "the printed interval whose coverage is checked (its <interval>_low / _high columns)",
    ),
    _c(
        "population",
        "population",
        "simulated question population: fitted (each model's fitted Beta), two-point (easy and "
        "hard questions matched to each model's accuracy and data variance) or empirical (the "
        "observed per-question scores, resampled)",
    ),
    _c("scope", "scope", "what the interval is about: these questions or the question population"),
    _c("replicates", "replicates", "simulated evals (per population)", "count"),
    _c("units", "units", "models or pairs whose intervals are pooled in each replicate", "count"),
    _c(
        "population_role",
        "role",
        "fitted to the file (each model's fitted Beta: its coverage_status is the verdict on "
        "the file's intervals) or stress test (two-point, empirical: deliberately unlike the "
        "Beta model; coverage and width reported, not judged)",
    ),
    _c(
        "coverage",
        "coverage",
        "share of the simulated intervals that contain their truth (over units and replicates)",
        _PROB,
    ),
    _c(
        "coverage_mcse",
        "coverage MCSE",
        "Monte Carlo SE of coverage (from the spread of the per-replicate coverages)",
        _PROB,
    ),
    _c(
        "coverage_status",
        "status",
        "fitted population only: ok; under / over: coverage outside the nominal level +- 2 "
        "MCSE; not printed (the interval is empty for these data); stress test rows: 'stress "
        "test' (no verdict)",
    ),
    _c("median_width", "median width", "median width of the simulated intervals"),
    # regression gate (check), anytime-valid monitoring (monitor), budget (plan)
    _c(
        "accuracy_baseline",
        "accuracy baseline",
        "baseline's accuracy on the shared questions (judge-graded: its PPI++ accuracy there)",
        _ACC,
    ),
    _c("accuracy_candidate", "accuracy candidate", "candidate's accuracy on them", _ACC),
    _c(
        "change",
        "candidate - baseline",
        "observed candidate - baseline on the shared questions (combined: the mean over the "
        "benchmarks); its interval is the two-sided 1 - 2 alpha paired t interval, whose upper "
        "end is the one-sided bound the regression gate tests, or where an exact test decides "
        "(column test) the betting interval, valid at any N (none for a combined exact test). "
        "Judge-graded (check --judge-col/--human-col/--human): the PPI++ corrected difference "
        "and its two-sided 1 - 2 alpha PPI++ interval, each end a one-sided 1 - alpha bound",
        _DIFF,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "se_change",
        "SE of the change",
        "SE of change: sd_i(d_i) / sqrt(N) (ddof 1); combined: sqrt(sum of squares) / benchmarks; "
        "judge-graded: the PPI++ SE",
        _DIFF,
        POPULATION,
        "freq",
    ),
    _c(
        "t_change",
        "t",
        "(change + margin) / se_change, the one-sided paired t statistic of the gate (the z "
        "statistic of the PPI++ test on judge-graded scores)",
    ),
    _c(
        "df",
        "df",
        "degrees of freedom of the t reference (N - 1; combined: Welch-Satterthwaite; inf for "
        "the PPI++ z test)",
        "count",
    ),
    _c(
        "test",
        "test",
        "the test that decided: t (paired t), sign (binomtest on the discordant questions), "
        "sign-flip (exact permutation of the signs), betting (bounded mean, with a margin), "
        "none; the last three where every difference is equal or fewer than 30 questions differ; "
        "PPI++ paired z on judge-graded scores corrected with human labels",
    ),
    _c(
        "p_value_regression",
        "p regression",
        "one-sided p-value of 'no regression' (change >= -margin) against a drop beyond the "
        "margin, of the test in column test",
        _PROB,
    ),
    _c(
        "p_value_regression_adjusted",
        "p regression (Holm)",
        "p_value_regression adjusted by Holm over the benchmarks and the combined test",
        _PROB,
    ),
    _c(
        "change_bayes",
        "candidate - baseline (Bayes)",
        "posterior mean of the population difference candidate - baseline (Dirichlet weights "
        "over the questions, as mu_difference); equal-tailed 1 - 2 alpha interval. Judge-graded: "
        "the judge-misclassification model's posterior (Se, Sp per model)",
        _DIFF,
        POPULATION,
        "bayes",
        True,
    ),
    _c(
        "prob_no_regression",
        "P(no regression) (Bayes)",
        "posterior probability that the candidate is not worse by more than the margin",
        _PROB,
        POPULATION,
        "bayes",
    ),
    _c(
        "prob_no_regression_adjusted",
        "P(no regression), Holm (Bayes)",
        "prob_no_regression adjusted by Holm over the benchmarks and the combined test "
        "(used as a p-value)",
        _PROB,
        POPULATION,
        "bayes",
    ),
    _c("regression", "regression", "a regression beyond the margin is shown at alpha (Holm)"),
    _c(
        "verdict",
        "verdict",
        "the gate's reading: regression, no regression shown, non-inferior within the margin, "
        "or improvement",
    ),
    _c(
        "confidence_sequence",
        "A - B, confidence sequence",
        "anytime-valid confidence sequence for the population difference (betting, hedged "
        "capital): it holds at every question at once with probability >= 1 - alpha "
        "(point = difference so far)",
        _DIFF,
        POPULATION,
        "freq",
        True,
    ),
    _c(
        "p_value_always_valid",
        "p (always valid)",
        "always-valid p-value of A - B = -margin: may be checked after every question",
        _PROB,
    ),
    _c("stopped", "stopped", "the sequential test has rejected by this question"),
    _c("decision", "decision", "continue, or the sequential test's finding once it stopped"),
    _c(
        "k_star",
        "K*",
        "cost-optimal samples per question before rounding: "
        "sqrt(cost_question * prediction / (cost_sample * data))",
        "count",
    ),
    _c("optimal_questions", "N (plan)", "questions of the cost-optimal design", "count"),
    _c(
        "optimal_samples_per_question",
        "K (plan)",
        "samples per question of the cost-optimal design (exact search over whole K)",
        "count",
    ),
    _c(
        "se_planned",
        "SE (plan)",
        "expected SE at the plan, sqrt((data + prediction / K) / N): of the pair's difference; "
        "on one model of its accuracy (target_se) or of A - B with a second model like it "
        "(difference; the assumption is printed); with --factor, over the template "
        "population: sqrt(question / N + template / T + question x template / (N T) + "
        "sampling / (N T K))",
        _DIFF,
        POPULATION,
        "freq",
    ),
    _c("power_planned", "power (plan)", "power at the plan for the difference asked", _PROB),
    _c(
        "cost_planned",
        "cost (plan)",
        "N (cost_question + K cost_sample) of the plan; with --factor, cost_question N + "
        "cost_template T + cost_sample N T K",
        "cost",
    ),
    _c("questions_k1", "N at K = 1", "questions needed with one sample each", "count"),
    _c("cost_k1", "cost at K = 1", "cost of that design", "cost"),
    _c(
        "current_samples_per_question",
        "K now",
        "samples per question of the pilot (the constant K with its variance)",
        "count",
    ),
    _c("questions_current_k", "N at K now", "questions needed at the pilot's K", "count"),
    _c("cost_current_k", "cost at K now", "cost of that design", "cost"),
    _c("priority", "priority", "order in which to add the samples (1 = first)", "count"),
    _c("extra_samples", "extra samples", "samples to add for this model on this question", "count"),
    _c(
        "question_prediction_variance",
        "prediction variance (question)",
        "posterior mean of u (1 - u) of this model on this question (fitted Beta population)",
    ),
    # prior behind ubar / dbar (conjugate posterior)
    _c(
        "ubar_prior",
        "ubar prior (Bayes)",
        "prior of the question accuracies behind ubar and dbar: beta (the fitted Beta "
        "population), nonparametric (the NPMLE's atoms with a posterior on their locations "
        "and weights, where a likelihood-ratio test rejects the Beta population at the 1% "
        "level) or binomial bound (K = 1) (one sample per question: kappa is not identified, "
        "and ubar gets the Jeffreys posterior Beta(c + 1/2, N - c + 1/2), conservative "
        "whatever kappa; ubar_prior='beta' keeps the kappa-dependent one)",
        "",
        NONE,
        "bayes",
    ),
    # Eval-Arena summary
    _c("p5_min", "p5 min", "smallest difference significant at 5% (Eval-Arena)", _DIFF),
    _c("p5_max", "p5 max", "largest difference not significant at 5% (Eval-Arena)", _DIFF),
    _c("p5_min_count", "p5 min count", "questions behind p5_min", "count"),
    _c("p5_max_count", "p5 max count", "questions behind p5_max", "count"),
    # reference noise models
    _c("run", "run", "source run of the reference tables"),
    _c("close_pairs", "close pairs", "pairs within 5 SE of each other", "count"),
    _c(
        "se_difference_median_close",
        "SE difference (median, close pairs)",
        "median over a reference run's close pairs of the paired total SE at K = 1 (not the "
        "se_difference of one pair)",
        _DIFF,
    ),
    _c(
        "se_difference_data_median_close",
        "SE difference data (median, close pairs)",
        "its data part",
        _DIFF,
    ),
    _c(
        "se_difference_prediction_median_close",
        "SE difference prediction (median, close pairs)",
        "its prediction part",
        _DIFF,
    ),
    _c("benchmark_kappa", "benchmark kappa", "median kappa over the benchmark's models"),
    _c("ratio_to_theory", "ratio to theory", "measured / Beta-theory SE (median)"),
    _c("se_model", "SE model", "median SE of one model at K = 1", _ACC),
    _c("se_model_theory", "SE model (theory)", "Beta-theory SE at the given accuracy", _ACC),
    _c("se_model_data_theory", "SE data (theory)", "its data part", _ACC),
    _c("se_model_prediction_theory", "SE prediction (theory)", "its prediction part", _ACC),
    _c("se_difference_theory", "SE difference (theory)", "Beta-theory paired SE", _DIFF),
]

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

# Prompt templates, runs and judges as measured factors (``noises``).
# Scopes: the registry knows these questions or the question population; over which templates
# (their population, or these) is in each name (``*_templates`` / ``*_these_templates``).
_TEMPLATES = _THESE_TEMPLATES = POPULATION
_FACTOR_ENTRIES: list[Column] = [
    _c("factor", "factor", "the crossed factor measured (a column named with --factor)"),
    _c("templates", "T", "levels of the crossed factor (prompt templates) with results", "count"),
    _c("cells", "cells", "(question, template) cells with at least one run", "count"),
    _c(
        "runs_per_cell",
        "K per cell",
        "runs per (question, template) cell, the mean when it varies; runs are replicates",
        "count",
    ),
    _c(
        "component",
        "component",
        "source of variance: question, template (the factor), question x template, sampling "
        "(runs within a cell); for a pair the template part is the model x template interaction",
    ),
    _c(
        "accuracy_templates",
        "accuracy, template population (freq)",
        "mean over templates of each template's mean score; its interval is for the expected "
        "accuracy over new questions and new templates like these (templates a random draw), "
        "t with Satterthwaite degrees of freedom",
        _ACC,
        _TEMPLATES,
        "freq",
        True,
    ),
    _c(
        "accuracy_these_templates",
        "accuracy, these templates (freq)",
        "the same mean; its interval is for the expected accuracy over new questions under "
        "these templates (templates fixed): no template part in its SE",
        _ACC,
        _THESE_TEMPLATES,
        "freq",
        True,
    ),
    _c(
        "se_templates",
        "SE, template population",
        "standard error of accuracy_templates (or difference_templates): sqrt of the sum of "
        "the variance parts, a negative template part counted as 0",
        _ACC,
        _TEMPLATES,
        "freq",
    ),
    _c(
        "se_these_templates",
        "SE, these templates",
        "standard error for these templates: question, question x template and sampling parts",
        _ACC,
        _THESE_TEMPLATES,
        "freq",
    ),
    _c(
        "df_templates",
        "df, template population",
        "Satterthwaite degrees of freedom of se_templates (near T - 1 when the template part "
        "dominates: few templates, few degrees of freedom)",
        "count",
        _TEMPLATES,
        "freq",
    ),
    _c(
        "df_these_templates",
        "df, these templates",
        "Satterthwaite degrees of freedom of se_these_templates (near N - 1)",
        "count",
        _THESE_TEMPLATES,
        "freq",
    ),
    _c(
        "difference_templates",
        "A - B, template population (freq)",
        "paired difference of accuracy_templates on the cells both models have; its interval "
        "counts the model x template interaction (templates a random draw)",
        _DIFF,
        _TEMPLATES,
        "freq",
        True,
    ),
    _c(
        "difference_these_templates",
        "A - B, these templates (freq)",
        "the same difference; its interval is for these templates (no model x template part)",
        _DIFF,
        _THESE_TEMPLATES,
        "freq",
        True,
    ),
    _c(
        "p_value_templates",
        "p, template population",
        "two-sided t test of difference_templates = 0 (Satterthwaite degrees of freedom)",
        _PROB,
        _TEMPLATES,
        "freq",
    ),
    _c(
        "p_value_these_templates",
        "p, these templates",
        "two-sided t test of difference_these_templates = 0",
        _PROB,
        _THESE_TEMPLATES,
        "freq",
    ),
    _c(
        "p_value_templates_adjusted",
        "p adjusted, template population",
        "p_value_templates adjusted over all pairs of the file (pairs --adjust, default Holm; "
        "compare: Holm)",
        _PROB,
        _TEMPLATES,
        "freq",
    ),
    _c(
        "variance_component",
        "variance component",
        "unbiased estimate of the component's variance for one run's score (method of moments; "
        "may be negative by chance; with one run per cell question x template includes "
        "sampling)",
        "variance of scores",
        _TEMPLATES,
        "freq",
    ),
    _c(
        "variance_part",
        "part of SE^2",
        "the component's part of se_templates^2 (they add up to it): question / N, template "
        "/ T (a negative one counted as 0), question x template / (N T), sampling / (N T K) "
        "when balanced",
        "variance of scores",
        _TEMPLATES,
        "freq",
    ),
    _c(
        "accuracy_templates_mcmc",
        "accuracy, template population (MCMC)",
        "posterior mean of the expected accuracy over new questions and new templates, from "
        "the crossed logit model (random question, template, question x template, model x "
        "template and model x question effects; Gauss-Hermite over the effects per draw); "
        "equal-tailed interval",
        _ACC,
        _TEMPLATES,
        "mcmc",
        True,
    ),
    _c(
        "accuracy_these_templates_mcmc",
        "accuracy, these templates (MCMC)",
        "posterior mean of the mean over these templates of the expected accuracy over new "
        "questions, same model; equal-tailed interval",
        _ACC,
        _THESE_TEMPLATES,
        "mcmc",
        True,
    ),
    _c(
        "difference_templates_mcmc",
        "A - B, template population (MCMC)",
        "posterior mean of accuracy_templates_mcmc A - B; equal-tailed interval",
        _DIFF,
        _TEMPLATES,
        "mcmc",
        True,
    ),
    _c(
        "difference_these_templates_mcmc",
        "A - B, these templates (MCMC)",
        "posterior mean of accuracy_these_templates_mcmc A - B; equal-tailed interval",
        _DIFF,
        _THESE_TEMPLATES,
        "mcmc",
        True,
    ),
    _c(
        "prob_a_better_templates_mcmc",
        "P(A > B), template population (MCMC)",
        "posterior P(difference_templates_mcmc > 0)",
        _PROB,
        _TEMPLATES,
        "mcmc",
    ),
    _c(
        "sd_logit_mcmc",
        "SD, logit scale (MCMC)",
        "posterior mean of the random effect's standard deviation on the logit scale (not a "
        "variance of scores: compare shares, not values, with variance_component)",
        "logit",
        _TEMPLATES,
        "mcmc",
    ),
    _c(
        "variance_share",
        "share",
        "variance_part / se_templates^2 (the parts are unbiased, so a share may be negative)",
        "fraction (0-1)",
        _TEMPLATES,
        "freq",
    ),
    # plan --factor template: templates, questions and runs to buy
    _c(
        "optimal_templates",
        "T (plan)",
        "templates of the cost-optimal crossed design (every question under every template, "
        "K runs per cell; exact search over whole T, N and K)",
        "count",
    ),
    _c(
        "se_current_design",
        "SE at the pilot's design",
        "sqrt(question / N + template / T + question x template / (N T) + sampling / (N T K)) "
        "at the pilot's N, T and K from its variance components: se_templates of noises for "
        "a balanced pilot",
        _ACC,
        _TEMPLATES,
        "freq",
    ),
    _c(
        "df_planned",
        "df (plan)",
        "Satterthwaite degrees of freedom of se_planned at the planned design, from the "
        "expected mean squares (near T - 1 when the template part dominates)",
        "count",
    ),
    _c(
        "questions_current_design",
        "N at T, K now",
        "questions needed at the pilot's T and K (NaN: no N reaches the target, the template "
        "part alone is too large)",
        "count",
    ),
    _c(
        "cost_current_design",
        "cost at T, K now",
        "cost_question N + cost_template T + cost_sample N T K of that design",
        "cost",
    ),
]

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

_ENTRIES += _RATE_ENTRIES + _FACTOR_ENTRIES + _JUDGE_ENTRIES

#: name -> :class:`Column`, in the order above.
REGISTRY: dict[str, Column] = {c.name: c for c in _ENTRIES}

# The columns each command prints, in its order, every option included (an interval's
# ``_low`` / ``_high`` go with its name); ``bayesnoise columns --command NAME`` lists them.
# tests/test_results.py checks each command's printed columns against its list.
_COMMAND_COLUMNS: dict[str, tuple[str, ...]] = {
    "noise": (
        *("model", "questions", "samples_per_question", "accuracy", "se_total", "se_data"),
        *("se_prediction", "se_mean", "clusters", "se_clustered", "design_effect", "icc"),
        "clustered",
    ),
    "pairs": (
        *("model_a", "model_b", "accuracy_a", "accuracy_b", "difference", "se_total"),
        *("se_data", "se_prediction", "se_difference", "z", "p_value", "p_value_adjusted"),
        *("p_value_sign_questions", "p_value_permutation", "p_value_sign_one_sample"),
        *("p_value_mcnemar_one_sample", "correlation", "se_bootstrap", "simultaneous"),
        *("p_value_simultaneous", "se_clustered", "design_effect_pair", "z_clustered"),
        *("p_value_clustered", "p_value_clustered_adjusted"),
        # with factors (--factor): the crossed rows of noises --by pair
        *("factor", "templates", "cells", "runs_per_cell", "difference_templates"),
        *("se_templates", "df_templates", "p_value_templates", "p_value_templates_adjusted"),
        *("difference_these_templates", "se_these_templates", "df_these_templates"),
        "p_value_these_templates",
    ),
    "arena": (
        *("benchmark", "models", "questions", "p5_min", "p5_max", "p5_min_count"),
        "p5_max_count",
    ),
    "compare": (
        *("model", "questions", "samples_per_question", "accuracy", "accuracy_here", "ubar"),
        *("mu", "kappa_median", "kappa_status", "model_a", "model_b", "difference"),
        *("difference_here", "dbar", "prob_a_better", "dbar_method", "mu_difference"),
        *("prob_a_better_population", "z", "p_value", "p_value_sign_questions"),
        # with factors (--factor): the crossed rows of noises (per model or per pair)
        *("factor", "templates", "cells", "runs_per_cell", "accuracy_templates"),
        *("se_templates", "df_templates", "accuracy_these_templates", "se_these_templates"),
        *("df_these_templates", "accuracy_a", "accuracy_b", "difference_templates"),
        *("p_value_templates", "p_value_templates_adjusted", "difference_these_templates"),
        "p_value_these_templates",
    ),
    "posterior": (
        *("model", "questions", "accuracy", "mu", "ubar", "ubar_prior", "kappa_median"),
        *("kappa_status", "se_data_bayes", "se_prediction_bayes", "model_a", "model_b"),
        *("dbar", "prob_a_better", "dbar_method", "mu_difference", "prob_a_better_population"),
        "mu_beta",
        *("ubar_mcmc", "kappa_median_mcmc", "se_data_mcmc", "se_prediction_mcmc", "dbar_mcmc"),
        *("prob_a_better_mcmc", "mu_beta_difference", "prob_a_better_beta"),
    ),
    "ranks": ("model", "accuracy", "prob_best", "expected_rank", "rank", "in_top_group", "group"),
    "power": (
        *("model_a", "model_b", "difference", "planned_questions"),
        *("planned_samples_per_question", "data", "prediction", "paired_min_difference"),
        *("unpaired_min_difference", "paired_questions_needed", "paired_samples_needed"),
        *("unpaired_questions_needed", "unpaired_samples_needed", "cluster_size"),
        *("clustered_min_difference", "clustered_clusters_needed", "clustered_questions_needed"),
    ),
    "passk": (
        *("model", "questions", "k", "pass_at_k", "se_pass_at_k", "model_a", "model_b"),
        *("pass_at_k_a", "pass_at_k_b", "pass_at_k_difference", "se_pass_at_k_difference"),
        *("t_pass_at_k", "p_value_pass_at_k", "pass_at_k_bayes", "population_pass_at_k"),
        "kappa_status",
    ),
    "reference": (
        *("run", "benchmark", "models", "questions", "samples_per_question", "close_pairs"),
        *("se_difference_median_close", "se_difference_data_median_close"),
        *("se_difference_prediction_median_close", "benchmark_kappa", "ratio_to_theory"),
        *("se_model", "accuracy", "se_model_theory", "se_model_data_theory"),
        *("se_model_prediction_theory", "se_difference_theory"),
    ),
    "questions": (
        *("question", "question_accuracy", "solved_by", "weakest_solver"),
        *("weakest_solver_accuracy", "kendall_tau", "suspect_rank"),
    ),
    "leaderboard": ("model", "accuracy", "win_rate", "elo", "rank", "group"),
    "check": (
        *("benchmark", "questions", "accuracy_baseline", "accuracy_candidate", "change"),
        *("se_change", "t_change", "df", "test", "p_value_regression"),
        *("p_value_regression_adjusted", "regression", "verdict", "change_bayes"),
        *("prob_no_regression", "prob_no_regression_adjusted", "human_labels", "ppi_lambda"),
        *("effective_human_labels", "difference_judge"),
    ),
    "monitor": (
        *("question", "questions", "difference", "confidence_sequence"),
        *("p_value_always_valid", "stopped", "decision"),
    ),
    "plan": (
        *("model_a", "model_b", "run", "benchmark", "data", "prediction", "k_star"),
        *("optimal_questions", "optimal_samples_per_question", "se_planned"),
        *("power_planned", "cost_planned", "questions_k1", "cost_k1"),
        *("current_samples_per_question", "questions_current_k", "cost_current_k"),
        *("priority", "question", "model", "samples_per_question", "extra_samples"),
        "question_prediction_variance",
        *("factor", "component", "questions", "templates", "runs_per_cell", "se_current_design"),
        *("optimal_templates", "df_planned", "questions_current_design", "cost_current_design"),
        "variance_component",
        *("human_labels_needed", "human_labels_alone", "human_cost", "human_labels_cost"),
        *("items", "human_labels", "ppi_lambda"),
    ),
    "coverage": (
        *("interval", "population", "population_role", "scope", "replicates", "units"),
        "coverage",
        *("coverage_mcse", "coverage_status", "median_width"),
    ),
    "signal": (
        *("subtask", "noise_model", "models", "checkpoints", "signal", "noise_checkpoints"),
        *("snr_checkpoints", "noise_se_total", "snr_se_total", "noise_se_prediction"),
        *("snr_se_prediction", "model_a", "model_b", "family", "size_a", "size_b"),
        *("accuracy_a", "accuracy_b", "difference", "se_difference", "z", "size_doublings"),
        "family_snr",
    ),
    "decision_accuracy": (
        *("models", "model_pairs", "decision_accuracy", "expected_decision_accuracy"),
    ),
    "noises": (
        *("model", "model_a", "model_b", "component", "factor", "questions", "templates"),
        *("cells", "runs_per_cell", "accuracy_templates", "se_templates", "df_templates"),
        *("accuracy_these_templates", "se_these_templates", "df_these_templates"),
        *("difference_templates", "difference_these_templates", "p_value_templates"),
        *("p_value_these_templates", "variance_component", "variance_part", "variance_share"),
        *("accuracy_templates_mcmc", "accuracy_these_templates_mcmc"),
        *("difference_templates_mcmc", "difference_these_templates_mcmc"),
        *("prob_a_better_templates_mcmc", "sd_logit_mcmc"),
    ),
    "judge": (
        *("judge", "model", "model_a", "model_b", "items", "questions", "human_labels"),
        *("accuracy_judge", "accuracy_human", "accuracy_ppi", "ppi_lambda"),
        *("effective_human_labels", "accuracy_corrected", "accuracy_corrected_mcmc"),
        *("accuracy_rogan_gladen", "judge_sensitivity", "judge_specificity", "judge_kappa"),
        *("difference_judge", "difference_human", "difference_ppi", "p_value_ppi"),
        *("difference_corrected", "difference_corrected_mcmc", "prob_a_better_corrected"),
        "prob_a_better_corrected_mcmc",
    ),
}


def _base(name: str) -> tuple[Column, str]:
    if name in REGISTRY:
        return REGISTRY[name], ""
    for end in ("_low", "_high"):
        stem = name.removesuffix(end)
        if stem != name and stem in REGISTRY and REGISTRY[stem].interval:
            return REGISTRY[stem], end[1:]
    raise KeyError(f"{name!r} is not a registered column; `bayesnoise columns` lists them all")


def is_registered(name: str) -> bool:
    """Whether ``name`` (or the ``_low``/``_high`` end of a registered interval) is registered.

    Parameters
    ----------
    name : str
        A column name.

    Returns
    -------
    bool
    """
    try:
        _base(name)
    except KeyError:
        return False
    return True


def describe(name: str) -> dict[str, str]:
    """The registry entry of a column (interval ends included) as a dict.

    Parameters
    ----------
    name : str
        A registered column, or the ``_low`` / ``_high`` end of a registered interval.

    Returns
    -------
    dict of str to str
        ``name``, ``label``, ``description``, ``unit``, ``scope``, ``method``.

    Examples
    --------
    >>> describe("accuracy_high")["description"].startswith("upper end")
    True
    """
    col, end = _base(name)
    text = col.description
    if end:
        text = f"{'lower' if end == 'low' else 'upper'} end of the interval of {col.name}: {text}"
    label_ = f"{col.label} ({end})" if end else col.label
    return {
        "name": name,
        "label": label_,
        "description": text,
        "unit": col.unit,
        "scope": col.scope,
        "method": col.method,
    }


def label(name: str) -> str:
    """The short human label of a column (for table headers and axes)."""
    return describe(name)["label"]


def command_rows(command: str | None = None) -> list[dict[str, str]]:
    """Registry rows grouped by command (for ``bayesnoise columns``), each with a
    ``command`` field.

    ``command`` given: the columns that command prints, in its order, interval ends
    included (an unknown command is a :class:`KeyError` naming the known ones). None: every
    registered column once, under the first command that prints it (``other``: printed by
    no command, e.g. lower-level functions' columns).

    Examples
    --------
    >>> [r["name"] for r in command_rows("questions")][:3]
    ['question', 'question_accuracy', 'solved_by']
    """
    if command is not None and command not in _COMMAND_COLUMNS:
        known = ", ".join(_COMMAND_COLUMNS)
        raise KeyError(f"no command {command!r} prints columns; the commands are {known}")
    groups = [command] if command is not None else list(_COMMAND_COLUMNS)
    rows, seen = [], set()
    for group in groups:
        for name in _COMMAND_COLUMNS[group]:
            if name in seen and command is None:
                continue
            seen.add(name)
            rows += [{"command": group, **r} for r in _rows_of(REGISTRY[name])]
    if command is None:
        for col in _ENTRIES:
            if col.name not in seen:
                rows += [{"command": "other", **r} for r in _rows_of(col)]
    return rows


def _rows_of(col: Column) -> list[dict[str, str]]:
    ends = [f"{col.name}_low", f"{col.name}_high"] if col.interval else []
    return [describe(n) for n in (col.name, *ends)]


def registry_rows() -> list[dict[str, str]]:
    """Every registered name, interval ends included, as rows (for ``bayesnoise columns``)."""
    rows = []
    for col in _ENTRIES:
        rows.append(describe(col.name))
        if col.interval:
            rows += [describe(f"{col.name}_low"), describe(f"{col.name}_high")]
    return rows
