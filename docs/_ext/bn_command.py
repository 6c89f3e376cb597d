"""Sphinx extension: the ``bn-command`` directive runs a ``bayesnoise`` command at build time.

In MyST::

    ```{bn-command} noise examples/data/cruxeval_output_temp0.8.csv.gz
    ```

(``:exit: 1`` for a command whose expected exit status is 1, such as ``check`` showing a
regression) runs ``python -m bayesnoise noise examples/data/...`` from the repository root
and shows the command and what it printed as a console block, so the outputs in the guides are
those of the code being documented. A command that fails fails the build.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]


class BnCommand(SphinxDirective):
    has_content = False
    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict] = {"lines": int, "exit": int}

    def run(self):
        args = shlex.split(self.arguments[0])
        proc = subprocess.run(
            [sys.executable, "-m", "bayesnoise", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if proc.returncode != self.options.get("exit", 0):
            raise self.error(f"`bayesnoise {self.arguments[0]}` failed:\n{proc.stderr}")
        out = proc.stdout.rstrip("\n").splitlines()
        limit = self.options.get("lines")
        if limit and len(out) > limit:
            out = [*out[:limit], f"... ({len(out) - limit} more lines)"]
        text = "\n".join([f"$ bayesnoise {self.arguments[0]}", *out])
        block = nodes.literal_block(text, text, language="console")
        return [block]


def setup(app):
    app.add_directive("bn-command", BnCommand)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
