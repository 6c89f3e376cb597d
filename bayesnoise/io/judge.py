"""Judge-graded results: a judge's score on every item and a human label on a random subset.

One row per (model, question[, judge]) with a judge score in [0, 1] and a human label 0/1 that
is empty where no human looked; or the labels in a second table keyed by model and question.
Several judges: a ``judge`` column naming the judge of each row, or several judge-score
columns (``judge_col=["gpt", "claude"]``). What comes out is plain arrays
(:class:`JudgeTable`) for the estimators; nothing is dropped, clipped or imputed: a bad value is
a :class:`~bayesnoise.data.DataError` naming the file, line, model and question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise._common import fmt_value, option
from bayesnoise.data import DataError

from .sources import TEXT_TYPES, table_kind

__all__ = ["JudgeTable", "judge_columns", "read_judge"]

#: Column names recognised without a mapping (first match wins).
_MODEL = ("model", "model_name")
_QUESTION = ("example_id", "question", "question_id", "item", "item_id")
_JUDGE_SCORE = ("judge_score", "judge_label", "judge_verdict", "judge_correct", "judge")
_HUMAN = ("human", "human_label", "human_score", "human_correct", "gold")
_JUDGE_NAME = ("judge", "judge_name")
_LABEL_PROB = ("label_prob", "label_probability", "inclusion_prob", "inclusion_probability")
_TRUE = {"1", "1.0", "true", "yes"}
_FALSE = {"0", "0.0", "false", "no"}


@dataclass
class JudgeTable:
    """Judge scores and human labels as arrays.

    ``judge[j, m, q]``: judge j's score of model m's answer to question q (NaN where model m
    has no answer to q); ``human[m, q]``: the human label (NaN where no human looked);
    ``label_prob[m, q]``: the probability with which the item was chosen for a human label
    (None when the table gives none: a simple random subset).
    """

    judge: np.ndarray
    human: np.ndarray
    models: list[str]
    questions: list[str]
    judges: list[str]
    source: str
    columns: dict[str, str] = field(default_factory=dict)
    label_prob: np.ndarray | None = None

    @property
    def labelled(self) -> np.ndarray:
        """(model, question) mask of the items a human labelled."""
        return np.isfinite(self.human)


def _frame(data, what: str) -> tuple[pd.DataFrame, str, int | None]:
    """The table, its name and the line number of its first row (None: 0-based rows)."""
    if isinstance(data, pd.DataFrame):
        if data.empty:
            raise DataError(f"{what}: the DataFrame has no rows")
        return data.reset_index(drop=True), what, None
    path = Path(str(data))
    kind, _gz = table_kind(path)
    if kind is None:
        raise DataError(f"{path}: unknown file type for judge-graded results; use {TEXT_TYPES}")
    if not path.exists():
        raise DataError(f"{path}: no such file")
    try:
        if kind in ("csv", "tsv"):
            df = pd.read_csv(path, sep="," if kind == "csv" else "\t", dtype=str)
            first = 2
        elif kind == "parquet":
            df, first = pd.read_parquet(path), None
        elif kind == "jsonl":
            df, first = pd.read_json(path, lines=True, dtype=False), 1
        else:
            df, first = pd.read_json(path, dtype=False), None
    except (ValueError, OSError) as err:
        raise DataError(f"{path}: cannot read it as a {kind} table ({err})") from None
    if df.empty:
        raise DataError(f"{path}: no rows")
    df.columns = [str(c).strip() for c in df.columns]
    return df, str(path), first


def _where(name: str, first: int | None, i: int) -> str:
    return f"{name}, line {i + first}" if first is not None else f"{name}, row {i}"


def _pick(df, given, names, role, name, flag) -> str | None:
    if given is not None:
        if str(given) not in df.columns:
            raise DataError(
                f"{name}: {flag} names column {given!r}, which is not in the table; columns are "
                f"{list(df.columns)}"
            )
        return str(given)
    return next((n for n in names if n in df.columns), None)


def _labels(df, col, name, first, role) -> np.ndarray:
    """Human labels as floats 0/1 (NaN where empty); anything else is an error naming the row."""
    raw = df[col]
    out = np.full(len(raw), np.nan)
    for i, v in enumerate(raw.to_numpy()):
        if (
            v is None
            or (isinstance(v, float) and np.isnan(v))
            or (isinstance(v, str) and not v.strip())
        ):
            continue
        text = str(v).strip().lower()
        if isinstance(v, bool | np.bool_):
            out[i] = float(v)
        elif text in _TRUE:
            out[i] = 1.0
        elif text in _FALSE:
            out[i] = 0.0
        else:
            raise DataError(
                f"{_where(name, first, i)}: {role} column {col!r} holds {fmt_value(v)}; human labels must "
                "be 0 or 1 (or empty where no human looked); threshold graded labels yourself"
            )
    return out


def _scores(df, col, name, first) -> np.ndarray:
    """Judge scores as floats in [0, 1]; a missing or out-of-range value names its row."""

    def number(v):
        if isinstance(v, bool | np.bool_):
            return float(v)
        if isinstance(v, str) and v.strip().lower() in _TRUE | _FALSE:
            return 1.0 if v.strip().lower() in _TRUE else 0.0
        return v

    values = pd.to_numeric(df[col].map(number), errors="coerce")

    values = values.to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values < 0) | (values > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        shown = df[col].iloc[i]
        what = "is empty" if np.isnan(values[i]) and pd.isna(shown) else f"holds {fmt_value(shown)}"
        raise DataError(
            f"{_where(name, first, i)}: judge column {col!r} {what}; judge scores must be numbers "
            "in [0, 1] (a verdict 0/1 or a probability) on every row"
        )
    return values


def _text_column(df, col, name, first, role) -> np.ndarray:
    values = df[col]
    empty = values.isna() | (values.astype(str).str.strip() == "")
    if empty.any():
        i = int(np.flatnonzero(empty.to_numpy())[0])
        raise DataError(f"{_where(name, first, i)}: the {role} column {col!r} is empty")
    return values.astype(str).str.strip().to_numpy()


def _judge_columns(judge_col) -> list[str] | None:
    if judge_col is None:
        return None
    if isinstance(judge_col, str):
        cols = [c.strip() for c in judge_col.split(",") if c.strip()]
    else:
        cols = [str(c) for c in judge_col]
    return cols or None


def read_judge(
    data,
    *,
    judge_col: str | Sequence[str] | None = None,
    human_col: str | None = None,
    human=None,
    model_col: str | None = None,
    question_col: str | None = None,
    label_prob_col: str | None = None,
) -> JudgeTable:
    """Judge scores and human labels from a table (a path or a DataFrame).

    Parameters
    ----------
    data : path or DataFrame
        One row per (model, question), or per (model, question, judge) with a ``judge``
        column naming the judge.
    judge_col : str or list of str, optional
        The judge-score column(s) (default ``judge_score``, else ``judge``). Several columns
        are several judges, named by their columns.
    human_col : str, optional
        The human-label column (default ``human``, else ``human_label``): 0/1, empty where no
        human looked.
    human : path or DataFrame, optional
        The human labels in a second table keyed by model and question (then ``data`` has
        none).
    model_col, question_col : str, optional
        Model and question columns when not ``model`` and ``example_id``/``question``.
    label_prob_col : str, optional
        Column holding each item's probability of having been chosen for a human label, in
        (0, 1], on every row (labelled or not); found on its own when named ``label_prob``
        (or ``label_probability``, ``inclusion_prob``, ``inclusion_probability``). Without one
        the labelled items are taken as a simple random subset.

    Returns
    -------
    JudgeTable

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model": ["a", "a", "a"], "question": ["q1", "q2", "q3"],
    ...                    "judge_score": [1, 0, 1], "human": [1, None, 0]})
    >>> t = read_judge(df)
    >>> t.judge.shape, t.human.tolist()
    ((1, 1, 3), [[1.0, nan, 0.0]])
    """
    df, name, first = _frame(data, "DataFrame")
    model = _pick(df, model_col, _MODEL, "model", name, option("model_col").removesuffix("="))
    question = _pick(
        df, question_col, _QUESTION, "question", name, option("question_col").removesuffix("=")
    )
    for role, col in (("model", model), ("question", question)):
        if col is None:
            raise DataError(
                f"{name}: no {role} column; name it with {option(role + '_col', 'NAME')}"
            )
    cols = _judge_columns(judge_col)
    if cols is None:
        found = next((c for c in _JUDGE_SCORE if c in df.columns), None)
        if found is None:
            raise DataError(
                f"{name}: no judge-score column (looked for {', '.join(_JUDGE_SCORE)}); name it "
                f"with {option('judge_col', 'NAME')}; columns are {list(df.columns)}"
            )
        cols = [found]
    for c in cols:
        _pick(df, c, (), "judge", name, option("judge_col").removesuffix("="))
    judge_name = next((c for c in _JUDGE_NAME if c in df.columns and c not in cols), None)
    if judge_name is not None and len(cols) > 1:
        raise DataError(
            f"{name}: a {judge_name!r} column names the judge of each row and judge_col names "
            f"several columns {cols}; use one layout (one score column per judge, or a judge "
            "column with one score column)"
        )
    hcol = None
    if human is None:
        hcol = _pick(df, human_col, _HUMAN, "human", name, option("human_col").removesuffix("="))
        if hcol is None:
            raise DataError(
                f"{name}: no human-label column (looked for {', '.join(_HUMAN)}); name it with "
                f"{option('human_col', 'NAME')}, or give the labels in a second table with "
                f"{option('human', 'FILE')}"
            )
        if hcol in cols:
            raise DataError(f"{name}: column {hcol!r} cannot be both judge score and human label")
    pcol = _pick(
        df, label_prob_col, _LABEL_PROB, "label_prob", name, "label_prob_col (--label-prob-col)"
    )
    models_raw = _text_column(df, model, name, first, "model")
    questions_raw = _text_column(df, question, name, first, "question")
    judges_raw = (
        _text_column(df, judge_name, name, first, "judge") if judge_name is not None else None
    )
    models = list(dict.fromkeys(models_raw))
    questions = list(dict.fromkeys(questions_raw))
    m_idx = pd.Index(models).get_indexer(models_raw)
    q_idx = pd.Index(questions).get_indexer(questions_raw)
    if judges_raw is not None:
        judges = list(dict.fromkeys(judges_raw))
        j_idx = pd.Index(judges).get_indexer(judges_raw)
        score_sets = [(_scores(df, cols[0], name, first), j_idx)]
    else:
        judges = list(cols)
        score_sets = [
            (_scores(df, c, name, first), np.full(len(df), j)) for j, c in enumerate(cols)
        ]
    judge = np.full((len(judges), len(models), len(questions)), np.nan)
    seen = np.full(judge.shape, -1, dtype=np.int64)
    for values, j in score_sets:
        taken = seen[j, m_idx, q_idx]
        dup = taken >= 0
        # also rows repeating a key within this batch
        key = (j * len(models) + m_idx) * len(questions) + q_idx
        _, counts = np.unique(key, return_counts=True)
        if dup.any() or (counts > 1).any():
            order = np.argsort(key, kind="stable")
            sk = key[order]
            rep = order[1:][sk[1:] == sk[:-1]]
            i = int(rep[0]) if rep.size else int(np.flatnonzero(dup)[0])
            raise DataError(
                f"{_where(name, first, i)}: model {models_raw[i]!r}, question "
                f"{questions_raw[i]!r} appears more than once"
                + (
                    f" for judge {judges[int(np.atleast_1d(j)[i])]!r}"
                    if judges_raw is not None
                    else ""
                )
                + "; give one judge score per model, question and judge"
            )
        judge[j, m_idx, q_idx] = values
        seen[j, m_idx, q_idx] = np.arange(len(df))
    human_arr = np.full((len(models), len(questions)), np.nan)
    if hcol is not None:
        labels = _labels(df, hcol, name, first, "human-label")
        _place_labels(human_arr, labels, m_idx, q_idx, models_raw, questions_raw, name, first)
    else:
        _merge_human(human_arr, human, human_col, model_col, question_col, models, questions)
    if not np.isfinite(human_arr).any():
        where = f"column {hcol!r}" if hcol is not None else "the human table"
        raise DataError(
            f"{name}: no human labels ({where} is empty on every row); the correction needs a "
            "random subset of items labelled by humans, 0/1"
        )
    present = np.isfinite(judge)
    if (present.any(axis=0) != present.all(axis=0)).any():
        j, m, q = np.argwhere(~present & present.any(axis=0, keepdims=True))[0]
        raise DataError(
            f"{name}: judge {judges[j]!r} has no score for model {models[m]!r}, question "
            f"{questions[q]!r}, which another judge scored; every judge scores the same items"
        )
    unjudged = np.isfinite(human_arr) & ~present[0]
    if unjudged.any():
        m, q = np.argwhere(unjudged)[0]
        raise DataError(
            f"{name}: model {models[m]!r}, question {questions[q]!r} has a human label but no "
            "judge score; every labelled item needs its judge score"
        )
    label_prob = None
    if pcol is not None:
        label_prob = _label_probs(df, pcol, name, first, m_idx, q_idx, human_arr, judge.shape[1:])
    return JudgeTable(
        judge=judge,
        human=human_arr,
        models=models,
        questions=questions,
        judges=judges,
        source=Path(name).name if isinstance(data, str | Path) else name,
        columns={
            "judge": ",".join(cols),
            "human": hcol or "(human table)",
            **({"label_prob": pcol} if pcol is not None else {}),
        },
        label_prob=label_prob,
    )


def _label_probs(df, col, name, first, m_idx, q_idx, human, shape) -> np.ndarray:
    """Inclusion probabilities per (model, question): in (0, 1] on every row, one value per
    item, 1 only where a human looked."""
    values = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values <= 0) | (values > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"{_where(name, first, i)}: label_prob column {col!r} holds "
            f"{fmt_value(df[col].iloc[i])}; give every row's probability of being chosen for a "
            "human label, in (0, 1] (unlabelled rows too)"
        )
    out = np.full(shape, np.nan)
    for i in range(len(values)):
        m, q = m_idx[i], q_idx[i]
        if np.isfinite(out[m, q]) and out[m, q] != values[i]:
            raise DataError(
                f"{_where(name, first, i)}: label_prob {values[i]:g} here and {out[m, q]:g} on "
                "another row of the same model and question; one probability per item"
            )
        out[m, q] = values[i]
    sure = (out >= 1) & ~np.isfinite(human)
    if sure.any():
        m, q = np.argwhere(sure)[0]
        i = int(np.flatnonzero((m_idx == m) & (q_idx == q))[0])
        raise DataError(
            f"{_where(name, first, i)}: label_prob is 1 but the item has no human label; an "
            "item chosen with probability 1 must be labelled"
        )
    return out


def _place_labels(out, labels, m_idx, q_idx, models_raw, questions_raw, name, first):
    """Labels of one (model, question) must agree on every row that gives one."""
    for i in np.flatnonzero(np.isfinite(labels)):
        m, q = m_idx[i], q_idx[i]
        if np.isfinite(out[m, q]) and out[m, q] != labels[i]:
            raise DataError(
                f"{_where(name, first, i)}: model {models_raw[i]!r}, question "
                f"{questions_raw[i]!r} has human label {labels[i]:g} here and {out[m, q]:g} on "
                "another row; one human label per model and question"
            )
        out[m, q] = labels[i]


def _merge_human(out, human, human_col, model_col, question_col, models, questions):
    df, name, first = _frame(human, "human labels (DataFrame)")
    model = _pick(df, model_col, _MODEL, "model", name, option("model_col").removesuffix("="))
    question = _pick(
        df, question_col, _QUESTION, "question", name, option("question_col").removesuffix("=")
    )
    hcol = _pick(df, human_col, _HUMAN, "human", name, option("human_col").removesuffix("="))
    for role, col in (("model", model), ("question", question), ("human label", hcol)):
        if col is None:
            raise DataError(
                f"{name}: the human-label table needs model, question and label columns; no "
                f"{role} column found in {list(df.columns)} (name it with --model-col, "
                "--question-col, --human-col)"
            )
    models_raw = _text_column(df, model, name, first, "model")
    questions_raw = _text_column(df, question, name, first, "question")
    m_idx = pd.Index(models).get_indexer(models_raw)
    q_idx = pd.Index(questions).get_indexer(questions_raw)
    unknown = (m_idx < 0) | (q_idx < 0)
    if unknown.any():
        i = int(np.flatnonzero(unknown)[0])
        raise DataError(
            f"{_where(name, first, i)}: model {models_raw[i]!r}, question {questions_raw[i]!r} "
            "is not in the judge table; human labels must be of judged items"
        )
    key = m_idx * len(questions) + q_idx
    _, counts = np.unique(key, return_counts=True)
    if (counts > 1).any():
        order = np.argsort(key, kind="stable")
        i = int(order[1:][key[order][1:] == key[order][:-1]][0])
        raise DataError(
            f"{_where(name, first, i)}: model {models_raw[i]!r}, question {questions_raw[i]!r} "
            "appears more than once in the human-label table"
        )
    labels = _labels(df, hcol, name, first, "human-label")
    out[m_idx, q_idx] = labels


def judge_columns(data) -> tuple[str, str] | None:
    """The judge-score and human-label columns that :func:`read_judge` finds in ``data`` on its
    own (the same names, first match wins), or None: a judge-graded table, as ``judge`` reads
    it, for the verbs (``check``, ``plan``, ``report``) that read other tables too. A table
    with a score column of the per-sample layout (``correct``, ``score``, ``pass1``) is not
    judge-graded here. Reads only the header (a path), or the columns (a DataFrame); None for
    anything else, or a file that cannot be read so (the usual reader then says why).

    Examples
    --------
    >>> import pandas as pd
    >>> judge_columns(pd.DataFrame(columns=["model", "question", "judge_score", "human"]))
    ('judge_score', 'human')
    >>> judge_columns(pd.DataFrame(columns=["model", "question", "correct"])) is None
    True
    """
    import gzip
    import json

    if isinstance(data, pd.DataFrame):
        columns = [str(c).strip() for c in data.columns]
    elif isinstance(data, str | Path):
        path = Path(str(data))
        kind, gz = table_kind(path)
        try:
            if kind in ("csv", "tsv"):
                sep = "," if kind == "csv" else "\t"
                columns = list(pd.read_csv(path, sep=sep, nrows=0).columns)
            elif kind == "jsonl":
                with gzip.open(path, "rt") if gz else open(path) as fh:
                    first = json.loads(fh.readline() or "{}")
                columns = list(first) if isinstance(first, dict) else []
            elif kind == "parquet":
                import pyarrow.parquet as pq

                columns = list(pq.read_schema(path).names)
            else:
                return None
        except (OSError, ValueError, ImportError):
            return None
        columns = [str(c).strip() for c in columns]
    else:
        return None
    plain = ("correct", "score", "pass1")
    judge = next((c for c in _JUDGE_SCORE if c in columns), None)
    human = next((c for c in _HUMAN if c in columns), None)
    if judge is None or human is None or any(c in columns for c in plain):
        return None
    return judge, human
