"""The ``bayesnoise`` command line: parses options, calls the Python verb, prints its table.

Every command is a verb of :mod:`bayesnoise.verbs` (``bayesnoise noise`` is
:func:`bayesnoise.noise`), called with the parsed options as keyword arguments of the same
names; this package only parses, calls and formats (:func:`bayesnoise.tidy`, then CSV, JSON or
a text table). Each command module has a ``register(sub)`` that adds its sub-parsers and sets
``verb`` and what the command shows (a table, a figure or a file). Errors about the input
(:class:`~bayesnoise.data.DataError`, a missing optional package) end with one line on standard
error and exit status 2; anything else is a bug and shows its traceback. Warnings are printed
once each, as ``warning: ...``; progress displays go to standard error, so standard output holds
only the table.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings

from bayesnoise import __version__

# Building the parser imports only the option definitions (no numpy): ``--version`` and
# ``--help`` stop there; a command imports its verb, and what that verb uses, when it runs.
from . import coverage, decide, figures, gate, judge, noises, quality, rate, tables
from ._call import call, show

COMMAND_MODULES = [tables, noises, rate, judge, decide, quality, coverage, gate, figures]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``bayesnoise`` command."""
    parser = argparse.ArgumentParser(
        prog="bayesnoise",
        description="How much of a gap between two eval scores is real: data, prediction and "
        "total noise from question-level results.",
    )
    parser.add_argument("--version", action="version", version=f"bayesnoise {__version__}")
    # the sub-command's dest is not ``command``: that is an option's name (columns --command)
    sub = parser.add_subparsers(dest="subcommand", required=True)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


class _OnceWarnings:
    """Print each distinct warning once, as ``warning: message`` (no file or line), on one
    line of at most 200 characters whatever it holds (:func:`~bayesnoise._common.short_line`:
    the package's own warnings already fit; another library's may not)."""

    def __init__(self):
        self.seen: set[str] = set()

    def __call__(self, message, category, filename, lineno, file=None, line=None):
        from bayesnoise._common import WARNING_PREFIX, short_line

        text = short_line(str(message))
        if text not in self.seen:
            self.seen.add(text)
            print(f"{WARNING_PREFIX}{text}", file=sys.stderr)


def _table_format(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str | None:
    if not hasattr(args, "format"):
        return None
    from bayesnoise.reporting import format_for_path

    try:
        fmt = "table" if args.output is None else format_for_path(args.output, args.format)
    except ValueError as err:
        parser.error(str(err))
    return args.format or fmt


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 2 bad input or missing package;
    a command with its own ``run`` chooses 0 or 1 itself: ``check`` returns 1 when a
    regression is shown).

    Examples
    --------
    >>> main(["--version"])  # doctest: +SKIP
    bayesnoise 0.1.0
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    import numpy as np

    from bayesnoise._common import OptionalDependencyError, calling
    from bayesnoise.data import DataError

    fmt = _table_format(parser, args)
    with warnings.catch_warnings(), calling("cli"):  # errors name --flags, not keywords=
        warnings.simplefilter("always")
        warnings.showwarning = _OnceWarnings()
        try:
            # Anything a computation prints (e.g. a sampler's progress) goes to standard error:
            # standard output carries only the table.
            with contextlib.redirect_stdout(sys.stderr), np.errstate(all="ignore"):
                if getattr(args, "threshold", None) is not None:  # how scores were read
                    from bayesnoise.data import threshold_note

                    print(f"note: {threshold_note(args.threshold, args.success)}")
                if hasattr(args, "run"):  # renders its own output, sets its status (cli.gate)
                    text, status = args.run(args, fmt or "table")
                else:
                    out = call(parser, args)
                    text = (
                        out
                        if out is None or isinstance(out, str)
                        else show(out, fmt or "table", args)
                    )
                    status = 0
        except (DataError, OptionalDependencyError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    if text is None:
        return status
    if getattr(args, "output", None):
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
