"""
Bayesian vs frequentist on a small benchmark
============================================

With 40 questions, every interval is wide and the choice of question matters: is the
interval about *these* 40 questions or about the population of questions they were drawn
from? This tutorial draws a 40-question benchmark from the bundled CRUXEval extract, puts the
frequentist and Bayesian answers side by side for both scopes, and then repeats it with one
sample per question, where the Beta model's concentration ``kappa`` can no longer be learnt.
"""

# %%
# A 40-question benchmark
# -----------------------
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import bayesnoise as bn

DATA = Path(bn.__file__).resolve().parents[1] / "examples" / "data"
ds = bn.load(DATA / "cruxeval_output_temp0.8.csv.gz")
rng = np.random.default_rng(1)
keep = np.sort(rng.choice(ds.sizes["question"], size=40, replace=False))
models = ["deepseek-instruct-6.7b", "phind", "mixtral-8x7b"]
small = bn.select_models(ds.isel(question=keep), models)
small.sizes

# %%
# Both answers, both scopes
# -------------------------
# :func:`bayesnoise.compare` prints, per model, the frequentist interval and the Bayesian
# interval for the expected accuracy on these questions (``accuracy_here``, ``ubar``) and for
# the accuracy on the question population (``accuracy``, ``mu``).
table = bn.tidy(bn.compare(small))
cols = [
    "model",
    "accuracy",
    "accuracy_here_low",
    "accuracy_here_high",
    "ubar_low",
    "ubar_high",
    "accuracy_low",
    "accuracy_high",
    "mu_low",
    "mu_high",
    "kappa_median",
]
table[cols].round(3)

# %%
# The two methods agree closely within each scope; the scopes differ by a factor of about
# four in width. The *these questions* intervals carry only prediction noise (10 samples per
# question pin down each question's rate well), the *population* intervals also carry the data
# noise of having drawn 40 questions.


def draw(ax, table, title):
    """Four intervals per model: freq/Bayes x these questions/population."""
    specs = [
        ("accuracy_here", "freq, these questions", "C0", -0.3),
        ("ubar", "Bayes, these questions", "C1", -0.1),
        ("accuracy", "freq, population", "C2", 0.1),
        ("mu", "Bayes, population", "C3", 0.3),
    ]
    y = np.arange(len(table))
    for name, label, color, dy in specs:
        low, high = table[f"{name}_low"], table[f"{name}_high"]
        ax.hlines(y + dy, low, high, color=color, lw=3, label=label)
    ax.plot(table["accuracy"], y, "k|", ms=14, label="observed accuracy")
    ax.set_yticks(y, table["model"])
    ax.set_xlabel("accuracy")
    ax.set_title(title)


fig, ax = plt.subplots(figsize=(7, 3.4))
draw(ax, table, "N = 40 questions, K = 10")
ax.legend(loc="center left", bbox_to_anchor=(1, 0.5), frameon=False, fontsize=8)
fig.tight_layout()

# %%
# Pairs
# -----
# For a pair, ``prob_a_better`` is the posterior probability that A did better than B on these
# questions, ``prob_a_better_population`` that A is better on the population; the frequentist
# counterparts are the two intervals and the paired t test.
pairs = bn.tidy(bn.compare(small, by="pair"))
pairs[
    [
        "model_a",
        "model_b",
        "difference",
        "difference_low",
        "difference_high",
        "mu_difference_low",
        "mu_difference_high",
        "prob_a_better",
        "prob_a_better_population",
        "p_value",
    ]
].round(3)

# %%
# phind leads deepseek-instruct by 7.8 points. On these 40 questions that lead is certain
# (``prob_a_better`` = 0 for deepseek-instruct); on the population it is not (probability 0.93
# that phind is better, p = 0.14): 40 questions cannot tell these models apart. (On all 800
# questions their order is reversed.)
#
# One sample per question
# -----------------------
# With K = 1 a question's rate is a single 0/1, so prediction and data noise cannot be
# separated and ``kappa`` is not identified. Draw one sample per question (a Bernoulli draw at
# each question's observed rate) and ask again.
rate = (small["correct"] / small["samples"]).values
one = (rng.random(rate.shape) < rate).astype(float)
k1 = bn.from_arrays(
    one,
    np.ones_like(one, dtype=int),
    models=models,
    questions=small["question"].values,
    benchmark="cruxeval-40-k1",
)
table1 = bn.tidy(bn.compare(k1))
table1[[*cols, "kappa_status"]].round(3)

# %%
# ``kappa_status`` says the concentration was not identified (both warnings above say why).
# The population intervals barely change: at K = 1 the total noise is all they need. The
# *these questions* intervals change most: the frequentist one is left empty, because one
# sample per question cannot separate prediction from data noise, and the Bayesian ``ubar``
# interval is the binomial bound (the Jeffreys interval of the accuracy), which holds however
# unequal the questions are and is almost as wide as the population one.
fig, ax = plt.subplots(figsize=(7, 3.4))
draw(ax, table1, "N = 40 questions, K = 1")
ax.legend(loc="center left", bbox_to_anchor=(1, 0.5), frameon=False, fontsize=8)
fig.tight_layout()
