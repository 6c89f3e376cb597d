"""Write the lmms-eval fixture of this folder from the lm-eval 0.4.13 one (a faithful
reduction: lmms-eval needs torch and a vision model to run).

``python make_lmms_eval_logs.py lm_eval/v0.4.13 lmms_eval`` rewrites each run as lmms-eval's
``EvaluationTracker`` (lmms_eval/loggers/evaluation_tracker.py, 2024-09 onwards) saves it:
file names date first, ``<YYYYMMDD_HHMMSS>_results.json`` and
``<YYYYMMDD_HHMMSS>_samples_<task>.jsonl``; each record gets ``input`` (the prompt), loses
``arguments`` and ``doc``, has one-element ``resps``/``filtered_resps`` lists flattened, and
drops ``resps`` when it equals ``filtered_resps``; ``target`` becomes a string.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from pathlib import Path

SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")


def lmms_date(iso: str) -> str:
    day, time = iso.split("T")
    return datetime.strptime(f"{day}T{time[:8]}", "%Y-%m-%dT%H-%M-%S").strftime("%Y%m%d_%H%M%S")


def convert(record: dict) -> dict:
    sample = dict(record)
    args = sample["arguments"]
    sample["input"] = args["gen_args_0"]["arg_0"] if isinstance(args, dict) else args[0]
    if isinstance(sample["resps"], list) and len(sample["resps"]) == 1:
        sample["resps"] = sample["resps"][0]
    if isinstance(sample["filtered_resps"], list) and len(sample["filtered_resps"]) == 1:
        sample["filtered_resps"] = sample["filtered_resps"][0]
    if sample["resps"] == sample["filtered_resps"]:
        sample.pop("resps")
    elif (
        isinstance(sample["resps"], list)
        and len(sample["resps"]) == 1
        and sample["resps"][0] == sample["filtered_resps"]
    ):
        sample.pop("resps")
    sample["target"] = str(sample["target"])
    sample.pop("arguments")
    sample.pop("doc")
    return sample


def main(source: Path, target: Path) -> None:
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        out = target / folder.name
        out.mkdir(parents=True, exist_ok=True)
        for path in sorted(folder.glob("results_*.json")):
            date = lmms_date(path.stem.removeprefix("results_"))
            (out / f"{date}_results.json").write_text(path.read_text())
        for path in sorted(folder.glob("samples_*.jsonl")):
            m = SAMPLES.match(path.name)
            lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
            text = "".join(json.dumps(convert(x), ensure_ascii=False) + "\n" for x in lines)
            (out / f"{lmms_date(m['date'])}_samples_{m['task']}.jsonl").write_text(text)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
