"""The shape of the code, checked in CI: no function over radon's cyclomatic complexity 15 or
over 60 lines of code (docstring, blank and comment lines excluded), no private name imported
from another module. What is over a limit today is listed, with its number, in
``tests/data/code_shape_allowlist.json`` (written by ``tools/code_shape.py --write``): a ratchet.
A function not on the list fails as soon as it crosses a limit, a listed one fails if it grows,
and an entry that is no longer needed fails until it is removed, so the lists only shrink. The
goal (issue 38) is lists holding only the file readers of ``bayesnoise/io``.
"""

import importlib.util
import json

import pytest
from conftest import REPO

# tools/code_shape.py is the measuring script (also run by hand), loaded from its path
_spec = importlib.util.spec_from_file_location("code_shape", REPO / "tools" / "code_shape.py")
code_shape = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(code_shape)

ALLOWED = json.loads(code_shape.ALLOWLIST.read_text())
MEASURED = code_shape.measure()
KINDS = {
    "complexity": f"cyclomatic complexity over {code_shape.MAX_COMPLEXITY} (radon)",
    "long_functions": f"more than {code_shape.MAX_LINES} lines of code",
    "private_imports": "private names imported from another module (sites)",
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_nothing_new_over_the_limit_and_nothing_grows(kind):
    allowed, measured = ALLOWED[kind], MEASURED[kind]
    worse = {k: (allowed.get(k), v) for k, v in measured.items() if v > allowed.get(k, 0)}
    assert not worse, (
        f"{KINDS[kind]}: {worse} (listed value, now); split the function or make the name public "
        "in its subpackage with a docstring"
    )


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_allowlist_only_shrinks(kind):
    allowed, measured = ALLOWED[kind], MEASURED[kind]
    stale = {k: (v, measured.get(k)) for k, v in allowed.items() if measured.get(k, 0) < v}
    assert not stale, (
        f"{KINDS[kind]}: {stale} (listed value, now) improved: run tools/code_shape.py --write "
        "to lower the list"
    )


def test_the_measures_see_a_known_case():
    # radon counts each boolean operator and comprehension: complexity 1 + if + and + for + if
    from radon.complexity import cc_visit

    code = "def f(x):\n    if x and x > 1:\n        return [y for y in x if y]\n"
    assert cc_visit(code)[0].complexity == 5
