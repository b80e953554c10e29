"""``pdbsearch solve``: solve one puzzle (or every map of a Push!! file)."""

from __future__ import annotations

import argparse
import json
import sys

from ..api import animate, solve
from ..errors import PdbsearchError
from ..pictures.animate import check_animation_path
from ..report import format_result
from ..search import Status
from .exitcodes import EXIT_LIMIT, EXIT_OK, status_exit
from .options import (add_puzzle_options, add_search_options, check_members_algo, limits,
                      load_puzzle, log, wants_progress)


def add_parser(sub) -> None:
    """Register ``solve``."""
    p = sub.add_parser("solve", help="solve one puzzle (the classic Hakoiri board if no FILE)",
                       description="Solve one puzzle and print the moves and the figures. "
                                   "Every solution is replayed by an independent checker "
                                   "before it is printed.")
    add_puzzle_options(p)
    add_search_options(p)
    p.add_argument("--boards", action="store_true", help="print the board after every move")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="print only the cost (or the status)")
    p.add_argument("--progress", action="store_true",
                   help="draw the progress line on stderr even when it is not a terminal")
    p.add_argument("--animate", metavar="OUT",
                   help="draw the solution into OUT: an animated GIF (needs Pillow: pip "
                        "install 'pdbsearch[pictures]'), an SVG or an HTML page, by the "
                        "extension")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Solve, print, and return the exit code."""
    if args.animate:
        check_animation_path(args.animate)   # a bad name costs no search
    check_members_algo(args)
    puzzle = load_puzzle(args)
    options = dict(algo=args.algo, weight=args.weight if args.weight is not None else 1.0,
                   threads=args.threads, progress=wants_progress(args), shorten=args.shorten,
                   **limits(args))
    if isinstance(puzzle, list):
        if args.animate:
            raise PdbsearchError("--animate draws one puzzle; pick a map of the Push!! file "
                                 "with --level")
        return _solve_push_maps(puzzle, args, options)
    result = solve(puzzle, **options)
    if args.json:
        print(json.dumps(result.to_dict()))
    elif args.quiet:
        print(result.cost if result.cost is not None else result.status.value)
    else:
        print(format_result(puzzle, result, args.boards))
    if args.animate:
        _animate(puzzle, result, args)
    return status_exit(result)


def _animate(puzzle, result, args: argparse.Namespace) -> None:
    """Draw the solution (after the output, which is never held up by it);
    a search stopped before its proof draws the solution its fast helper
    found, and says so; an unsolved result without one has nothing to draw,
    and stderr says so."""
    say = log(args)
    sys.stdout.flush()
    what = ""
    if result.status is not Status.SOLVED and result.incumbent_steps:
        what = f" of the solution {result.extra['incumbent']['algo']} found (not proved optimal)"
        result = result.kept_solution()
    if result.status is not Status.SOLVED:
        print(f"pdbsearch: {args.animate}: not drawn: the search ended {result.status.value}",
              file=sys.stderr)
        return
    drawing = animate(puzzle, result, args.animate, log=say)
    if say is not None:
        say(f"pdbsearch: drew {drawing.frames} frames{what} into {drawing.path}")


def _solve_push_maps(puzzles, args, options) -> int:
    """The ICPC "Push!!" answers: per map the fewest pushes, -1 when proved
    impossible (``?`` when a limit stopped it); exit 3 if any was stopped."""
    rows = []
    for puzzle in puzzles:
        result = solve(puzzle, **options)
        answer = {Status.SOLVED: result.cost, Status.UNSOLVABLE: -1}.get(result.status)
        rows.append({"answer": answer, **result.to_dict()})
        if not args.json:
            print("?" if answer is None else answer)
            sys.stdout.flush()
    if args.json:
        print(json.dumps(rows))
    return EXIT_LIMIT if any(row["answer"] is None for row in rows) else EXIT_OK
