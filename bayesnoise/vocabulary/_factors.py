"""The columns of ``noises`` and of the factor tables of pairs, compare, check and plan."""

from __future__ import annotations

from ._column import _ACC, _DIFF, _PROB, NONE, POPULATION, THESE, Column, _c  # noqa: F401

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
        "mean score over all question x template cells (missing cells filled by the "
        "least-squares fit question + template); its interval is for the expected accuracy "
        "over new questions and new templates like these (templates a random draw), t with "
        "Satterthwaite degrees of freedom (1 df with 2 templates), ends cut to [0, 1]",
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
        "dominates: few templates, few degrees of freedom; T - 1 = 1 with 2 templates; with "
        "the template component <= 0, its mean square kept on its T - 1 df)",
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
