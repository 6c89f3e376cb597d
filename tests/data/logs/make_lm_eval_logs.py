"""Write the lm-evaluation-harness fixtures of this folder with lm-eval itself (offline).

Run with the Python of a virtual environment holding the lm-eval version wanted::

    python make_lm_eval_logs.py OUT_DIR [--runs N] [--no-samples] [--variant other-filter]

Two tasks on a local JSON dataset (no download): ``arith`` (generate_until with the two
filter pipelines of GSM8K, ``strict-match`` and ``flexible-extract``, metric ``exact_match``)
and ``choice`` (multiple choice, metrics ``acc`` and ``acc_norm``). The model is a registered
``LM`` subclass that answers from a fixed table (no weights): ``pretrained=`` names it, and
``run=`` makes repeated runs differ.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

try:
    import lm_eval
    from lm_eval.api.model import LM
    from lm_eval.api.registry import register_model
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager
except ImportError:  # pytest's --doctest-modules imports this file where lm-eval is absent
    lm_eval = EvaluationTracker = TaskManager = None
    LM = object

    def register_model(name):
        return lambda cls: cls


QUESTIONS = [
    (f"What is {a} + {b}?", a + b) for a, b in [(2, 3), (7, 5), (10, 4), (6, 6), (9, 8), (3, 11)]
]
CHOICES = [
    ("Capital of France?", ["Paris", "Lyon", "Nice"], 0),
    ("Largest planet?", ["Mars", "Jupiter", "Venus"], 1),
    ("H2O is?", ["salt", "sand", "water"], 2),
    ("2 x 3?", ["six", "five", "nine"], 0),
    ("Opposite of hot?", ["warm", "cold", "mild"], 1),
]
# Per model and run: how each arith question is answered (S = "#### n" right: both filters
# right; F = right number without "####": only flexible-extract right; W = wrong) and which
# choice gets the highest log-likelihood.
ARITH = {
    "org/model-a": ["SSFSWF", "SSFFWS"],
    "org/model-b": ["FWSWFS", "FWSSFW"],
    "org/model-c": ["SSSSSW", "SSSSSW"],
}
PICK = {
    "org/model-a": [0, 1, 2, 1, 1],
    "org/model-b": [1, 1, 2, 0, 0],
    "org/model-c": [0, 1, 2, 0, 1],
}

ARITH_YAML = """task: arith
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: ["\\n\\n"]
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
filter_list:
{filters}
"""
FILTERS = {
    "standard": """  - name: strict-match
    filter:
      - function: regex
        regex_pattern: "#### (\\\\-?[0-9]+)"
      - function: take_first
  - name: flexible-extract
    filter:
      - function: regex
        group_select: -1
        regex_pattern: "(-?[0-9]+)"
      - function: take_first""",
    "other-filter": """  - name: last-number
    filter:
      - function: regex
        group_select: -1
        regex_pattern: "(-?[0-9]+)"
      - function: take_first""",
}
CHOICE_YAML = """task: choice
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: "{{{{label}}}}"
metric_list:
  - metric: acc
  - metric: acc_norm
"""


@register_model("canned")
class Canned(LM):
    def __init__(self, pretrained: str, run: int = 0, **kwargs):
        super().__init__()
        self.name, self.run = pretrained, int(run)

    def generate_until(self, requests, disable_tqdm=False):
        out = []
        for req in requests:
            i = next(k for k, (q, _) in enumerate(QUESTIONS) if q in req.args[0])
            kind, answer = ARITH[self.name][self.run][i], QUESTIONS[i][1]
            text = {
                "S": f"{answer - 1} + 1 = {answer}\n#### {answer}",
                "F": f"It is {answer}",
                "W": f"#### {answer + 1}",
            }[kind]
            out.append(text)
        return out

    def loglikelihood(self, requests, disable_tqdm=False):
        out = []
        for req in requests:
            context, continuation = req.args
            i = next(k for k, (q, _, _) in enumerate(CHOICES) if q in context)
            j = [f" {c}" for c in CHOICES[i][1]].index(continuation)
            out.append((-1.0 if j == PICK[self.name][i] else -5.0 - j, j == PICK[self.name][i]))
        return out

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("out", type=Path)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--models", default=",".join(ARITH))
    p.add_argument("--tasks", default="arith,choice")
    p.add_argument("--no-samples", action="store_true")
    p.add_argument("--variant", default="standard", choices=sorted(FILTERS))
    p.add_argument("--limit", type=int)
    args = p.parse_args()
    work = Path(tempfile.mkdtemp())
    (work / "arith.jsonl").write_text(
        "\n".join(json.dumps({"question": q, "answer": str(a)}) for q, a in QUESTIONS)
    )
    (work / "choice.jsonl").write_text(
        "\n".join(json.dumps({"question": q, "choices": c, "label": y}) for q, c, y in CHOICES)
    )
    tasks = work / "tasks"
    tasks.mkdir()
    (tasks / "arith.yaml").write_text(
        ARITH_YAML.format(data=work / "arith.jsonl", filters=FILTERS[args.variant])
    )
    (tasks / "choice.yaml").write_text(CHOICE_YAML.format(data=work / "choice.jsonl"))
    manager = TaskManager(include_path=str(tasks))
    for model in args.models.split(","):
        for run in range(args.runs):
            tracker = EvaluationTracker(output_path=str(args.out))
            results = lm_eval.simple_evaluate(
                model="canned",
                model_args=f"pretrained={model},run={run}",
                tasks=args.tasks.split(","),
                task_manager=manager,
                log_samples=not args.no_samples,
                evaluation_tracker=tracker,
                limit=args.limit,
            )
            samples = results.pop("samples", None)
            tracker.save_results_aggregated(results=results, samples=samples)
            if samples:
                for task in results["configs"]:
                    tracker.save_results_samples(task_name=task, samples=samples[task])
    redact(args.out, work)


def redact(out: Path, work: Path) -> None:
    """Drop the machine description (``pretty_env_info``) and this script's temporary paths
    from what lm-eval wrote; nothing else is changed."""
    for path in sorted(out.rglob("*.json*")):
        text = path.read_text(encoding="utf-8").replace(str(work), "data")
        if path.suffix == ".json":
            obj = json.loads(text)
            if "pretty_env_info" in obj:
                obj["pretty_env_info"] = "(removed from the fixture)"
            text = json.dumps(obj, indent=2, ensure_ascii=False)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
