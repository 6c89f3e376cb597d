"""Coverage of iid vs cluster-robust (CR1) intervals when questions come in clusters.

Two models on C clusters of questions (probit model with a shared and a model-specific cluster
effect, so both single scores and paired differences cluster; exact population accuracies; see
``tests/test_cluster.py::simulate_clustered``), K = 5 samples per question. Per design: the
mean estimated intra-cluster correlation of the observed scores (and of the paired differences),
and the coverage of the true population accuracy (difference) by

- ``iid``: +- z se_iid (the noise tables' se_mean, clusters ignored),
- ``cl``: +- t_{C-1} se_clustered (the CR1 SE, statsmodels' small-sample convention),
- ``wilson``: the clustered Wilson interval of ``cluster_noise(confidence_level=0.95)``.

Monte Carlo SE of a coverage near 0.95 with R replicates: sqrt(0.95 * 0.05 / R) (printed).
Run: .venv/bin/python benchmarks/simulation_cluster.py [REPS]
"""

import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_cluster import coverage, simulate_clustered  # noqa: E402

from bayesnoise.frequentist import _score  # noqa: E402
from bayesnoise.frequentist.cluster import clustered_moments  # noqa: E402

DESIGNS = {"icc~0.1": (0.08, 0.08), "icc~0.3": (0.3, 0.3), "icc~0.45": (0.6, 0.6)}
K = 5


def wilson_coverage(correct, codes, truth, level=0.95):
    """Coverage of the clustered Wilson interval of model a (as cluster_noise computes it)."""
    p = correct[:, 0] / K
    m = clustered_moments(p, codes, matrices=False)
    acc, n, c = m["accuracy"], float(codes.size), m["clusters"]
    n_eff = _score.effective_n(acc * (1 - acc), m["var_clustered"] * n, n, fallback=n, cap=n * K)
    low, high = _score.wilson(acc, n_eff, stats.t.ppf(0.5 + level / 2, c - 1))
    return float(np.mean((low <= truth[0]) & (truth[0] <= high)))


def main(reps: int = 2000) -> None:
    rng = np.random.default_rng(2024)
    mc = np.sqrt(0.95 * 0.05 / reps)
    print(f"R = {reps} replicates per row, K = {K}; MC SE of a coverage near 0.95: {mc:.4f}\n")
    print(
        "| clusters | sizes | design | icc model | iid | cl | wilson | icc pair | iid | cl |\n"
        "|---|---|---|---|---|---|---|---|---|---|"
    )
    start = time.perf_counter()
    for n_c in (30, 100):
        unequal = np.random.default_rng(n_c).integers(2, 15, n_c)  # mean 8, fixed per row
        for label, sizes in (("8 each", np.full(n_c, 8)), ("2-14", unequal)):
            for name, (shared, own) in DESIGNS.items():
                correct, codes, truth = simulate_clustered(rng, reps, sizes, K, shared, own)
                cov = coverage(correct, codes, truth, K)
                wil = wilson_coverage(correct, codes, truth)
                print(
                    f"| {n_c} | {label} | {name} | {cov['model_icc']:.2f} | "
                    f"{cov['model_iid']:.3f} | {cov['model_clustered']:.3f} | {wil:.3f} | "
                    f"{cov['pair_icc']:.2f} | {cov['pair_iid']:.3f} | "
                    f"{cov['pair_clustered']:.3f} |"
                )
    print(f"\n{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
