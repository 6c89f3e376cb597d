"""
Correcting an LLM judge with a few human labels
===============================================

Three models answer 600 questions; an LLM judge grades every answer and passes 30% of the
wrong ones (50% for ``model-c``, which it favours). Humans label 120 questions chosen at
random. The judge alone ranks ``model-c`` above ``model-b``; the corrected accuracies put it
below, where its true rate is.
"""

# %%
# A simulated judge-graded eval
# -----------------------------
# One row per model and question: the judge's verdict and the human label, empty where no
# human looked.
import numpy as np
import pandas as pd

import bayesnoise as bn

rng = np.random.default_rng(6)
n_questions, n_labelled = 600, 120
easy = rng.random(n_questions) < 0.5
labelled = np.zeros(n_questions, bool)
labelled[rng.choice(n_questions, n_labelled, replace=False)] = True
truth = {"model-a": (0.95, 0.6), "model-b": (0.9, 0.5), "model-c": (0.85, 0.4)}
specificity = {"model-a": 0.7, "model-b": 0.7, "model-c": 0.5}
rows = []
for model, (p_easy, p_hard) in truth.items():
    right = rng.random(n_questions) < np.where(easy, p_easy, p_hard)
    u = rng.random(n_questions)
    verdict = np.where(right, u < 0.9, u > specificity[model])
    human = np.where(labelled, right.astype(float), np.nan)
    rows.append(
        pd.DataFrame(
            {
                "model": model,
                "question": [f"q{i}" for i in range(n_questions)],
                "judge_score": verdict.astype(int),
                "human": human,
            }
        )
    )
df = pd.concat(rows, ignore_index=True)
print({m: round((p_e + p_h) / 2, 3) for m, (p_e, p_h) in truth.items()}, "true rates")

# %%
# Judge only, humans only, corrected
# ----------------------------------
# ``accuracy_ppi`` is PPI++ (its numbers equal the ``ppi_py`` package's);
# ``effective_human_labels`` is what the judge's grades were worth in human labels.
result = bn.judge(df)
bn.tidy(result)[
    [
        "model",
        "accuracy_judge",
        "accuracy_human",
        "accuracy_ppi",
        "accuracy_ppi_low",
        "accuracy_ppi_high",
        "effective_human_labels",
        "judge_specificity",
    ]
].round(3)

# %%
# The same with the misclassification model (exact posterior per model), and the pairs:
bayes = bn.judge(df, method="bayes")
pairs = bn.judge(df, by="pair")
bn.tidy(pairs)[["model_a", "model_b", "difference_judge", "difference_ppi", "p_value_ppi"]].round(3)

# %%
# The intervals side by side
# --------------------------
fig = bn.plot.judge(df)
fig
