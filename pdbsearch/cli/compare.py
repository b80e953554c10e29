"""``pdbsearch compare``: weighted A* over a list of weights, as seed 003's table."""

from __future__ import annotations

import argparse
import json
import sys

from ..api import compare
from ..sweep import format_table, plot_runs
from ..errors import PdbsearchError
from ..pictures.figures import check_png_path
from ..search import Status
from .exitcodes import EXIT_LIMIT, EXIT_OK
from .options import add_limit_options, add_puzzle_options, limits, load_puzzle, wants_progress


def add_parser(sub) -> None:
    """Register ``compare``."""
    p = sub.add_parser("compare", help="weighted A* over several weights, as a table",
                       description="Solve one puzzle with weighted A* for each weight and "
                                   "print α, seconds, expanded, steps and steps / optimal.")
    add_puzzle_options(p)
    p.add_argument("--weights", default="1,2,3,5,7,9,11,13,15",
                   help="comma-separated weights α >= 1 (default 1,2,3,5,7,9,11,13,15)")
    add_limit_options(p, each=" (each run)")
    p.add_argument("--optimum", type=int, default=None,
                   help="known optimal cost, for the ratio column when α = 1 is not run")
    p.add_argument("--dask", metavar="WHERE",
                   help="run the weights as tasks on a Dask cluster: a scheduler's address "
                        "(tcp://host:8786) or local:N (N worker processes on this machine); "
                        "needs pip install 'pdbsearch[dask]'")
    p.add_argument("--json", action="store_true", help="print a JSON list of the runs")
    p.add_argument("--plot", metavar="PNG", help="draw time and steps against α (matplotlib)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(run=run)


def parse_weights(text: str) -> list[float]:
    """The weights of ``--weights``: numbers >= 1, comma-separated."""
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise PdbsearchError(f"bad weights {text!r}: expected numbers like 1,2,3.5") from None
    if not values or any(not 1 <= v < float("inf") for v in values):
        raise PdbsearchError(f"bad weights {text!r}: each must be a finite number >= 1")
    return values


def run(args: argparse.Namespace) -> int:
    """Sweep the weights, print the table (or JSON), draw the plot."""
    weights = parse_weights(args.weights)
    if args.dask is not None:
        from ..batch.cluster import check_dask_spec
        check_dask_spec(args.dask)
    if args.plot:
        check_png_path(args.plot)   # a bad name costs no runs
    puzzle = load_puzzle(args)
    if isinstance(puzzle, list):
        raise PdbsearchError("compare runs on one puzzle; pick a map with --level")
    chatty = not (args.json or args.quiet)
    runs = compare(puzzle, weights, progress=wants_progress(args), **limits(args),
                   on_run=(lambda r: print(f"alpha {r.weight:g}: {r.status.value} "
                                           f"{r.cost if r.cost is not None else ''}",
                                           file=sys.stderr)) if chatty else None,
                   dask=args.dask)
    if args.json:
        print(json.dumps([r.to_dict() for r in runs]))
    elif not args.quiet:
        print(puzzle.describe())
        print(format_table(runs, args.optimum, puzzle.cost_unit))
    if args.plot:
        plot_runs(runs, args.plot, title=puzzle.describe(), unit=puzzle.cost_unit)
        if chatty:
            print(f"plot saved to {args.plot}")
    return EXIT_OK if any(r.status is Status.SOLVED for r in runs) else EXIT_LIMIT
