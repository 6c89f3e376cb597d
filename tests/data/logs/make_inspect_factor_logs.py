"""Write the Inspect AI prompt-variant fixtures (``inspect/factors/v<version>/``) with
inspect-ai itself, offline: ``python make_inspect_factor_logs.py OUT_DIR`` with the inspect-ai
version wanted (the folder is named after it).

Models ``mockllm/model-a`` and ``mockllm/model-b``; the solver never calls the model; the score
of (model, variant, sample id, epoch) is :func:`value`. Folders:

``task_args``  the variant as a task argument (``inspect eval ... -T template=cot``): one log
               per (model, template), templates ``plain`` and ``cot``, 5 samples x 2 epochs
``epochs``     the variant per epoch in the sample metadata (the solver sets
               ``state.metadata["template"]``: epochs 1, 3 ``plain``, 2, 4 ``few  shot``,
               two spaces), 5 samples x 4 epochs, one log per model
``nested``     the variant per sample in the metadata, the ids ``<i>-<template>`` (Inspect
               refuses two samples with one id in a log): questions nested in templates
``long``       model-a only: the metadata ``template`` holds the template text, two texts of
               1,300 characters that differ after the first 1,100 (inspect-ai >= 0.3.7x thins
               summary metadata to 1,024 characters)
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import inspect_ai
from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score, accuracy, scorer
from inspect_ai.solver import solver

MODELS = ["mockllm/model-a", "mockllm/model-b"]
IDS = range(1, 6)
EPOCH_TEMPLATES = ("plain", "few  shot")
LONG = {name: "x" * 1100 + name * 200 for name in ("A", "B")}


def value(model: str, template: str, sample_id, epoch: int) -> str:
    """The score of one sample: C or I from a fixed formula (the tests recompute it)."""
    number = int(str(sample_id).split("-")[0])
    seed = number * 7 + epoch * 3 + len(template) + (2 if model.endswith("-b") else 0)
    return "C" if seed % 3 else "I"


@solver
def fixed(per_epoch: bool = False):
    async def solve(state, generate):
        if per_epoch:
            state.metadata["template"] = EPOCH_TEMPLATES[(state.epoch - 1) % 2]
        state.output = ModelOutput.from_content(model=str(state.model), content="x")
        return state

    return solve


@scorer(metrics=[accuracy()])
def match(template: str = ""):
    async def score(state, target):
        name = template or str(state.metadata.get("template", ""))
        return Score(value=value(str(state.model), name, state.sample_id, state.epoch))

    return score


@task
def quiz(template: str = "plain"):
    return Task(
        dataset=[Sample(id=i, input=f"question {i}", target="x") for i in IDS],
        solver=fixed(),
        scorer=match(template),
        epochs=2,
    )


def per_epoch() -> Task:
    return Task(
        name="quiz_epochs",
        dataset=[Sample(id=i, input=f"question {i}", target="x") for i in IDS],
        solver=fixed(per_epoch=True),
        scorer=match(),
        epochs=4,
    )


def nested() -> Task:
    data = [
        Sample(id=f"{i}-{t}", input=f"question {i}", target="x", metadata={"template": t})
        for i in IDS
        for t in ("plain", "cot")
    ]
    return Task(name="quiz_nested", dataset=data, solver=fixed(), scorer=match(), epochs=1)


def long() -> Task:
    data = [
        Sample(id=f"{i}-{t}", input=f"question {i}", target="x", metadata={"template": text})
        for i in IDS
        for t, text in LONG.items()
    ]
    return Task(name="quiz_long", dataset=data, solver=fixed(), scorer=match(), epochs=1)


def _flatten(folder: Path, name) -> None:
    """Short file names: <model>[_<template>].eval (the timestamped names are long)."""
    for path in sorted(folder.glob("*.eval")):
        from inspect_ai.log import read_eval_log

        log = read_eval_log(str(path), header_only=True)
        model = log.eval.model.split("/")[-1]
        path.rename(folder / f"{name(model, log.eval.task_args)}.eval")


def main(root: Path) -> None:
    os.environ["INSPECT_DISPLAY"] = "none"
    out = root / f"v{inspect_ai.__version__}"
    if out.exists():
        shutil.rmtree(out)
    opts = {"display": "none", "log_format": "eval"}
    for template in ("plain", "cot"):
        eval(quiz(template=template), model=MODELS, log_dir=str(out / "task_args"), **opts)
    _flatten(out / "task_args", lambda m, args: f"{m}_{args['template']}")
    eval(per_epoch(), model=MODELS, log_dir=str(out / "epochs"), **opts)
    _flatten(out / "epochs", lambda m, args: m)
    eval(nested(), model=MODELS[0], log_dir=str(out / "nested"), **opts)
    _flatten(out / "nested", lambda m, args: m)
    eval(long(), model=MODELS[0], log_dir=str(out / "long"), **opts)
    _flatten(out / "long", lambda m, args: m)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
