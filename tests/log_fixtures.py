"""Eval logs written for the reader tests: real Inspect AI logs (written by inspect_ai itself,
offline) and lm-evaluation-harness output folders (written from the documented layout).

The Inspect solver never calls the model (mockllm's ``generate()`` downloads a tokenizer): it
sets ``state.output`` from a fixed table, and the scorers look their values up in tables.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

MODELS = ["mockllm/a", "mockllm/b", "mockllm/c"]
BENCH = "bench"  # the clean task: binary scores, every sample scored
BENCH_IDS = list(range(8))
BENCH_EPOCHS = 3
MIXED_IDS = [1, 2, 3, "s4", "s5"]  # int and str sample ids
MIXED_EPOCHS = 4
NAN_AT = ("mockllm/a", "s4", 2)  # (model, id, epoch) whose "grade" score is NaN
ERROR_AT = ("mockllm/b", 3, 3)  # (model, id, epoch) whose solver raises
MISC_VALUES = [True, False, "yes", "no", "0.25", 1, 0.0, "True", "N", 0.75]


def bench_table() -> dict[str, dict[int, list[int]]]:
    """0/1 score per (model, question, epoch) of the clean task, from a seeded generator."""
    rng = np.random.default_rng(20260611)
    accuracy = {"mockllm/a": 0.8, "mockllm/b": 0.5, "mockllm/c": 0.3}
    return {
        m: {q: [int(x) for x in rng.random(BENCH_EPOCHS) < accuracy[m]] for q in BENCH_IDS}
        for m in MODELS
    }


def _index(model: str, sample_id, epoch: int) -> int:
    return MODELS.index(model) * 7 + MIXED_IDS.index(sample_id) * 3 + epoch


def grade_value(model: str, sample_id, epoch: int):
    if (model, sample_id, epoch) == NAN_AT:
        return float("nan")
    return "CIP"[_index(model, sample_id, epoch) % 3]


def judge_value(model: str, sample_id, epoch: int) -> dict:
    i = _index(model, sample_id, epoch)
    return {"acc": i % 2, "length": (i % 5) / 4}


def misc_value(model: str, sample_id, epoch: int):
    return MISC_VALUES[_index(model, sample_id, epoch) % len(MISC_VALUES)]


_WRITTEN: dict[str, dict[str, Path]] = {}


def inspect_logs_once(tmp_path_factory) -> dict[str, Path]:
    """The Inspect logs of :func:`write_inspect_logs`, written once per test process."""
    if "logs" not in _WRITTEN:
        _WRITTEN["logs"] = write_inspect_logs(tmp_path_factory.mktemp("inspect_logs"))
    return _WRITTEN["logs"]


def write_inspect_logs(root: Path) -> dict[str, Path]:
    """Write the Inspect logs once; return their folders by role.

    ``bench/`` (3 models x 8 int ids x 3 epochs, C/I), ``mixed/`` (3 models x int and str ids
    x 4 epochs; scorers grade (C/I/P and one NaN), judge (dict), misc (bools, yes/no, numeric
    strings); one errored sample), ``broken/`` (status error), ``bench_json/`` (model a on
    bench again, as a .json log) and ``crashed/`` (a mixed log keeping only ``_journal/``).
    """
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score, accuracy, scorer
    from inspect_ai.solver import solver

    table = bench_table()

    @solver
    def fixed(fail: str = "none"):
        async def solve(state, generate):
            model, key = str(state.model), (str(state.model), state.sample_id, state.epoch)
            if fail == "all" or (fail == "one" and key == ERROR_AT):
                raise RuntimeError(f"solver failed on {state.sample_id}")
            state.output = ModelOutput.from_content(model=model, content=f"{key}")
            return state

        return solve

    def _lookup(fn):
        async def score(state, target):
            return Score(value=fn(str(state.model), state.sample_id, state.epoch))

        return score

    @scorer(metrics=[accuracy()])
    def match():
        return _lookup(lambda m, i, e: "C" if table[m][i][e - 1] else "I")

    @scorer(metrics=[accuracy()])
    def grade():
        return _lookup(grade_value)

    @scorer(metrics={"*": [accuracy()]})
    def judge():
        return _lookup(judge_value)

    @scorer(metrics=[accuracy()])
    def misc():
        return _lookup(misc_value)

    def task(name, ids, epochs, scorers, fail="none", fail_on_error=None):
        data = [Sample(id=i, input=f"question {i}", target="x") for i in ids]
        return Task(
            name=name,
            dataset=data,
            solver=fixed(fail),
            scorer=scorers,
            epochs=epochs,
            fail_on_error=fail_on_error,
        )

    raw = root / "raw"
    tasks = [
        task(BENCH, BENCH_IDS, BENCH_EPOCHS, [match()]),
        task("mixed", MIXED_IDS, MIXED_EPOCHS, [grade(), judge(), misc()], "one", 0.5),
        task("broken", [1, 2], 1, [match()], "all"),
    ]
    eval(tasks, model=MODELS, log_dir=str(raw), display="none", max_tasks=4, max_samples=100)
    eval(
        task(BENCH, BENCH_IDS, BENCH_EPOCHS, [match()]),
        model=MODELS[0],
        log_dir=str(root / "bench_json"),
        log_format="json",
        display="none",
    )
    folders = {"bench_json": root / "bench_json"}
    for path in sorted(raw.glob("*.eval")):
        name = path.name.split("_")[1]  # <timestamp>_<task>_<id>.eval
        folders[name] = root / name
        folders[name].mkdir(exist_ok=True)
        shutil.move(path, folders[name] / path.name)
    folders["crashed"] = root / "crashed"
    folders["crashed"].mkdir()
    source = next(p for p in sorted(folders["mixed"].glob("*.eval")) if "mockllm/c" in _model(p))
    journal_only(source, folders["crashed"] / source.name, keep=13)
    return folders


def _model(path: Path) -> str:
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(path), header_only=True).eval.model


def journal_only(source: Path, target: Path, keep: int) -> None:
    """``source`` as a run that crashed after ``keep`` samples leaves it, in the documented
    journal layout: ``_journal/start.json`` and ``_journal/summaries/<n>.json``, no header or
    summaries, deflate-compressed. The second journal part repeats the last sample of the
    first (a retry), whose first occurrence is given a wrong score: readers keep the last."""
    from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

    header = read_eval_log(str(source), header_only=True)
    summaries = [s.model_dump(mode="json") for s in read_eval_log_sample_summaries(str(source))]
    summaries = summaries[:keep]
    half = keep // 2
    first = json.loads(json.dumps(summaries[:half]))
    first[-1]["scores"]["grade"]["value"] = (
        "I" if first[-1]["scores"]["grade"]["value"] != "I" else "C"
    )
    start = {
        "version": header.version,
        "eval": header.eval.model_dump(mode="json"),
        "plan": header.plan.model_dump(mode="json"),
    }
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("_journal/start.json", json.dumps(start))
        zf.writestr("_journal/summaries/1.json", json.dumps(first))
        zf.writestr("_journal/summaries/2.json", json.dumps(summaries[half - 1 :]))


def write_count_table(path: Path, table: dict, *, benchmark: str | None = None) -> None:
    """The table as a count CSV ``model, example_id, count, correct``."""
    rows = [
        {"model": m, "example_id": q, "count": len(v), "correct": sum(v)}
        for m, per_q in table.items()
        for q, v in per_q.items()
    ]
    pd.DataFrame(rows).to_csv(path, index=False)


def doc_hash(doc: dict) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def lm_eval_line(doc_id: int, score, *, filt="none", doc=None, flat=False, metrics=None) -> dict:
    """One ``--log_samples`` record; lmms-eval style (``flat``) has flattened response lists."""
    doc = doc if doc is not None else {"question": f"question {doc_id}", "answer": "x"}
    resps = ["x"] if flat else [["x"]]
    metrics = metrics if metrics is not None else {"acc": score, "acc_norm": score}
    return {
        "doc_id": doc_id,
        "doc": doc,
        "target": "x",
        "arguments": [[f"question {doc_id}", " x"]],
        "resps": resps,
        "filtered_resps": resps[0] if not flat else resps,
        "filter": filt,
        "metrics": list(metrics),
        "doc_hash": doc_hash(doc),
        "prompt_hash": doc_hash({"prompt": doc_id}),
        "target_hash": doc_hash({"target": "x"}),
        **metrics,
    }


def run_date(run: int) -> str:
    return f"2026-06-{11 + run:02d}T10-21-33.123456"


def write_lm_eval(
    out: Path, table: dict, task: str, *, runs: int | None = None, lines=None, old=False
) -> list[Path]:
    """Write an lm-eval output folder: ``out/<model>/results_<DATE>.json`` and
    ``samples_<task>_<DATE>.jsonl`` per run; run r holds sample r of every question.

    ``lines(model, run, doc_id, score) -> list of records`` overrides the default record; with
    ``old`` write the pre-0.4.3 layout instead (``results.json`` and a JSON array, one run).
    Returns the model folders.
    """
    folders = []
    for model, per_q in table.items():
        folder = out / model.replace("/", "__")
        folder.mkdir(parents=True, exist_ok=True)
        folders.append(folder)
        n_runs = runs if runs is not None else len(next(iter(per_q.values())))
        for r in range(n_runs):
            make = lines or (lambda m, r, q, s: [lm_eval_line(q, s)])
            records = [rec for q, v in per_q.items() for rec in make(model, r, q, float(v[r]))]
            results = {
                "results": {task: {"alias": task, "acc,none": 0.5}},
                "configs": {task: {"task": task}},
                "versions": {task: 1.0},
                "config": {"model": "hf", "model_args": f"pretrained={model},dtype=float32"},
                "model_name": model,
                "model_name_sanitized": folder.name,
            }
            if old:
                (folder / "results.json").write_text(json.dumps(results, indent=2))
                del results["model_name"]
                (folder / "results.json").write_text(json.dumps(results, indent=2))
                name = f"pretrained__{folder.name},dtype__float32_{task}.jsonl"
                (folder / name).write_text(json.dumps(records, indent=2))
                break
            date = run_date(r)
            (folder / f"results_{date}.json").write_text(json.dumps(results, indent=2))
            text = "\n".join(json.dumps(rec) for rec in records) + "\n"
            (folder / f"samples_{task}_{date}.jsonl").write_text(text)
    return folders
