"""Sphinx extension: write the column registry as a reStructuredText glossary at build time.

``bayesnoise.vocabulary.registry_rows()`` is the one list of every column the package prints;
this extension turns it into ``docs/_generated/glossary.rst.inc`` (one glossary entry per
registered column, its interval ends ``<name>_low`` / ``<name>_high`` as extra terms of the same
entry), which ``docs/concepts/glossary.rst`` includes. ``tests/test_docs_glossary.py`` checks
that every registry name is a term.
"""

from __future__ import annotations

from pathlib import Path

METHODS = {
    "freq": "frequentist",
    "bayes": "Bayesian, closed form (conjugate, empirical Bayes over kappa)",
    "mcmc": "Bayesian, full Bayes by MCMC (PyMC)",
}


def _escape(text: str) -> str:
    """Escape the characters reStructuredText would read as markup."""
    for ch in ("\\", "*", "`", "|", "_"):
        text = text.replace(ch, "\\" + ch)
    return text


def glossary_rst() -> str:
    """The glossary directive with one entry per registered column."""
    from bayesnoise.vocabulary import registry_rows

    rows = {r["name"]: r for r in registry_rows()}
    lines = [
        ".. Generated at build time from bayesnoise.vocabulary.registry_rows(); do not edit.",
        "",
        ".. glossary::",
        "",
    ]
    for name, row in rows.items():
        if name.endswith(("_low", "_high")) and name.rsplit("_", 1)[0] in rows:
            continue  # listed as a term of its column's entry
        terms = [name] + [f"{name}_{end}" for end in ("low", "high") if f"{name}_{end}" in rows]
        lines += [f"   {t}" for t in terms]
        lines.append(f"      **{_escape(row['label'])}** -- {_escape(row['description'])}")
        fields = []
        if len(terms) > 1:
            fields.append(("interval", f"``{terms[1]}`` / ``{terms[2]}``"))
        if row["scope"]:
            fields.append(("scope", row["scope"]))
        if row["method"]:
            fields.append(("method", METHODS.get(row["method"], row["method"])))
        if row["unit"]:
            fields.append(("unit", _escape(row["unit"])))
        if fields:
            lines.append("")
            lines += [f"      :{key}: {value}" for key, value in fields]
        lines.append("")
    return "\n".join(lines) + "\n"


def write_glossary(app) -> None:
    out = Path(app.srcdir) / "_generated" / "glossary.rst.inc"
    text = glossary_rst()
    out.parent.mkdir(exist_ok=True)
    if not out.exists() or out.read_text() != text:  # unchanged file: no rebuild
        out.write_text(text)


def setup(app):
    app.connect("builder-inited", write_glossary)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
