"""
Exact coverage: the Wald interval against the Beta credible interval
=====================================================================

One model answers n questions, one answer each, and succeeds on X of them: X is Binomial(n, p).
Before trusting an interval for p it is worth knowing how often it contains p. For a binomial
this needs no simulation: at each (n, p) the coverage is the sum, over the n + 1 possible
outcomes k, of P(X = k) for the outcomes whose interval contains p.
:func:`bayesnoise.exact_coverage` does that enumeration. This reproduces the comparison of the
success-probability note the package started from: the textbook normal-approximation (Wald)
interval p^ -/+ 1.96 sqrt(p^ (1 - p^) / n) against the equal-tailed 95% credible interval of
the Beta(1 + k, 1 + n - k) posterior (uniform prior).
"""

# %%
# One sample size, every p
# ------------------------
# At n = 15 the Wald interval covers a rate of 0.025 only 32% of the time: most runs see no
# success at all, and then the interval is [0, 0]. The Beta interval stays near 95% across p
# (it dips where the binomial's discreteness lets it).
import matplotlib.pyplot as plt
import numpy as np

import bayesnoise as bn
from bayesnoise import plots

p = np.linspace(0.025, 0.975, 1000)
wald = bn.exact_coverage(15, p, method="wald")
bayes = bn.exact_coverage(15, p, method="bayes", prior="uniform")
print(f"n = 15, p = 0.025: Wald {wald[0]:.6f}, Beta(1, 1) {bayes[0]:.6f}")

fig, ax = plt.subplots(figsize=(6.4, 4))
plots.plot_exact_coverage(p, {"Wald": wald, "Beta(1, 1) credible": bayes}, ax=ax, xlabel="p")
ax.set_title("exact coverage at n = 15 (95% intervals)")
plt.show()

# %%
# Mean coverage over p, n = 10 to 340
# -----------------------------------
# Averaged over p in [0.01, 0.99] (200 values), the Wald interval approaches 95% only slowly
# from below; the Beta credible interval is near 95% from n = 10 on. Clopper-Pearson (the
# interval ``bayesnoise rate`` prints beside its exact test) never covers less than 95%, at the
# price of width.
sizes = np.arange(10, 350, 10)
grid = np.linspace(0.01, 0.99, 200)
curves = {
    "Wald": bn.exact_coverage(sizes, grid, method="wald").mean(axis=1),
    "Beta(1, 1) credible": bn.exact_coverage(sizes, grid, method="bayes").mean(axis=1),
    "Clopper-Pearson": bn.exact_coverage(sizes, grid, method="clopper-pearson").mean(axis=1),
}
fig, ax = plt.subplots(figsize=(6.4, 4))
plots.plot_exact_coverage(sizes, curves, ax=ax)
ax.set_title("mean exact coverage over p (95% intervals)")
plt.show()
print({name: round(float(v[0]), 4) for name, v in curves.items()}, "at n = 10")

# %%
# The same posterior from a file
# ------------------------------
# ``bn.rate`` gives each model's Beta posterior under the prior you choose, its equal-tailed
# and highest-density intervals, P(rate > p0) and, beside it, the exact one-sided binomial
# test of H0: rate <= p0 with its Clopper-Pearson bound. Graded scores become success or
# failure with ``threshold=`` first; here four models' 0/1 answers to 60 questions.
rng = np.random.default_rng(4)
answers = (rng.random((4, 60)) < np.array([0.83, 0.21, 0.72, 0.05])[:, None]).astype(float)
r = bn.rate(answers, prior="uniform", target=0.5)
bn.tidy(r)[
    [
        "model",
        "successes",
        "rate",
        "rate_low",
        "rate_high",
        "prob_rate_above",
        "p_value_binomial",
        "rate_exact_low",
    ]
].round(4)
