"""Time bayesnoise's Inspect log reader against inspect_ai's own readers on the same files.

Writes logs with inspect_ai (offline, mockllm models, a solver that does not call the model):
the test logs of ``tests/log_fixtures.py`` and one larger log whose samples carry a realistic
transcript (``--turns`` messages of ``--chars`` characters each), in ``.eval`` and ``.json``
format. For each log it prints the best of ``--repeat`` wall times of

* ``bayesnoise``: :func:`bayesnoise.io.inspect_logs.read_inspect` (header + sample summaries,
  then the package's validator builds the dataset); ``rows``: the same up to the per-sample
  table (:func:`~bayesnoise.io.inspect_logs.inspect_samples`), without the dataset step;
* ``read_eval_log``: ``inspect_ai.log.read_eval_log`` (the whole log, as the issue asks);
* ``summaries``: ``inspect_ai.log.read_eval_log_sample_summaries`` (inspect_ai's fast path,
  ``.eval`` only) -- the floor for reading the scores with inspect_ai.

Run: ``python benchmarks/bench_inspect_reader.py [--samples 250 --epochs 4]``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def write_big_log(folder: Path, samples: int, epochs: int, turns: int, chars: int, fmt: str):
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
    from inspect_ai.scorer import Score, accuracy, scorer
    from inspect_ai.solver import solver

    @solver
    def transcript():
        async def solve(state, generate):
            for t in range(turns):
                text = f"turn {t} of sample {state.sample_id}: " + "x" * chars
                state.messages.append(ChatMessageUser(content=text))
                state.messages.append(ChatMessageAssistant(content=text[::-1]))
            state.output = ModelOutput.from_content(model=str(state.model), content="done")
            return state

        return solve

    @scorer(metrics=[accuracy()])
    def parity():
        async def score(state, target):
            return Score(value="C" if (hash(str(state.sample_id)) + state.epoch) % 3 else "I")

        return score

    data = [Sample(id=i, input=f"question {i}", target="x") for i in range(samples)]
    task = Task(name="big", dataset=data, solver=transcript(), scorer=parity(), epochs=epochs)
    (log,) = eval(
        task,
        model="mockllm/big",
        log_dir=str(folder),
        log_format=fmt,
        display="none",
        max_samples=200,
    )
    return Path(log.location)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=250)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--chars", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the logs written")
    args = parser.parse_args()

    from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
    from log_fixtures import write_inspect_logs

    from bayesnoise.io.inspect_logs import inspect_samples, read_inspect

    root = Path(tempfile.mkdtemp(prefix="bench_inspect_"))
    t0 = time.perf_counter()
    test_logs = write_inspect_logs(root / "test_logs")
    cases = [("test: bench (1 model)", next(test_logs["bench"].iterdir()), {})]
    cases.append(("test: mixed (1 model)", next(test_logs["mixed"].iterdir()), {"scorer": "grade"}))
    cases.append(("test: bench .json", next(test_logs["bench_json"].iterdir()), {}))
    for fmt in ("eval", "json"):
        path = write_big_log(
            root / f"big_{fmt}", args.samples, args.epochs, args.turns, args.chars, fmt
        )
        cases.append((f"big .{fmt} ({args.samples}x{args.epochs})", path, {}))
    print(f"logs written in {time.perf_counter() - t0:.1f} s under {root}\n")

    header = (
        f"{'log':<24} {'MB':>7} {'samples':>7} {'rows s':>7} {'bayesnoise s':>12} {'read_eval_log s':>15} "
        f"{'ratio':>7} {'summaries s':>11} {'ratio':>7}"
    )
    print(header)
    print("-" * len(header))
    for label, path, kw in cases:
        kw = {"incomplete": "use-scored", **kw}

        def ours(path=path, kw=kw):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return read_inspect([path], **kw)

        ds = ours()
        t_ours = best(ours, args.repeat)

        def rows(path=path, kw=kw):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return inspect_samples([path], **kw)

        t_rows = best(rows, args.repeat)
        t_full = best(lambda path=path: read_eval_log(str(path)), args.repeat)
        if path.suffix == ".eval":
            t_sum = best(lambda path=path: read_eval_log_sample_summaries(str(path)), args.repeat)
            sums = f"{t_sum:>11.4f} {t_sum / t_ours:>6.1f}x"
        else:
            sums = f"{'-':>11} {'-':>7}"
        mb = path.stat().st_size / 1e6
        print(
            f"{label:<24} {mb:>7.2f} {int(ds['samples'].sum()):>7} {t_rows:>7.4f} {t_ours:>12.4f} "
            f"{t_full:>15.4f} {t_full / t_ours:>6.1f}x {sums}"
        )
    print("\nratio = inspect_ai time / bayesnoise time (higher: bayesnoise faster)")
    if not args.keep:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
