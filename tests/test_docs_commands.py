"""docs/commands.md names every option of every command, in that command's own entry.

The page's code blocks list the commands: an entry starts with a line ``bayesnoise NAME ...``
at the left margin and goes on over the indented lines below it (a command may have several
entries, e.g. ``plot``). The options every command shares (the input options of
``cli._options.input_parent`` and ``--format``/``--output``) are listed once, in the blocks that
start at the left margin without ``bayesnoise`` ("input options ...", "table options: ...",
"--threshold T ..."); every other option must be in an entry of its own command, so a new
option cannot be added to the parser without the page.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from bayesnoise.cli import build_parser
from bayesnoise.cli._options import Renamed, input_parent, output_parent

PAGE = Path(__file__).resolve().parents[1] / "docs" / "commands.md"

#: commands whose verb models factor dims (the others refuse them with an error naming
#: ``noises``): --factor is named in their own entry, not only among the shared options
FACTOR_COMMANDS = ("noises", "pairs", "compare", "check", "plan", "plot", "report")


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    """Each option's long spelling (its short one when it has none); renamed flags, which
    are errors naming their new spelling, and --help are left out."""
    out = set()
    for action in parser._actions:
        if not action.option_strings or isinstance(action, (Renamed, argparse._HelpAction)):
            continue
        long = [s for s in action.option_strings if s.startswith("--")]
        out.add(long[0] if long else action.option_strings[0])
    return out


SHARED = _flags(input_parent()) | _flags(output_parent())


def _blocks(text: str) -> list[list[str]]:
    """The lines of the page's plain code blocks (not ```python / ```bash examples)."""
    blocks, current = [], None
    for line in text.splitlines():
        if line.startswith("```"):
            if current is None:
                current = [] if line.strip() == "```" else False
            else:
                if current is not False:
                    blocks.append(current)
                current = None
        elif current not in (None, False):
            current.append(line)
    return blocks


def _entries(text: str) -> tuple[dict[str, str], str]:
    """Each command's entries (joined), and the shared-options text."""
    entries: dict[str, list[str]] = {}
    shared: list[str] = []
    for block in _blocks(text):
        target = None
        for line in block:
            if line[:1].isspace():  # a continuation of the entry (or shared block) above
                if target is not None:
                    target.append(line)
                continue
            match = re.match(r"bayesnoise (\S+)", line)
            if match and not match.group(1).startswith("-"):
                target = entries.setdefault(match.group(1), [])
            else:  # input options, table options, --threshold: shared by the commands
                target = shared
            target.append(line)
    return {k: "\n".join(v) for k, v in entries.items()}, "\n".join(shared)


def _names(flag: str, text: str) -> bool:
    return re.search(re.escape(flag) + r"(?![\w-])", text) is not None


ENTRIES, SHARED_TEXT = _entries(PAGE.read_text())
COMMANDS = _subparsers()


def test_the_page_parses():
    assert {"noise", "pairs", "plan", "plot"} <= set(ENTRIES)
    assert _names("--models", SHARED_TEXT) and _names("--format", SHARED_TEXT)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_an_entry(command):
    assert command in ENTRIES, f"docs/commands.md has no `bayesnoise {command} ...` entry"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_is_in_its_commands_entry(command):
    entry = ENTRIES.get(command, "")
    missing = sorted(
        flag
        for flag in _flags(COMMANDS[command])
        if not _names(flag, entry) and not (flag in SHARED and _names(flag, SHARED_TEXT))
    )
    assert not missing, f"docs/commands.md, `bayesnoise {command}`: options not named {missing}"


def test_shared_options_are_listed_once():
    missing = sorted(flag for flag in SHARED if not _names(flag, SHARED_TEXT))
    assert not missing, f"docs/commands.md: shared options not listed {missing}"


@pytest.mark.parametrize("command", FACTOR_COMMANDS)
def test_factor_commands_name_factor_in_their_entry(command):
    assert "--factors" not in ENTRIES[command]
    assert _names("--factor", ENTRIES[command]), (
        f"docs/commands.md, `bayesnoise {command}`: --factor NAME is not named"
    )


def test_no_stale_options():
    """Every --option an entry names is an option of that command (or a shared one);
    quoted commands (`noises --by pair`) name another command's options and are skipped."""
    stale = {}
    for command, entry in ENTRIES.items():
        if command not in COMMANDS:
            continue
        known = _flags(COMMANDS[command]) | SHARED
        own = re.sub(r"`[^`]*`", "", entry)
        named = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", own))
        if bad := sorted(named - known):
            stale[command] = bad
    assert not stale, f"docs/commands.md names options its commands do not have: {stale}"
