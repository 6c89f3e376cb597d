"""The columns of the decisions and quality commands: ranks, power, pass@k, benchmark quality,
signal, coverage, check / monitor / plan, the ubar prior, Eval-Arena summaries, reference models."""

from __future__ import annotations

from ._column import _ACC, _DIFF, _PROB, NONE, POPULATION, THESE, Column, _c  # noqa: F401

_DECISION_ENTRIES = [
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
        "(column test) the betting interval, valid at any N (none for a combined exact test); "
        "with a margin the interval of the margin test (Tango's score interval at K = 1, the "
        "bootstrap-t interval). "
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
        "the statistic of the test in column test: (change + margin) / se_change for the t "
        "and max(t, bootstrap-t) tests, Tango's score z for the paired-proportion tests "
        "with a margin, the z of the PPI++ test on judge-graded scores; NaN for the sign, "
        "sign-flip and Hoeffding tests",
    ),
    _c(
        "df",
        "df",
        "degrees of freedom of the t reference (N - 1; combined: Welch-Satterthwaite; inf for "
        "a normal reference: PPI++ z, Tango score; NaN for a test without one)",
        "count",
    ),
    _c(
        "test",
        "test",
        "the test that decided: t (paired t), sign (binomtest on the discordant questions), "
        "sign-flip (exact permutation of the signs), none (combined, few differences); with a "
        "margin: exact unconditional (paired proportions, K = 1, N <= 1000), Tango score "
        "(K = 1, N > 1000), max(t, bootstrap-t) (K > 1, N < 100), Hoeffding (every "
        "difference equal); PPI++ paired z on judge-graded scores corrected with human labels",
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
