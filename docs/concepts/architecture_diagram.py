"""Draw ``docs/concepts/architecture.svg``: the layers of bayesnoise and the path of one command.

Run from the repository root after changing the layers (``tests/test_architecture.py``'s
``LAYERS``) or the path of a command:

    python docs/concepts/architecture_diagram.py

Only matplotlib is needed (no pyplot, no window); the SVG is written without a date and with fixed ids, so running it
twice writes the same file.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib as mpl
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

OUT = Path(__file__).with_name("architecture.svg")

# Top to bottom: (layer, what it holds). The order of tests/test_architecture.py's LAYERS, reversed.
LAYERS = [
    ("cli", "parse options, call the verb, print (cli/<command>.py, cli/_call.py)"),
    ("verbs", "one function per command: read, validate, call, attach attrs"),
    ("reporting", "text tables, HTML report (render)"),
    ("plots", "figures from result tables (matplotlib)"),
    ("decide", "ranks, multiplicity, gates, plans"),
    ("frequentist | conjugate | mcmc", "estimators: the maths and their result tables"),
    ("io", "readers: files -> (model, question) cells; load, save"),
    ("data", "the dataset contract (schema), complete, DataError"),
    ("vocabulary | _defaults | _common", "column registry; constants; shared checks"),
]

# The path of ``bayesnoise posterior FILE``: (from layer, to layer, label), drawn on the right.
STEPS = [
    ("cli", "verbs", "1  parse argv -> bn.posterior(FILE, **options)"),
    ("verbs", "io", "2  dataset(): io.load reads FILE"),
    ("io", "data", "3  a Dataset checked against the contract"),
    ("verbs", "frequentist | conjugate | mcmc", "4  conjugate.posterior_table(ds, ...)"),
    (
        "frequentist | conjugate | mcmc",
        "vocabulary | _defaults | _common",
        "5  columns named in the registry",
    ),
    ("verbs", "vocabulary | _defaults | _common", "6  to_result(): attrs from describe(column)"),
    ("cli", "reporting", "7  tidy(result) -> render(table) -> stdout"),
]

BOX_H, GAP, X0, W = 0.62, 0.18, 0.3, 5.6


def main() -> None:
    mpl.rcParams["svg.hashsalt"] = "bayesnoise-architecture"
    mpl.rcParams["svg.fonttype"] = "none"  # text stays text: small, searchable
    mpl.rcParams["font.size"] = 9
    n = len(LAYERS)
    height = n * (BOX_H + GAP) + 0.6
    fig = Figure(figsize=(11.5, height * 0.62))
    ax = fig.subplots()
    ax.set_xlim(-0.6, 12.2)
    ax.set_ylim(-0.2, height)
    ax.axis("off")
    y_of = {}
    for i, (name, what) in enumerate(LAYERS):
        y = height - 0.5 - i * (BOX_H + GAP) - BOX_H
        y_of[name] = y + BOX_H / 2
        estimators = name.startswith("frequentist")
        ax.add_patch(
            FancyBboxPatch(
                (X0, y),
                W,
                BOX_H,
                boxstyle="round,pad=0.02,rounding_size=0.08",
                facecolor="#dbe8f5" if estimators else "#f2f2f2",
                edgecolor="#3b6ea5" if estimators else "#777777",
                linewidth=1.0,
            )
        )
        ax.text(X0 + 0.12, y + BOX_H * 0.66, name, fontweight="bold", va="center")
        ax.text(X0 + 0.12, y + BOX_H * 0.27, what, va="center", fontsize=7.5, color="#333333")
    # imports go only downward
    top, bottom = y_of[LAYERS[0][0]], y_of[LAYERS[-1][0]]
    ax.add_patch(
        FancyArrowPatch(
            (-0.15, top),
            (-0.15, bottom),
            arrowstyle="-|>",
            mutation_scale=14,
            color="#aa3333",
            linewidth=1.4,
        )
    )
    ax.text(
        -0.35,
        (top + bottom) / 2,
        "imports go only downward (tests/test_architecture.py)",
        rotation=90,
        va="center",
        ha="center",
        color="#aa3333",
        fontsize=8,
    )
    # the path of one command, on the right of the stack
    ax.text(6.25, height - 0.25, "bayesnoise posterior FILE", fontweight="bold", fontsize=9)
    for j, (a, b, label) in enumerate(STEPS):
        x = X0 + W + 0.12 + 0.2 * j
        ya, yb = y_of[a], y_of[b]
        ax.add_patch(
            FancyArrowPatch(
                (x, ya),
                (x, yb),
                arrowstyle="-|>",
                mutation_scale=9,
                color="#3b6ea5",
                linewidth=1.0,
                shrinkA=2,
                shrinkB=2,
            )
        )
        ax.text(x, ya, label.split()[0], fontsize=6.5, ha="center", va="bottom", color="#3b6ea5")
    for j, (_, _, label) in enumerate(STEPS):
        ax.text(7.7, height - 0.75 - j * 0.42, label, fontsize=8, va="center", color="#1f3f66")
    fig.savefig(OUT, format="svg", bbox_inches="tight", metadata={"Date": None})
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
