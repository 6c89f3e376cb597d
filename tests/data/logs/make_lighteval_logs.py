"""Write the lighteval fixtures of this folder (faithful reductions: lighteval needs torch, a
model and a dataset download to run, none of which a test can have).

``python make_lighteval_logs.py OUT`` writes what lighteval's ``EvaluationTracker.save``
writes (src/lighteval/logging/evaluation_tracker.py): per model,
``OUT/details/<model>/<DATE>/details_<task>_<DATE>.parquet`` built as
``Dataset.from_list([asdict(detail)]).select_columns(sorted(columns))`` and
``OUT/results/<model>/results_<DATE>.json`` with ``config_general.model_name`` and
``results[task][metric]`` = the mean of the per-sample values (``<metric>_stderr`` the sample
standard deviation over sqrt(n)).

* ``v0.13``: the current Detail (``doc``: the Doc fields with ``id`` = the row's index in its
  split as text; ``model_response``; ``metric``: metric name -> value); tasks
  ``lighteval|quiz|0`` (two metrics, ``acc`` and ``acc_norm``) and ``lighteval|arith|0``
  (``extractive_match``).
* ``leaderboard_v1``: the Detail of lighteval <= 0.7 (flat columns, every value cast to
  ``str``, so ``metrics`` is the text ``"{'acc': 1, 'acc_norm': 1}"``), in the layout of an
  Open LLM Leaderboard details download: ``details_<org>__<model>/<DATE>/details_harness|quiz|5_<DATE>.parquet``.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

QUIZ = [
    ("Capital of France?", ["Paris", "Lyon"], 0),
    ("Largest planet?", ["Mars", "Jupiter"], 1),
    ("H2O is?", ["salt", "water"], 1),
    ("2 x 3?", ["six", "five"], 0),
    ("Opposite of hot?", ["cold", "warm"], 0),
    ("Sky colour?", ["green", "blue"], 1),
]
ARITH = [(f"What is {a} + {b}?", a + b) for a, b in [(2, 3), (7, 5), (10, 4), (6, 6), (9, 8)]]
# Per model: (acc, acc_norm) per quiz question; extractive_match per arith question.
SCORES = {
    "org/model-a": ([(1, 1), (1, 1), (0, 1), (1, 1), (0, 0), (1, 0)], [1, 1, 0, 1, 0]),
    "org/model-b": ([(0, 0), (1, 1), (1, 1), (0, 1), (1, 1), (0, 0)], [0, 1, 1, 1, 1]),
}
DATES = {"org/model-a": "2025-06-13T15-07-12.143436", "org/model-b": "2025-06-14T09-30-01.552310"}


def doc(query, choices, gold, i, task):
    return {
        "query": query,
        "choices": choices,
        "gold_index": gold,
        "instruction": None,
        "images": None,
        "specific": None,
        "unconditioned_query": None,
        "original_query": None,
        "id": str(i),
        "task_name": task,
        "fewshot_samples": [],
        "sampling_methods": [],
        "fewshot_sorting_class": None,
        "generation_size": None,
        "stop_sequences": None,
        "use_logits": False,
        "num_samples": 1,
        "generation_grammar": None,
    }


def response(text, logprobs=()):
    return {
        "input": None,
        "input_tokens": [],
        "text": list(text),
        "output_tokens": [],
        "text_post_processed": None,
        "reasonings": [],
        "logprobs": list(logprobs),
        "argmax_logits_eq_gold": [],
        "logits": None,
        "unconditioned_logprobs": None,
        "truncated_tokens_count": 0,
        "padded_tokens_count": 0,
    }


def stderr(values):
    n = len(values)
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) / math.sqrt(n)


def write(rows, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows)
    pq.write_table(table.select(sorted(table.column_names)), path)


def current(out: Path) -> None:
    for model, (quiz, arith) in SCORES.items():
        date = DATES[model]
        folder = out / "details" / model / date
        rows = []
        for i, ((q, c, g), (acc, norm)) in enumerate(zip(QUIZ, quiz, strict=True)):
            pick = g if acc else 1 - g
            rows.append(
                {
                    "doc": doc(q, c, g, i, "lighteval|quiz|0"),
                    "model_response": response([], [-1.0 if k == pick else -3.0 for k in range(2)]),
                    "metric": {"acc": float(acc), "acc_norm": float(norm)},
                }
            )
        write(rows, folder / f"details_lighteval|quiz|0_{date}.parquet")
        rows = []
        for i, ((q, a), em) in enumerate(zip(ARITH, arith, strict=True)):
            rows.append(
                {
                    "doc": doc(q, [str(a)], 0, i, "lighteval|arith|0"),
                    "model_response": response([f"The answer is {a if em else a + 1}"]),
                    "metric": {"extractive_match": float(em)},
                }
            )
        write(rows, folder / f"details_lighteval|arith|0_{date}.parquet")
        acc = [float(a) for a, _ in quiz]
        norm = [float(b) for _, b in quiz]
        em = [float(x) for x in arith]
        results = {
            "config_general": {"lighteval_sha": "?", "num_fewshot_seeds": 1, "model_name": model},
            "results": {
                "lighteval|quiz|0": {
                    "acc": sum(acc) / len(acc),
                    "acc_stderr": stderr(acc),
                    "acc_norm": sum(norm) / len(norm),
                    "acc_norm_stderr": stderr(norm),
                },
                "lighteval|arith|0": {
                    "extractive_match": sum(em) / len(em),
                    "extractive_match_stderr": stderr(em),
                },
            },
        }
        path = out / "results" / model / f"results_{date}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=2))


def leaderboard(out: Path) -> None:
    for model, (quiz, _) in SCORES.items():
        date = DATES[model]
        folder = out / f"details_{model.replace('/', '__')}" / date
        rows = []
        for (q, c, g), (acc, norm) in zip(QUIZ, quiz, strict=True):
            detail = {
                "example": q,
                "instruction": "",
                "full_prompt": f"Question: {q}\nAnswer:",
                "num_effective_few_shots": 5,
                "num_asked_few_shots": 5,
                "predictions": [],
                "input_tokens": [],
                "cont_tokens": [],
                "truncated": [0, 0],
                "padded": [0, 0],
                "gold": [],
                "pred_logits": [],
                "choices": c,
                "gold_index": [g],
                "metrics": {"acc": acc, "acc_norm": norm},
                "specifics": {},
            }
            rows.append({k: str(v) for k, v in detail.items()})
        write(rows, folder / f"details_harness|quiz|5_{date}.parquet")
        acc = [float(a) for a, _ in quiz]
        results = {
            "config_general": {"model_name": model},
            "results": {"harness|quiz|5": {"acc": sum(acc) / len(acc), "acc_stderr": stderr(acc)}},
        }
        (folder.parent / f"results_{date}.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    root = Path(sys.argv[1])
    current(root / "v0.13")
    leaderboard(root / "leaderboard_v1")
