"""Accuracy and bias of the variance-component estimators on generative models with known truth
(paper Appendix C): Bernoulli (questions drawn with replacement), stratified (fixed question set),
bootstrap (real per-question accuracies from the bundled CRUXEval extract).

Prints relative RMS error and the bias t-score over 1000 replicates for each component, with and
without the small-K correction. Run: .venv/bin/python benchmarks/simulation_frequentist.py
"""

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_frequentist import _designs, _estimate, _targets  # noqa: E402

KEYS = ("data", "prediction", "total", "pair_data", "pair_prediction", "pair_total")


def main(reps=1000):
    print("| design | N | K | correction | " + " | ".join(f"{k} rms / t" for k in KEYS) + " |")
    print("|" + "---|" * (4 + len(KEYS)))
    for n, k in ((100, 10), (400, 20), (400, 3)):
        designs = _designs(
            np.random.default_rng(10 + n + k), reps, n, k, ROOT / "examples" / "data"
        )
        for name, (correct, count, truth, replace) in designs.items():
            target = _targets(truth, n, k, replace)
            for correction in (True, False):
                est = _estimate(correct, count, correction=correction)
                cells = []
                for key in KEYS:
                    rel = est[key] / target[key] - 1
                    t = rel.mean(axis=0) / (rel.std(axis=0, ddof=1) / np.sqrt(reps))
                    rms = np.sqrt(np.mean(rel**2, axis=0))
                    worst = np.argmax(np.abs(t)) if np.ndim(t) else ()
                    cells.append(
                        f"{np.max(rms):.3f} / {np.ravel(t)[worst] if np.ndim(t) else t:+.1f}"
                    )
                print(
                    f"| {name} | {n} | {k} | {'yes' if correction else 'no'} | "
                    + " | ".join(cells)
                    + " |"
                )


if __name__ == "__main__":
    main()
