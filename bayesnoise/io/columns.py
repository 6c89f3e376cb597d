"""Which column of a table holds what: roles, column mapping, layouts and score values.

A long table names, per row, a ``model``, a ``question`` and either one sample's score or a
count of samples and their sum. The columns are found by their usual names or named by the
caller with ``columns={"model": "model_name", "question": "question_id", ...}``; the roles
present decide the layout:

``samples``  one row per sample: ``score`` (0/1 or partial), optional ``sample`` (without it,
             one sample per question)
``counts``   one row per (model, question): ``count`` with ``correct`` (sum of scores) and/or
             ``pass1`` (= correct / count), optional ``sum_sq`` (sum of squared scores)
``arena``    one row per (model, question): ``pass1`` only (Eval-Arena), count unknown

Optional roles everywhere: ``benchmark`` (select one), ``cluster`` (a label per question),
``source`` (a constant column written by :func:`bayesnoise.save`).

Factor columns (``factors=["template", ...]``, CLI ``--factor NAME``) say under which prompt
template, run or judge a score was made; each becomes a dim of the dataset, never a sample.

evalstats' layout is read without a mapping, in every spelling evalstats 0.3.3 itself reads
(``load_from``/``from_dataframe``: any case, :data:`EVALSTATS`): a table whose question column
is ``item`` or ``input``, or that has an evalstats item column (``item``, ``input``,
``example``, ``id``, ``input_label``) and a prompt column (``prompt``, ``template``,
``prompt_template``). Its prompt and evaluator (``evaluator``, ``eval``, ``judge``,
``criterion``, ``metric_name``) columns become factors, its run column (``run``, ``seed``,
``repeat``, ``run_id``, ``trial``) the sample, ``value``/``result``/``metric`` the score,
``model_label``/``model_name`` the model. Without a model column (evalstats' prompt-only
tables: ``prompt, item, score``) the table is one model named after the file (its stem;
``DataFrame`` for a DataFrame), so that files of several models load together. evalstats'
wide layout (first column the inputs, one column of scores per prompt) is read too
(:func:`evalstats_wide`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayesnoise._common import by_caller, caller, option
from bayesnoise.data import DataError, clusters_with_factor

__all__ = [
    "Layout",
    "column_option",
    "looks_wide",
    "resolve_columns",
    "score_value",
    "to_numbers",
]

#: Roles and the column names recognised for each without a mapping (first match wins).
ROLES: dict[str, tuple[str, ...]] = {
    "model": ("model",),
    "question": ("example_id", "question", "item", "input"),
    "sample": ("sample", "run"),
    "score": ("correct", "score"),
    "count": ("count",),
    "pass1": ("pass1",),
    "sum_sq": ("sum_sq",),
    "benchmark": ("benchmark_id", "benchmark"),
    "cluster": ("cluster",),
    "source": ("source",),
}
#: Keys accepted in ``columns=`` (``correct`` is another name for ``score``).
_KEYS = (*ROLES, "correct")
_CLI = {
    "model": "--model-col",
    "question": "--question-col",
    "score": "--score-col",
    "sample": "--sample-col",
    "count": "--count-col",
    "benchmark": "--benchmark-col",
    "cluster": "--cluster-col",
}
#: Role key of a factor column: ``factor:<name>`` (the column's own name is the dim's name).
FACTOR = "factor:"
#: evalstats' names of each role, first match wins, compared ignoring case and surrounding
#: spaces (evalstats 0.3.3: loader._CANONICAL_ALIASES and _SCORE_ALIASES, io._from_long).
EVALSTATS: dict[str, tuple[str, ...]] = {
    "model": ("model", "model_label", "model_name"),
    "question": ("item", "input", "example", "id", "input_label"),
    "score": ("score", "value", "result", "metric"),
    "sample": ("run", "seed", "repeat", "run_id", "trial"),
    "prompt": ("prompt", "template", "prompt_template"),
    "evaluator": ("evaluator", "eval", "judge", "criterion", "metric_name"),
}
#: evalstats' roles that are factors here (a dim each), in this order.
_EVALSTATS_FACTORS = ("prompt", "evaluator")
_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


@dataclass(frozen=True)
class Layout:
    """The layout of a table and the column (as written in the file) of each role."""

    kind: str
    columns: dict[str, str]
    factors: tuple[str, ...] = ()
    #: Roles with no column in the file, one value per file (evalstats' tables without a
    #: model: the file's stem); their ``columns`` entry is the name the messages use.
    implied: tuple[str, ...] = ()

    def label(self, role: str) -> str:
        return self.columns[role]

    @property
    def factor_roles(self) -> tuple[str, ...]:
        """Role keys of the factor columns, in the order given."""
        return tuple(FACTOR + f for f in self.factors)

    @property
    def keys(self) -> tuple[str, ...]:
        """Roles that identify a row: (model, question[, sample])."""
        with_sample = self.kind == "samples" and "sample" in self.columns
        return ("model", "question", "sample") if with_sample else ("model", "question")


def column_option(role: str, value: str = "...") -> str:
    """The option that names ``role``'s column, in the caller's words
    (:func:`~bayesnoise._common.calling`): ``columns={'score': ...}`` for :func:`load`,
    ``score_col=...`` for a verb, ``--score-col NAME`` on the command line."""
    kind = caller()
    if kind == "cli":
        return f"{_CLI[role]} {'NAME' if value == '...' else value}"
    if kind == "verb":
        return f"{role}_col={value}"
    return f"columns={{{role!r}: {value}}}"


def mapping_help() -> str:
    """How to name the columns, in the caller's words (Python's ``load``, a verb or the CLI)."""
    kind = caller()
    if kind == "cli":
        how = "name them with " + ", ".join(_CLI.values())
    elif kind == "verb":
        how = (
            "name them with model_col=, question_col=, score_col= (also "
            + ", ".join(f"{r}_col=" for r in _CLI if r not in ("model", "question", "score"))
            + ")"
        )
    else:
        how = (
            "name them with columns={'model': ..., 'question': ..., 'score': ...} "
            "(also 'sample', 'count', 'benchmark', 'cluster')"
        )
    return (
        how
        + ". Recognised without a mapping: "
        + "; ".join(f"{role}: {'|'.join(names)}" for role, names in ROLES.items())
    )


def _check_mapping(columns: Mapping[str, str], found: list[str], where: str) -> dict[str, str]:
    mapping = {}
    for key, column in columns.items():
        if key not in _KEYS:
            raise DataError(
                f"{where}: columns= has an unknown key {key!r}; the keys are {', '.join(_KEYS)}"
            )
        role = "score" if key == "correct" else key
        if role in mapping:
            raise DataError(f"{where}: columns= names the score twice ('score' and 'correct')")
        if str(column) not in found:
            raise DataError(
                f"{where}: columns= maps {key!r} to {str(column)!r}, but there is no such column; "
                f"found columns {found}"
            )
        mapping[role] = str(column)
    return mapping


def _factor_list(factors, found: list[str], mapping: dict[str, str], where: str) -> list[str]:
    """The factor columns asked for, checked to exist and to hold no other role."""
    if factors is None:
        return []
    if isinstance(factors, str):
        factors = [factors]
    out: list[str] = []
    for name in (str(f) for f in factors):
        if name not in found:
            raise DataError(
                f"{where}: {option('factors', by_caller(f'[{name!r}]', name))} names a column, but "
                "there is no such "
                f"column; found columns {found}"
            )
        if name in mapping.values():
            role = next(r for r, c in mapping.items() if c == name)
            raise DataError(
                f"{where}: column {name!r} is named as the {role} and as a factor; choose one"
            )
        if name in out:
            raise DataError(f"{where}: factors= names {name!r} twice")
        out.append(name)
    return out


def _evalstats_names(found: list[str], taken: set[str]) -> Callable[[str], str | None]:
    """``role -> column``: the first of evalstats' names for ``role`` present in ``found``
    (ignoring case and surrounding spaces) and not ``taken``, or None."""
    lower: dict[str, str] = {}
    for column in found:
        lower.setdefault(column.strip().lower(), column)

    def first(role: str) -> str | None:
        for name in EVALSTATS[role]:
            column = lower.get(name)
            if column is not None and column not in taken:
                return column
        return None

    return first


def evalstats_wide(found: Iterable[str]) -> bool:
    """Whether columns ``found`` are evalstats' wide layout: the first column evalstats' item
    column (``input``, ``item``, ...), two or more others, and no model, prompt or score
    column (evalstats reads such a table as rows = inputs, columns = prompt templates).

    Examples
    --------
    >>> evalstats_wide(["input", "Minimal", "Chain-of-thought"])
    True
    >>> evalstats_wide(["input", "prompt", "score"])
    False
    """
    found = [str(c) for c in found]
    if len(found) < 3:
        return False
    first = _evalstats_names(found[:1], set())
    others = _evalstats_names(found[1:], set())
    roles = ("model", "prompt", "score", "question", "sample", "evaluator")
    return first("question") is not None and all(others(r) is None for r in roles)


def resolve_columns(
    found: Iterable[str],
    columns: Mapping[str, str] | None,
    where: str,
    factors: Iterable[str] | None = None,
    *,
    one_model: bool = False,
) -> Layout:
    """The layout of a table with columns ``found``, given the caller's mapping (if any) and
    its factor columns (``factors``; evalstats' prompt/evaluator when not given). evalstats'
    tables are read in its own spellings (module docs); ``one_model``: one without a model
    column is one model (``Layout.implied``), else it is an error.

    Examples
    --------
    >>> resolve_columns(["model_name", "question_id", "score"], {"model": "model_name",
    ...                 "question": "question_id"}, "t.csv")
    Layout(kind='samples', columns={'model': 'model_name', 'question': 'question_id', 'score': 'score'}, factors=(), implied=())
    >>> resolve_columns(["Prompt", "Item", "Seed", "Value"], None, "t.csv", one_model=True)
    Layout(kind='samples', columns={'question': 'Item', 'score': 'Value', 'sample': 'Seed', 'model': 'model', 'factor:Prompt': 'Prompt'}, factors=('Prompt',), implied=('model',))
    """
    found = [str(c) for c in found]
    dupes = sorted({c for c in found if found.count(c) > 1})
    if dupes:
        raise DataError(f"{where}: column {dupes[0]!r} appears more than once")
    mapping = _check_mapping(columns or {}, found, where)
    named = _factor_list(factors, found, mapping, where)
    explicit = set(mapping)
    taken = set(mapping.values()) | set(named)
    candidates = {}
    for role, names in ROLES.items():
        present = [n for n in names if n in found and n not in taken]
        candidates[role] = present
        if role not in mapping and present:
            mapping[role] = present[0]
    evalstats = _evalstats_roles(found, mapping, explicit, named, factors is None)
    implied: tuple[str, ...] = ()
    if evalstats is not None:
        named = evalstats
        if "model" not in mapping and one_model:
            mapping["model"], implied = "model", ("model",)
    missing = [r for r in ("model", "question") if r not in mapping]
    if "count" in mapping:
        kind = "counts"
        if "score" not in mapping and "pass1" not in mapping:
            missing.append("correct or pass1")
    elif "score" in mapping:
        kind = "samples"
    elif "pass1" in mapping:
        kind = "arena"
    else:
        kind = "unknown"
        missing.append("score")
    for role in missing:
        own = [n for n in named if n in ROLES.get(role.split(" ")[-1], ())]
        if own:
            raise DataError(
                f"{where}: {option('factors', by_caller(f'[{own[0]!r}]', own[0]))} names the column read "
                f"as the {role.split(' ')[-1]}; a factor is a column besides the model, question "
                "and score, such as a prompt template, run or judge"
            )
    if missing:
        raise DataError(
            f"{where}: cannot tell which columns hold the {', '.join(missing)}; found columns "
            f"{found}. Layouts: per sample [model, example_id, (sample,) correct], counts "
            f"[model, example_id, count, correct|pass1], Eval-Arena [model, example_id, pass1]. "
            f"If your columns have other names, {mapping_help()}"
        )
    if kind == "samples" and "score" not in explicit and len(candidates["score"]) > 1:
        first, second = candidates["score"][:2]
        raise DataError(
            f"{where}: both {first!r} and {second!r} could be the score; "
            f"choose with {column_option('score')}"
        )
    unused = {"samples": ("pass1", "sum_sq"), "arena": ("sample", "sum_sq"), "counts": ("sample",)}
    for role in unused[kind]:
        if role in explicit:
            raise DataError(
                f"{where}: columns= maps {role!r}, which a {kind} table does not use "
                f"(layout from the roles {sorted(mapping)})"
            )
        mapping.pop(role, None)
    if named and "cluster" in mapping:
        raise clusters_with_factor(where, named[0], mapping["cluster"])
    for name in named:
        mapping[FACTOR + name] = name
    return Layout(kind, mapping, tuple(named), implied)


def _evalstats_roles(found, mapping, explicit, named, auto: bool) -> list[str] | None:
    """For an evalstats table (module docs): fill ``mapping``'s model, question, score and
    sample from evalstats' names and return the factor columns (its prompt and evaluator
    when ``auto``, else ``named``); None for any other table."""
    taken = set(mapping.values()) | set(named)
    first = _evalstats_names(found, taken)
    question = mapping.get("question")
    if question is None:
        item, prompt = first("question"), first("prompt")
        if item is None or prompt is None or "question" in explicit:
            return None
    elif question.strip().lower() not in ("item", "input"):
        return None
    for role in ("question", "model", "score", "sample"):
        if role not in mapping and role not in explicit:
            column = first(role)
            if column is not None:
                mapping[role] = column
                taken.add(column)
    if not auto:
        return list(named)
    first = _evalstats_names(found, taken)
    return [c for c in (first("prompt"), first("evaluator")) if c is not None]


def score_value(value) -> float | None:
    """A score as Inspect maps it to a number; ``None`` if it has none (missing, NaN, text).

    ``"C"`` = 1, ``"P"`` = 0.5, ``"I"`` = ``"N"`` = 0, ``yes``/``true`` = 1, ``no``/``false`` = 0
    (any case), numbers and numeric strings as they are.

    Examples
    --------
    >>> [score_value(v) for v in ("C", "I", "P", "N", "True", "0.25", 1, "maybe")]
    [1.0, 0.0, 0.5, 0.0, 1.0, 0.25, 1.0, None]
    """
    if isinstance(value, str):
        if value in _LETTERS:
            return _LETTERS[value]
        if value.strip().lower() in _WORDS:
            return _WORDS[value.strip().lower()]
        try:
            number = float(value)
        except ValueError:
            return None
    elif isinstance(value, bool | int | float | np.number | np.bool_):
        number = float(value)
    else:
        return None
    return number if math.isfinite(number) else None


def to_numbers(labels: list, *, scores: bool) -> np.ndarray:
    """Numbers for the distinct values of a column (NaN where there is none).

    ``scores=True`` also maps Inspect's score letters and yes/no words (:func:`score_value`);
    otherwise only numbers and numeric strings count.

    Examples
    --------
    >>> to_numbers(["1", "C", None, "x"], scores=True).tolist()
    [1.0, 1.0, nan, nan]
    """
    if not labels:
        return np.zeros(0)
    numbers = np.array(pd.to_numeric(pd.Series(labels, dtype=object), errors="coerce"), float)
    numbers[~np.isfinite(numbers)] = np.nan
    if scores:
        for i in np.flatnonzero(np.isnan(numbers)):
            value = score_value(labels[i])
            if value is not None:
                numbers[i] = value
    return numbers


def looks_wide(df: pd.DataFrame) -> bool:
    """Whether a DataFrame is a wide matrix (rows = questions, columns = models).

    Only when every column holds numbers or booleans and none has the name of a role; a
    column of text (a model or question name) or a role name makes it a long table.

    Examples
    --------
    >>> looks_wide(pd.DataFrame({"gpt": [1, 0], "llama": [0, 0]}))
    True
    >>> looks_wide(pd.DataFrame({"model_name": ["a"], "question_id": ["q1"], "score": [1]}))
    False
    """
    known = {name for names in ROLES.values() for name in names}
    known |= {*EVALSTATS["prompt"], *EVALSTATS["evaluator"], "item", "input"}
    if any(str(c).strip() in known for c in df.columns):
        return False
    return all(
        pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)
        for dtype in df.dtypes
    )
