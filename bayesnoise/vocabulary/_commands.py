"""Which registered columns each command prints, in its order."""

from __future__ import annotations

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
        # ... and beside them the Bayesian crossed model's (noises --method mcmc; 0/1 scores)
        *("accuracy_templates_mcmc", "accuracy_these_templates_mcmc"),
        *("difference_templates_mcmc", "prob_a_better_templates_mcmc"),
        "difference_these_templates_mcmc",
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

# The columns each command prints by default in its text table (``--all-columns`` prints
# every column; CSV and JSON always hold every column, and so does ``bn.tidy``): chosen so
# that the default table fits 120 characters on real files. A name stands for its
# interval ends too (``difference``: ``difference_low``, ``difference_high``). A command not
# listed prints every column. The table wraps what still does not fit into further blocks
# (reporting.text.render); tests/test_table_width.py measures every command.
_SHOWN: dict[str, tuple[str, ...]] = {
    "pairs": (
        *("model_a", "model_b", "difference", "se_difference", "z", "p_value"),
        "p_value_adjusted",
        # what an option adds is shown: the user asked for it
        *("p_value_permutation", "se_bootstrap", "simultaneous", "p_value_simultaneous"),
        *("p_value_sign_one_sample", "p_value_mcnemar_one_sample", "se_clustered"),
        *("z_clustered", "p_value_clustered", "p_value_clustered_adjusted"),
        # with factors (--factor)
        *("templates", "difference_templates", "se_templates", "df_templates"),
        *("p_value_templates", "p_value_templates_adjusted"),
    ),
    "compare": (
        *("model", "accuracy", "accuracy_here", "ubar", "mu"),
        *("model_a", "model_b", "difference", "difference_here", "dbar", "mu_difference"),
        "p_value",
        # with factors (--factor)
        *("templates", "accuracy_templates", "df_templates", "accuracy_these_templates"),
        *("difference_templates", "p_value_templates_adjusted", "accuracy_templates_mcmc"),
        *("accuracy_these_templates_mcmc", "difference_templates_mcmc"),
        "prob_a_better_templates_mcmc",
    ),
    "posterior": (
        *("model", "accuracy", "mu", "ubar", "kappa_median", "kappa_status"),
        *("model_a", "model_b", "dbar", "prob_a_better", "mu_difference"),
        "prob_a_better_population",
        *("ubar_mcmc", "kappa_median_mcmc", "dbar_mcmc", "prob_a_better_mcmc"),
    ),
    "power": (
        *("model_a", "model_b", "difference", "paired_min_difference"),
        *("paired_questions_needed", "clustered_min_difference", "clustered_clusters_needed"),
    ),
    "coverage": (
        *("interval", "population", "scope", "replicates", "coverage", "coverage_mcse"),
        *("coverage_status", "median_width"),
    ),
    "plan": (
        *("model_a", "model_b", "run", "benchmark", "optimal_questions"),
        *("optimal_samples_per_question", "cost_planned", "cost_k1"),
        *("priority", "question", "model", "samples_per_question", "extra_samples"),
        "question_prediction_variance",
        # with factors (--factor): a table per model, a table of its variance components
        *("component", "se_current_design", "optimal_templates", "se_planned", "df_planned"),
        *("power_planned", "variance_component"),
        # judge-graded data
        *("human_labels_needed", "human_labels_alone", "human_cost", "human_labels_cost"),
        *("items", "human_labels", "ppi_lambda"),
    ),
    "rate": (
        *("model", "successes", "trials", "p_value_prior", "rate", "prob_rate_above", "p_value_t"),
        *("p_value_binomial", "rate_t", "rate_exact"),
        *("model_a", "model_b", "questions", "rate_a", "rate_b", "prob_rate_a_better"),
        *("difference", "p_value_paired_t"),
    ),
    "reference": (
        *("run", "benchmark", "models", "questions", "samples_per_question", "close_pairs"),
        *("se_difference_median_close", "benchmark_kappa", "se_model", "accuracy"),
        *("se_model_theory", "se_difference_theory"),
    ),
    "judge": (
        *("judge", "model", "model_a", "model_b", "accuracy_judge"),
        *("accuracy_human", "accuracy_ppi", "accuracy_corrected", "accuracy_corrected_mcmc"),
        *("difference_judge", "difference_human", "difference_ppi", "p_value_ppi"),
        *("difference_corrected", "difference_corrected_mcmc", "prob_a_better_corrected"),
        "prob_a_better_corrected_mcmc",
    ),
    "noises": (
        *("model", "model_a", "model_b", "templates", "accuracy_templates", "se_templates"),
        *("df_templates", "accuracy_these_templates"),
        *("difference_templates", "p_value_templates", "difference_these_templates"),
        "p_value_these_templates",
        *("component", "variance_component", "variance_part", "variance_share"),
        *("accuracy_templates_mcmc", "accuracy_these_templates_mcmc"),
        *("difference_templates_mcmc", "difference_these_templates_mcmc"),
        *("prob_a_better_templates_mcmc", "sd_logit_mcmc"),
    ),
    "check": (
        *("benchmark", "accuracy_baseline", "accuracy_candidate", "change"),
        *("p_value_regression", "p_value_regression_adjusted", "regression"),
        *("change_bayes", "prob_no_regression", "prob_no_regression_adjusted"),
    ),
}
