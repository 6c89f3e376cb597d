"""Quick tour on the bundled CRUXEval extract: how much of a gap is real?

Every step is a verb of the ``bayesnoise`` command line called from Python; ``bn.tidy`` turns
its result into the table the command prints.

Run: .venv/bin/python examples/quickstart.py
"""

from pathlib import Path

import numpy as np

import bayesnoise as bn
from bayesnoise.reporting import render

DATA = Path(__file__).resolve().parent / "data" / "cruxeval_output_temp0.8.csv.gz"

ds = bn.load(DATA)
print(f"{ds.attrs['benchmark']}: {ds.sizes['model']} models, {ds.sizes['question']} questions\n")

print("Noise per model (standard errors of the accuracy):")
noise = bn.noise(ds)
print(
    render(bn.tidy(noise)[["model", "accuracy", "se_total", "se_data", "se_prediction", "se_mean"]])
)

pairs = bn.tidy(bn.pairs(ds))
close = pairs.loc[pairs["difference"].abs().idxmin()]
a, b = close["model_a"], close["model_b"]
print(f"Closest pair: {a} vs {b}, difference {close['difference']:+.4f}")
res = bn.frequentist.paired_test(ds, pair=(a, b))
ci = res.confidence_interval(confidence_level=0.95)
print(
    f"  paired t = {res.statistic:.2f} ({res.df:.0f} df), p = {res.pvalue:.3f}, "
    f"95% CI [{ci.low:+.4f}, {ci.high:+.4f}]"
)
se = noise["se_total"]
unpaired = float(np.hypot(se.sel(model=a), se.sel(model=b)))
print(
    f"  SE of the difference: unpaired, one sample per question {unpaired:.4f}; paired "
    f"{close['se_total']:.4f}; paired and averaged over K = 10 samples {close['se_difference']:.4f}\n"
)

# What could this benchmark detect, for this pair's noise?
power = bn.tidy(bn.power(ds, pair=(a, b), difference=0.01))
for k in (1, 10):
    row = bn.tidy(bn.power(ds, pair=(a, b), planned_samples_per_question=k)).iloc[0]
    print(
        f"  smallest gap detectable (80% power, 5% level) with K = {k:>2}: "
        f"{row['paired_min_difference']:.4f}"
    )
print(
    f"  samples per question to detect a 1-point gap: {power['paired_samples_needed'].iloc[0]:g}\n"
)

print("Frequentist and Bayesian answers for close pairs (|difference| <= 0.01), population:")
cols = ["model_a", "model_b", "difference", "difference_low", "difference_high"]
cols += ["mu_difference_low", "mu_difference_high", "prob_a_better_population"]
print(render(bn.tidy(bn.compare(ds, by="pair", max_difference=0.01))[cols]))
