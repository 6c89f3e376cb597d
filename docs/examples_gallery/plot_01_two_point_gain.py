"""
Is my 2-point gain real?
========================

An instruction-tuned model scores 40.5 % on CRUXEval-output and its base model 38.3 %: a
2.2-point gain. This tutorial asks the question three ways: as a pre-registered comparison of
one pair, as one of the 28 comparisons a leaderboard makes, and as "how sure are we that the
instruct model is better?" in Bayesian terms. It ends with what it would take to detect such a
gain reliably.
"""

# %%
# The data
# --------
# The bundled extract holds 8 models x 800 questions with K = 10 samples per question
# (CRUXEval team, MIT licence). From a checkout the file is
# ``examples/data/cruxeval_output_temp0.8.csv.gz``.
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import bayesnoise as bn

DATA = Path(bn.__file__).resolve().parents[1] / "examples" / "data"
DATA = DATA / "cruxeval_output_temp0.8.csv.gz"
ds = bn.load(DATA)
A, B = "deepseek-instruct-6.7b", "deepseek-base-6.7b"
noise = bn.tidy(bn.noise(ds, models=[A, B]))
noise[["model", "questions", "samples_per_question", "accuracy", "se_total", "se_mean"]]

# %%
# ``se_total`` is the standard error a run with *one* sample per question would have
# (about 1.7 points here); ``se_mean`` is the standard error of the score we actually have, each
# question averaged over its 10 samples. Each score alone is uncertain by more than 1.5 points,
# so the two unpaired intervals overlap. But both models answered the *same* questions.
#
# The paired comparison
# ---------------------
# Pairing removes the questions' shared difficulty: what matters is how the per-question
# differences d_i = p_Ai - p_Bi scatter.
pair = bn.tidy(bn.pairs(ds, pair=(A, B), confidence_level=0.95))
pair[["difference", "difference_low", "difference_high", "se_difference", "z", "p_value"]].T

# %%
# The paired standard error of the difference (about 0.9 points) is much smaller than the
# standard error of either score, and the paired t test gives p = 0.012; the 95 % interval for
# the gain on the *question population* excludes zero. If this pair was the one comparison you
# planned, the gain is real at the 5 % level.
#
# One of 28 comparisons
# ---------------------
# A leaderboard of 8 models makes 28 pairwise comparisons. Holm's correction over all of them
# asks more of each:
pairs = bn.tidy(bn.pairs(ds))
row = pairs[
    (pairs.model_a == A) & (pairs.model_b == B) | (pairs.model_a == B) & (pairs.model_b == A)
]
row[["model_a", "model_b", "difference", "p_value", "p_value_adjusted"]]

# %%
# After Holm the same gain is no longer significant (p_value_adjusted = 0.21): had you scanned the
# leaderboard for the largest gaps, this one would not survive.
#
# The Bayesian answer
# -------------------
# :func:`bayesnoise.compare` puts both answers side by side. ``prob_a_better`` is the posterior
# probability that A did better than B *on these 800 questions* (only prediction noise);
# ``prob_a_better_population`` the probability that A is better on new questions like these.
both = bn.tidy(bn.compare(ds, by="pair", models=[A, B]))
both[
    [
        "difference",
        "dbar_low",
        "dbar_high",
        "prob_a_better",
        "mu_difference_low",
        "mu_difference_high",
        "prob_a_better_population",
    ]
].T

# %%
# On these questions the instruct model is better with posterior probability essentially 1:
# with 10 samples per question the prediction noise left is tiny. On the question population
# the probability is 0.99 and the interval for the gain runs from about 0.5 to 3.9 points. Both
# statements are true; they answer different questions.
#
# What a one-sample eval would have seen
# --------------------------------------
# Most leaderboards run one sample per question. Drawing one of the 10 samples per question at
# random (a Bernoulli draw with the observed per-question rate) shows how much the gain would
# move between such runs.
rng = np.random.default_rng(0)
p_a = (ds["correct"] / ds["samples"]).sel(model=A).values
p_b = (ds["correct"] / ds["samples"]).sel(model=B).values
gains = [
    (rng.random(p_a.size) < p_a).mean() - (rng.random(p_b.size) < p_b).mean() for _ in range(2000)
]
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.hist(np.array(gains) * 100, bins=40, color="0.6")
ax.axvline(100 * float(pair["difference"].iloc[0]), color="C3", label="gain at K = 10")
ax.axvline(0, color="k", lw=0.8)
ax.set_xlabel("gain of a one-sample run (points)")
ax.set_ylabel("runs")
ax.legend(frameon=False)
fig.tight_layout()
print(f"one-sample runs with a non-positive gain: {np.mean(np.array(gains) <= 0):.1%}")

# %%
# Planning a run that settles it
# ------------------------------
# :func:`bayesnoise.power` turns the pair's own data and prediction variances into the
# questions needed to detect a 2-point difference at 5 % (two-sided) with 80 % power.
plan = bn.tidy(bn.power(ds, pair=(A, B), difference=0.02))
plan[["paired_min_difference", "paired_questions_needed", "unpaired_questions_needed"]].T

# %%
# With 800 questions and 10 samples per question the smallest paired difference this design
# detects with 80 % power is about 2.4 points; detecting 2 points needs about 1,200 questions
# paired (and 7,000 unpaired). More samples per question cannot get there: the data noise is
# the floor (``paired_samples_needed`` is infinite).
