"""Write the Inspect AI fixtures of this folder with inspect-ai itself (offline).

Run with the project's virtual environment: ``python make_inspect_logs.py OUT_DIR``. The solver
never calls the model (mockllm's ``generate()`` downloads a tokenizer); the scorer marks
sample ids divisible by 3 (model-b: by 2) as incorrect. Cancellations are real: the eval runs inside an anyio
cancel scope that times out while samples are still sleeping (``cancelled_limit``,
``cancelled_none``); the sample running then is logged with a CancelledError.
``cancelled_all_ran`` is the one reduction: the ``limit_success`` log read by inspect-ai,
its status set to ``cancelled`` and written back by inspect-ai (a run stopped after its
last sample was scored), since a real cancellation cannot be timed to fall there.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
from inspect_ai import Task, eval, eval_async
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score, accuracy, scorer, stderr
from inspect_ai.solver import solver


@solver
def fixed(sleep_from: int | None = None):
    async def solve(state, generate):
        if sleep_from is not None and int(state.sample_id) >= sleep_from:
            await anyio.sleep(60)
        state.output = ModelOutput.from_content(model=str(state.model), content="x")
        return state

    return solve


def make_scorer():
    @scorer(metrics=[accuracy(), stderr()])
    def match():
        async def score(state, target):
            every = 2 if str(state.model).endswith("-b") else 3
            return Score(value="I" if int(state.sample_id) % every == 0 else "C")

        return score

    return match()


def task(n=100, sleep_from=None):
    return Task(
        name="quiz",
        dataset=[Sample(id=i, input=f"question {i}", target="x") for i in range(1, n + 1)],
        solver=fixed(sleep_from),
        scorer=make_scorer(),
    )


def cancelled(out: Path, seconds: float, **kwargs) -> None:
    async def run():
        with anyio.move_on_after(seconds):
            await eval_async(log_dir=str(out), max_samples=1, **kwargs)

    anyio.run(run)


def main(root: Path) -> None:
    os.environ["INSPECT_DISPLAY"] = "none"
    opts = {"display": "none"}
    eval(task(6), model="mockllm/model-a", log_dir=str(root / "success"), **opts)
    eval(task(6), model="mockllm/model-b", log_dir=str(root / "success"), **opts)
    eval(
        task(6),
        model="mockllm/model-c",
        log_dir=str(root / "header_only"),
        log_samples=False,
        **opts,
    )
    full = next((root / "success").glob("*.eval"))
    header = read_eval_log(str(full), header_only=True)
    (root / "header_only_json").mkdir(parents=True, exist_ok=True)
    write_eval_log(header, str(root / "header_only_json" / "header_only.json"), format="json")
    eval(task(), model="mockllm/model-a", log_dir=str(root / "limit_success"), limit=3, **opts)
    cancelled(
        root / "cancelled_limit", 4, tasks=task(sleep_from=3), model="mockllm/model-a", limit=4
    )
    cancelled(
        root / "cancelled_none", 4, tasks=task(sleep_from=1), model="mockllm/model-a", limit=4
    )
    log = read_eval_log(str(next((root / "limit_success").glob("*.eval"))))
    log.status = "cancelled"
    (root / "cancelled_all_ran").mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(root / "cancelled_all_ran" / "cancelled_after_last_sample.eval"))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
