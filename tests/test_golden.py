"""Same answers (issue 38, item 7): every command's default output on the bundled files, a
prompt-template file and a judge-graded file, compared with the outputs written before the
refactor (``tests/golden/``, written by ``tests/golden/make_golden.py``; see its README).

Tables: the same columns in the same order, the same number of rows, text cells equal, numbers
equal to rtol 1e-9 / atol 1e-12. ``--format csv`` prints floats to 10 significant digits
(``%.10g``), so a change in the last bits of a float (another BLAS build, another order of a
sum) can move the 10th digit by one unit, a relative change of at most 1e-9: that is not a
change of output; anything larger is. Standard error (verdicts, notes, warnings) and the exit
status: equal as text. ``plot`` and ``report``: run and write a non-empty file.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import math
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
_spec = importlib.util.spec_from_file_location("make_golden", GOLDEN / "make_golden.py")
make_golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_golden)

RTOL, ATOL = 1e-9, 1e-12  # one unit in the 10th significant digit of %.10g (module docstring)
REGENERATE = (
    "If the change of output is intended, regenerate with "
    "`PYTHONPATH=. python tests/golden/make_golden.py {case}` and say why in the commit "
    "message; if only an option was renamed, change the case's command line in "
    "tests/golden/make_golden.py (CASES) and keep the golden files."
)


def _same_cell(new: str, old: str) -> bool:
    if new == old:
        return True
    try:
        a, b = float(new), float(old)
    except ValueError:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL)


def table_differences(case: str, new: str, old: str) -> list[str]:
    """What differs between two CSV texts: the header, the number of rows, or per column the
    first row that differs (empty when they agree)."""
    new_rows = list(csv.reader(io.StringIO(new)))
    old_rows = list(csv.reader(io.StringIO(old)))
    if not new_rows or not old_rows:
        return [] if new_rows == old_rows else [f"{case}: one of the tables is empty"]
    (new_head, *new_body), (old_head, *old_body) = new_rows, old_rows
    if new_head != old_head:
        return [f"{case}: columns differ:\n  now    {new_head}\n  golden {old_head}"]
    if len(new_body) != len(old_body):
        return [f"{case}: {len(new_body)} rows, golden {len(old_body)}"]
    found = []
    for j, column in enumerate(old_head):
        for i, (a, b) in enumerate(zip(new_body, old_body, strict=True)):
            if not _same_cell(a[j], b[j]):
                found.append(
                    f"{case}: column {column!r}, first differing row {i} ({b[0]}): "
                    f"now {a[j]!r}, golden {b[j]!r}"
                )
                break
    return found


@pytest.fixture(scope="module")
def factor_file():
    """The committed template file is the one the generator writes (seeded)."""
    path = make_golden.ROOT / make_golden.FACTOR
    assert path.exists(), f"{make_golden.FACTOR} missing: run tests/golden/make_golden.py"
    return path


def test_the_factor_file_is_the_generators(factor_file, tmp_path):
    fresh = tmp_path / "templates.csv"
    make_golden.write_factor_file(fresh)
    assert fresh.read_text() == factor_file.read_text(), REGENERATE.format(case="")


def test_every_command_has_a_case():
    from bayesnoise.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "subcommand")
    covered = {argv[0] for argv in [*make_golden.CASES.values(), *make_golden.FILE_CASES.values()]}
    assert set(sub.choices) <= covered, (
        f"commands without a golden case: {sorted(set(sub.choices) - covered)}: add one to "
        "tests/golden/make_golden.py and run it"
    )


@pytest.mark.parametrize("case", list(make_golden.CASES))
def test_same_table(case, factor_file):
    code, out, err = make_golden.run(make_golden.table_argv(case))
    hint = REGENERATE.format(case=case)
    golden_txt = (GOLDEN / f"{case}.txt").read_text()
    assert make_golden.notes_text(code, err) == golden_txt, (
        f"{case}: exit status or standard error differs from tests/golden/{case}.txt:\n"
        f"now:\n{make_golden.notes_text(code, err)}\n{hint}"
    )
    differences = table_differences(case, out, (GOLDEN / f"{case}.csv").read_text())
    assert not differences, "\n".join([*differences, hint])


@pytest.mark.parametrize("case", list(make_golden.FILE_CASES))
def test_writes_its_file(case, factor_file, tmp_path):
    argv = [a.format(out=tmp_path / case) for a in make_golden.FILE_CASES[case]]
    code, _, err = make_golden.run(argv)
    assert code == 0, f"{case}: exit status {code}\n{err}"
    written = Path(argv[argv.index("-o") + 1])
    assert written.exists() and written.stat().st_size > 0, f"{case}: {written} empty or missing"
