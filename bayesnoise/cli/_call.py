"""From parsed options to the verb's keyword arguments, and from its result to what is shown."""

from __future__ import annotations

import argparse
import inspect
import sys

from bayesnoise import verbs

# parsed options that steer the command line itself, not the verb
_CLI_ONLY = {
    *("subcommand", "verb", "shows", "format", "output", "dpi", "kind"),
    *("all_rows", "all_columns"),
}


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[command]


def _figure(parser, args, kw):
    from bayesnoise.data import DataError
    from bayesnoise.plots import save_figure

    fn = verbs.plot.KINDS[args.kind]
    suffix = args.output.suffix.lower()
    if suffix not in (".png", ".svg", ".pdf"):
        raise DataError(f"{args.output}: the figure file must end in .png, .svg or .pdf")
    files = kw.pop("file")
    if args.kind != "components" and len(files) != 1:
        raise DataError(f"plot {args.kind} takes one file; 'components' takes several")
    params = inspect.signature(fn).parameters
    takes_read = any(p.kind is p.VAR_KEYWORD for p in params.values())
    sub = _subparser(parser, "plot")
    passed = {}
    for key, value in kw.items():
        if key in params or (takes_read and key in verbs.READ_OPTIONS):
            passed[key] = value
        elif value != sub.get_default(key):
            flag = "--" + key.replace("_", "-")
            raise DataError(f"{flag} does not apply to plot {args.kind}")
    data = files if args.kind == "components" else files[0]
    first = next(iter(params))
    figure = fn(**{first: data}, **passed)
    if hasattr(figure, "savefig") and not hasattr(figure, "axes"):  # arviz-plots collection
        figure.savefig(args.output)
    else:
        save_figure(figure, args.output, dpi=args.dpi)


def columns_text(table, width: int = 100) -> str:
    """``bayesnoise columns`` for a terminal ``width`` wide: a heading per command, one entry
    per column (its interval ends on the same line), the description wrapped below it."""
    import textwrap

    names = set(table["column"])
    lines = []
    for command, group in table.groupby("command", sort=False):
        lines.append(f"{command}:")
        for r in group.itertuples(index=False):
            stem = r.column.removesuffix("_low").removesuffix("_high")
            if stem != r.column and stem in names:
                continue  # shown with its column
            ends = f" (+ {r.column}_low, {r.column}_high)" if f"{r.column}_low" in names else ""
            meta = "; ".join(x for x in (r.unit, r.scope, r.method) if x)
            head = f"{r.column}{ends}: {r.label}" + (f" [{meta}]" if meta else "")
            lines += textwrap.wrap(head, width, initial_indent="  ", subsequent_indent="      ")
            lines += textwrap.wrap(
                r.description, width, initial_indent="      ", subsequent_indent="      "
            )
        lines.append("")
    return "\n".join(lines)


def show(result, fmt: str, args: argparse.Namespace, command: str | None = None) -> str:
    """A verb's ``result`` as text in ``fmt``: CSV, TSV and JSON hold :func:`bayesnoise.tidy`'s
    whole table; the text table is the command's default view (its main columns, the first
    rows, :func:`bayesnoise.vocabulary.shown_columns`; ``--all-columns``, ``--all-rows``), one
    table per set of dims (``noises``: per model, then per model and component), no line
    wider than 120 characters."""
    from bayesnoise.reporting import render
    from bayesnoise.reporting.text import TABLE_ROWS
    from bayesnoise.vocabulary import shown_columns

    if fmt != "table":
        return render(verbs.tidy(result), fmt)
    columns = None if args.all_columns else shown_columns(command or args.subcommand)
    rows = None if args.all_rows else TABLE_ROWS
    tables = verbs.tidy_tables(result)
    return "\n".join(render(t, "table", columns=columns, max_rows=rows) for t in tables)


def call(parser: argparse.ArgumentParser, args: argparse.Namespace):
    """Run the verb of ``args.subcommand``; return its result (an ``xarray.Dataset``, see
    :func:`show`), the text to print, or None."""
    kw = {k: v for k, v in vars(args).items() if k not in _CLI_ONLY}
    if args.subcommand == "plot":  # figures have their own entry (no verb attribute)
        _figure(parser, args, kw)
        return None
    # a command names its verb; it is imported only now, when it runs
    verb = args.verb if callable(args.verb) else getattr(verbs, args.verb)
    if args.subcommand == "columns":
        result = verb(command=kw.get("command"))
        fmt = args.format or ("table" if args.output is None else None)
        if fmt is None and args.output.suffix.lower() == ".txt":
            fmt = "table"
        return columns_text(verbs.tidy(result)) if fmt == "table" else result
    if args.subcommand == "reference":
        return verb(kw.pop("benchmark"), **kw)
    files = kw.pop("file")
    data = files[0] if len(files) == 1 else files
    if args.shows == "file":
        verb(data, output=args.output, **kw)
        return None
    result = verb(data, **kw)
    if isinstance(result.attrs.get("verdict"), str):  # one pair: its sentence, beside the table
        print(result.attrs["verdict"], file=sys.stderr)
    if args.subcommand == "questions":  # Eval-Arena's summary counts, beside the table
        a = result.attrs
        print(
            f"{a['questions']} questions: {a['unsolved']} unsolved, {a['solved_by_one']} solved "
            f"by one model, {a['tau_negative']} with tau < 0",
            file=sys.stderr,
        )
    return result
