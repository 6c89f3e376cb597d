"""
How much of the noise is the prompt template?
=============================================

Two models answer 200 questions under 4 prompt templates, 3 runs each. The templates change
the score, and not by the same amount for both models. This example measures each source of
noise with ``bn.noises`` and shows why pooling templates as samples of a question gives an
interval that is far too narrow.
"""

# %%
# A simulated eval
# ----------------
# Scores are 0/1 draws from a logit model with a question effect, a template effect, a model x
# template interaction and a question x template effect (the model of ``studies/noises.py``).
import numpy as np
import pandas as pd

import bayesnoise as bn

rng = np.random.default_rng(5)
n_questions, templates, runs = 200, ["plain", "cot", "few-shot", "json"], 3
question = rng.normal(0, 1.2, n_questions)
template = rng.normal(0, 0.4, len(templates))
rows = []
for model, alpha in (("model-a", 0.6), ("model-b", 0.3)):
    interaction = rng.normal(0, 0.25, len(templates))
    for q in range(n_questions):
        for t, name in enumerate(templates):
            logit = alpha + question[q] + template[t] + interaction[t] + rng.normal(0, 0.6)
            p = 1 / (1 + np.exp(-logit))
            for r in range(runs):
                rows.append((model, f"q{q}", name, r, int(rng.random() < p)))
df = pd.DataFrame(rows, columns=["model", "question", "template", "run", "score"])
df.head()

# %%
# Loading it without saying what ``template`` is stops, and the message names it:
try:
    bn.noise(df.query("run == 0"))
except bn.DataError as err:
    print(str(err)[:300], "...")

# %%
# Each model's noise, split by source
# -----------------------------------
# ``accuracy_templates`` is for new questions and new templates like these;
# ``accuracy_these_templates`` for new questions under these 4 templates. With 4 templates the
# first has few degrees of freedom (``df_templates``).
result = bn.noises(df, factors=["template"])
table = bn.tidy(result)
table[["model", "component", "variance_component", "variance_part", "variance_share"]]

# %%
per_model = table.drop_duplicates("model")
per_model[
    [
        "model",
        "accuracy_templates",
        "accuracy_templates_low",
        "accuracy_templates_high",
        "df_templates",
        "accuracy_these_templates_low",
        "accuracy_these_templates_high",
        "df_these_templates",
    ]
]

# %%
# The parts of each model's squared SE, stacked:
fig = bn.plot.noises(df, factors=["template"])
fig

# %%
# And where they come from: each model's accuracy under each template.
fig = bn.plot.templates(df, factors=["template"])
fig

# %%
# The paired difference
# ---------------------
# For A - B the template part is the model x template interaction.
pair = bn.tidy(bn.noises(df, factors=["template"], by="pair"))
pair[["component", "variance_part", "variance_share"]]

# %%
pair.iloc[0][
    [
        "difference_templates",
        "difference_templates_low",
        "difference_templates_high",
        "df_templates",
        "p_value_templates",
        "p_value_these_templates",
    ]
]

# %%
# What pooling the templates as samples would have said
# -----------------------------------------------------
# Reading the templates as repeated samples of each question averages them per question and
# takes the usual SE over questions: the SE over these templates, with no template part.
pooled = df.groupby(["model", "question"])["score"].mean().groupby("model")
naive_se = pooled.std() / np.sqrt(pooled.size())
print(pd.DataFrame({"naive SE": naive_se, "SE over templates": result["se_templates"].to_series()}))
