"""Where a Sokoban bound falls short: replay a solution and print the pushes
at which ``f = g + h`` changes.

    python scripts/bound_profile.py FILE [--level N] [--lurd MOVES]
                                    [--algo fess] [--time-limit 60]
                                    [--heuristic pdb] [--json OUT]

Along a solution of cost C the bound starts at ``h0`` and ends at 0, so
``f`` goes from ``h0`` to C: the pushes where it rises are the ones the
bound did not see coming (a box pushed away from the goals to let another
pass, a goal filled in an order the matching does not know).  On an
optimal solution, these are what a stronger admissible bound would have to
capture for A* to prove the level sooner; on a fast (not optimal) one, some
rises are the solution's own detours.  The solution is the ``--lurd`` given
(replayed first, a bad move is an error), or the one ``--algo`` finds
within ``--time-limit`` seconds (``fess`` by default; its solutions are
shortened, as ``solve`` does).

Each line: the push's number, the cell the box was pushed to (row, column,
0-based) and the direction, ``h`` after it and the change of ``f``.
``--json OUT`` writes the same figures.

Exit codes: 0 a profile printed, 1 no solution found in the time,
2 bad input (file, level, moves) or an unwritable output file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from levelscript import level_parser, load_level

from pdbsearch.api import solve
from pdbsearch.errors import PdbsearchError
from pdbsearch.io import atomic_write_text
from pdbsearch.search.common import evaluate_heuristic
from pdbsearch.sokoban.checker import replay_positions
from pdbsearch.sokoban.puzzle import SokobanPuzzle, solution_fields


def bound_profile(puzzle: SokobanPuzzle, lurd: str) -> dict:
    """The bound along ``lurd`` (replayed from the level's start): ``cost``
    (pushes), ``h0`` (the bound at the start) and ``changes``, one per push
    where ``f = g + h`` changes: ``push`` (1-based), ``cell`` (row, column
    of the box after it), ``direction``, ``h`` and ``delta`` (the change of
    ``f``).  ``h0`` plus the deltas is ``cost``.  Moves that are illegal or
    that do not solve the level raise :class:`PdbsearchError`."""
    level = puzzle.level
    # The bound as A* sees it: a search run on this puzzle before (the one
    # that found the solution) leaves its perimeter in the params, whose
    # exact depths would stand in for the bound.
    puzzle.tune("astar", 1.0)
    params = puzzle.params
    positions = replay_positions(level, lurd)
    if not level.is_solved(positions[-1][0]):
        raise PdbsearchError("the moves given do not solve the level")
    boxes, player, _, _ = positions[0]
    h0 = int(evaluate_heuristic(params, puzzle.key_of(boxes, player)))
    f = h0
    g = 0
    changes = []
    for boxes, player, move, pushed in positions[1:]:
        if pushed is None:
            continue
        g += 1
        h = int(evaluate_heuristic(params, puzzle.key_of(boxes, player)))
        if g + h != f:
            changes.append({"push": g, "cell": list(level.row_col(pushed)),
                            "direction": move, "h": h, "delta": g + h - f})
            f = g + h
    return {"cost": g, "h0": h0, "changes": changes}


def profile_text(profile: dict) -> str:
    """The profile as lines for people."""
    lines = [f"bound at the start {profile['h0']}, solution {profile['cost']} pushes: "
             f"{profile['cost'] - profile['h0']} not seen at the start"]
    for c in profile["changes"]:
        row, col = c["cell"]
        lines.append(f"push {c['push']:>4}: box to ({row}, {col}) {c['direction']}  "
                     f"h {c['h']:>4}  f {c['delta']:+d}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module doc)."""
    parser = level_parser(__doc__, 60.0, "seconds of search for the solution")
    parser.add_argument("--lurd", help="the solution to profile (default: search for one)")
    parser.add_argument("--algo", default="fess",
                        help="the search that finds the solution (default fess)")
    parser.add_argument("--json", metavar="OUT", help="also write the profile as JSON")
    args = parser.parse_args(argv)
    try:
        puzzle = load_level(args)
        lurd = args.lurd
        if lurd is None:
            result = solve(puzzle, algo=args.algo, time_limit=args.time_limit)
            lurd = solution_fields(result)["lurd"]
            if lurd is None:
                print(f"{args.file} level {args.level}: no solution found by {args.algo} "
                      f"in {args.time_limit:g} s", file=sys.stderr)
                return 1
        profile = bound_profile(puzzle, lurd)
        print(profile_text(profile))
        if args.json:
            atomic_write_text(Path(args.json), json.dumps(
                {"file": args.file, "level": args.level, "heuristic": args.heuristic,
                 "lurd": lurd, **profile}, indent=1) + "\n")
    except PdbsearchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
