"""The documentation's glossary lists every column of the registry, one entry per column.

``docs/_ext/bn_glossary.py`` writes the glossary from ``bayesnoise.vocabulary.registry_rows()``
when the docs are built; this checks its output against the registry (the oracle: the same
rows ``bayesnoise columns`` prints), without running Sphinx.
"""

import re
import sys
from pathlib import Path

from bayesnoise.vocabulary import REGISTRY, registry_rows

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))
import bn_glossary


def _entries(text: str) -> dict[tuple[str, ...], str]:
    """Glossary entries: (its terms) -> its definition text.

    Term lines are indented three spaces inside the directive, definition lines six.
    """
    entries, terms, body = {}, [], []
    for line in text.splitlines():
        if re.match(r"^   \S", line):
            if body:
                entries[tuple(terms)] = "\n".join(body)
                terms, body = [], []
            terms.append(line.strip())
        elif line.startswith("      "):
            body.append(line.strip())
    entries[tuple(terms)] = "\n".join(body)
    return entries


def test_every_registered_column_is_a_glossary_term_once():
    entries = _entries(bn_glossary.glossary_rst())
    terms = [t for ts in entries for t in ts]
    names = [row["name"] for row in registry_rows()]
    twice = sorted({n for n in names if names.count(n) > 1})
    assert not twice, f"registered more than once (one name, one meaning): {twice}"
    assert sorted(terms) == sorted(names)
    assert len(set(terms)) == len(terms)
    # one entry per registered column, headed by its name
    assert [ts[0] for ts in entries] == list(REGISTRY)


def test_each_entry_carries_scope_method_and_unit_of_its_column():
    entries = {ts[0]: (ts, body) for ts, body in _entries(bn_glossary.glossary_rst()).items()}
    for name, col in REGISTRY.items():
        terms, body = entries[name]
        if col.scope:
            assert f":scope: {col.scope}" in body, name
        if col.method:
            assert f":method: {bn_glossary.METHODS[col.method]}" in body, name
        if col.unit:
            assert ":unit: " in body, name
        if col.interval:
            assert terms == (name, f"{name}_low", f"{name}_high"), name
            assert f"``{name}_low`` / ``{name}_high``" in body, name
