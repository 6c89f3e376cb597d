"""Split-half stability of three leaderboards: accuracy, Eval-Arena's win rate and Elo.

For every shared Eval-Arena file (``../shared/data/eval-arena/**/*.jsonl``) the questions are
split at random into two halves, each half ranks the models by accuracy, win rate and Elo
(the numbers ``bn.leaderboard`` prints, from the estimator it calls:
``frequentist.model_quality`` without the Elo bootstrap), and Kendall's tau-b
(``scipy.stats.kendalltau``) measures how alike the two halves rank them. The table gives the
mean tau over ``SPLITS`` seeded splits with its Monte Carlo SE (sd / sqrt(SPLITS)), and the
mean paired differences accuracy - win rate and accuracy - Elo over the same splits (a
positive difference: accuracy ranks more stably). Models must share the questions; questions
some model lacks are dropped first (stated per file).

Run: .venv/bin/python benchmarks/stability_quality.py   (prints a markdown table; ~1 minute)
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

import bayesnoise as bn
from bayesnoise.data import complete
from bayesnoise.frequentist.quality import model_quality

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "eval-arena"
SPLITS = 100
METRICS = ("accuracy", "win_rate", "elo")


def _ranks_agree(ds, rng) -> dict[str, float]:
    n = ds.sizes["question"]
    order = rng.permutation(n)
    halves = [
        ds.isel(question=np.sort(order[: n // 2])),
        ds.isel(question=np.sort(order[n // 2 :])),
    ]
    tables = [model_quality(h, n_resamples=0).set_index("model") for h in halves]
    models = tables[0].index
    return {
        m: stats.kendalltau(tables[0].loc[models, m], tables[1].loc[models, m]).statistic
        for m in METRICS
    }


def _check_against_leaderboard(ds) -> None:
    """The three columns equal what bn.leaderboard prints for the whole file."""
    ours = model_quality(ds, n_resamples=0).set_index("model")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # notes of the rank intervals, not used here
        board = bn.tidy(bn.leaderboard(ds, n_resamples=20)).set_index("model")
    for m in METRICS:
        np.testing.assert_allclose(ours.loc[board.index, m], board[m], rtol=1e-9)


def main() -> int:
    files = sorted([*SHARED.glob("*.jsonl"), *SHARED.glob("*/*.jsonl")])
    if not files:
        print(f"no Eval-Arena files under {SHARED}", file=sys.stderr)
        return 1
    print(
        f"Split-half Kendall tau between the rankings of two random halves of the questions, "
        f"{SPLITS} splits per file (mean +- Monte Carlo SE).\n"
    )
    print(
        "| file | models | questions | tau accuracy | tau win rate | tau Elo "
        "| accuracy - win rate | accuracy - Elo |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    start = time.perf_counter()
    pooled = {m: [] for m in METRICS}
    for k, path in enumerate(files):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ds = complete(bn.load(path, progress=False), on_missing="intersect")
        dropped = [str(w.message) for w in caught if "dropped" in str(w.message)]
        if k == 0:
            _check_against_leaderboard(ds)
        rng = np.random.default_rng(k)
        taus = {m: [] for m in METRICS}
        for _ in range(SPLITS):
            for m, t in _ranks_agree(ds, rng).items():
                taus[m].append(t)
        t = {m: np.asarray(v) for m, v in taus.items()}
        for m in METRICS:
            pooled[m].append(t[m].mean())

        def cell(x):
            return f"{x.mean():.3f} +- {x.std(ddof=1) / np.sqrt(x.size):.3f}"

        name = str(path.relative_to(SHARED)) + (" (intersect)" if dropped else "")
        print(
            f"| {name} | {ds.sizes['model']} | {ds.sizes['question']} | {cell(t['accuracy'])} "
            f"| {cell(t['win_rate'])} | {cell(t['elo'])} "
            f"| {cell(t['accuracy'] - t['win_rate'])} | {cell(t['accuracy'] - t['elo'])} |"
        )
    means = {m: np.mean(v) for m, v in pooled.items()}
    print(
        f"| **mean over files** | | | {means['accuracy']:.3f} | {means['win_rate']:.3f} "
        f"| {means['elo']:.3f} | {means['accuracy'] - means['win_rate']:.3f} "
        f"| {means['accuracy'] - means['elo']:.3f} |"
    )
    print(f"\n{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
