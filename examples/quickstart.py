"""Quick tour on the bundled CRUXEval extract: how much of a gap is real?

Run: .venv/bin/python examples/quickstart.py
"""

from pathlib import Path

import bayesnoise as bn
from bayesnoise.decide import compare_pairs
from bayesnoise.frequentist import (
    minimum_detectable_difference,
    model_noise,
    pair_noise,
    paired_test,
    required_samples,
)
from bayesnoise.report import render

DATA = Path(__file__).resolve().parent / "data" / "cruxeval_output_temp0.8.csv.gz"

ds = bn.load(DATA)
print(f"{ds.attrs['benchmark']}: {ds.sizes['model']} models, {ds.sizes['question']} questions\n")

print("Noise per model (standard errors of the accuracy):")
print(
    render(
        model_noise(ds)[["model", "accuracy", "se_total", "se_data", "se_prediction", "se_mean"]]
    )
)

pairs = pair_noise(ds)
close = pairs.loc[pairs["difference"].abs().idxmin()]
a, b = close["model_a"], close["model_b"]
print(f"Closest pair: {a} vs {b}, difference {close['difference']:+.4f}")
res = paired_test(ds, a, b)
ci = res.confidence_interval(confidence_level=0.95)
print(
    f"  paired t = {res.statistic:.2f} ({res.df:.0f} df), p = {res.pvalue:.3f}, 95% CI [{ci.low:+.4f}, {ci.high:+.4f}]"
)
single = model_noise(ds).set_index("model")["se_total"]
unpaired = (single[a] ** 2 + single[b] ** 2) ** 0.5
print(
    f"  SE of the difference: unpaired, one sample per question {unpaired:.4f}; paired "
    f"{close['se_total']:.4f}; paired and averaged over K = 10 samples {close['se_mean']:.4f}\n"
)

# What could this benchmark detect, for a pair with these noise components?
data, pred = max(close["data"], 0.0), close["prediction"]
for k in (1, 10):
    mdd = minimum_detectable_difference(ds.sizes["question"], data=data, prediction=pred, k=k)
    print(f"  smallest gap detectable (80% power, 5% level) with K = {k:>2}: {mdd:.4f}")
need = required_samples(0.01, n=ds.sizes["question"], data=data, prediction=pred)
print(f"  samples per question to detect a 1-point gap: {need:g}\n")

print("Frequentist and Bayesian answers for close pairs (|difference| <= 0.01):")
cols = ["model_a", "model_b", "difference", "difference_low", "difference_high",
        "mu_difference_low", "mu_difference_high", "p_a_better_population"]  # fmt: skip
print(render(compare_pairs(ds, max_difference=0.01)[cols]))
