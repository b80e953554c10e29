"""Where FESS stops: run the FESS engine alone on one Sokoban level and
write the best position it reached as a level of its own.

    python scripts/fess_best_position.py FILE [--level N] [--time-limit 10]
                                         [--heuristic pdb] [--out best.xsb]
                                         [--dead-depth S] [--dead-out dead.xsb]

FESS keeps coming back to the best-ranked position it has expanded (of
those its stuck test has not proved dead); on a level it does not solve,
that position says why.  Give the file written
to another solver: ``pdbsearch solve best.xsb --time-limit 20`` (push-optimal
A*, whose exhausted space is a proof) tells a dead end, which no test of
the search saw, from a live position the search failed to finish (see
"Where the search ends on Disciple" in docs/benchmarks.md).  The level's
boxes and player are replaced; its walls and goals are kept.

``--dead-depth S`` finds where the best line dies: push-optimal A*,
given ``S`` seconds a position, is asked about positions of the line from
the start to the best position, by bisection (a position proved dead has
only dead descendants, so death is monotone along the line); the
shallowest position it proves unsolvable is written to ``--dead-out``,
and the deepest one above it that it could not prove is named.  On a level
FESS does not solve, the depth of that move against the line's length says
whether FESS spent its time under a move taken early (see "Where FESS's
best line dies" in docs/benchmarks.md).

Exit codes: 0 the position was written (the level unsolved in the time),
1 the engine solved the level (nothing written), 2 bad input or an
unwritable output file.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

from levelscript import level_parser, load_level

from pdbsearch.api import solve
from pdbsearch.cli.options import positive_float
from pdbsearch.errors import PdbsearchError
from pdbsearch.io import atomic_write_text
from pdbsearch.search import ALGORITHMS, Limits
from pdbsearch.search.driver import run_engine
from pdbsearch.search.result import Status
from pdbsearch.sokoban.formats import format_xsb
from pdbsearch.sokoban.puzzle import SokobanPuzzle


def best_line(puzzle: SokobanPuzzle, seconds: float) -> tuple[Status, list[tuple[frozenset, int]]]:
    """Run ``fess-only`` on ``puzzle`` for ``seconds`` of search; returns
    the status and the positions (boxes, player) of the line from the
    start to the best position, one a macro move."""
    limits = Limits(time_seconds=seconds, threads=1)
    engine = ALGORITHMS["fess-only"].make(puzzle, 1.0, limits)
    result = run_engine(puzzle, engine, algo="fess-only", weight=1.0, bound=None,
                        limits=limits, progress=False)
    line = []
    for key in engine.best_keys():
        boxes, player = puzzle.position_of(key)
        line.append((frozenset(boxes), int(player)))
    return result.status, line


def shallowest_dead(length: int, is_dead: Callable[[int], bool]) -> tuple[int | None, int]:
    """Bisection over a line of ``length`` positions whose last is asked
    first: ``(d, asked)``, ``d`` the shallowest depth ``is_dead`` says yes to
    given that every depth below one it says yes to is dead too (None when
    the last is not), and ``asked`` the number of questions.  ``d - 1`` is
    then a depth it said no to (or ``d`` is 0)."""
    asked = 1
    if not is_dead(length - 1):
        return None, asked
    alive, dead = -1, length - 1     # -1: above the start, taken as not proved
    while dead - alive > 1:
        middle = (alive + dead) // 2
        asked += 1
        if is_dead(middle):
            dead = middle
        else:
            alive = middle
    return dead, asked


def proved_dead(level, position: tuple[frozenset, int], seconds: float, heuristic: str) -> bool:
    """Whether push-optimal A* proves ``position`` of ``level`` unsolvable
    within ``seconds`` (the level started from that position; its pattern
    tables found or built in the default folder, as ``load`` would)."""
    boxes, player = position
    puzzle = SokobanPuzzle(level.with_state(boxes, player), "pushes", heuristic)
    return solve(puzzle, algo="astar", time_limit=seconds).status is Status.UNSOLVABLE


def _write(path: str, comment: str, text: str) -> bool:
    """Write ``text`` after a ``;`` comment line; False (the error printed)
    when the file cannot be written."""
    try:
        atomic_write_text(Path(path), f"; {comment}\n" + text)
    except PdbsearchError as exc:   # a folder we cannot write in
        print(f"error: {exc}", file=sys.stderr)
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module doc)."""
    parser = level_parser(__doc__, 10.0, "seconds of search")
    parser.add_argument("--out", default="best.xsb", help="the level file to write")
    parser.add_argument("--dead-depth", type=positive_float, metavar="S", default=None,
                        help="find the shallowest position of the best line that "
                             "push-optimal A* proves dead in S seconds")
    parser.add_argument("--dead-out", default="dead.xsb",
                        help="where --dead-depth writes that position (default dead.xsb)")
    args = parser.parse_args(argv)
    try:
        puzzle = load_level(args)
        status, line = best_line(puzzle, args.time_limit)
    except PdbsearchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    level = puzzle.level
    if status is Status.SOLVED:
        print(f"{args.file} level {args.level}: solved by fess-only within "
              f"{args.time_limit:g} s; no position written")
        return 1

    def off_goals(depth: int) -> int:
        return len(line[depth][0] - level.goals)

    def where(depth: int) -> str:
        return f"{depth} macro moves deep, {off_goals(depth)} boxes off goals"

    depth = len(line) - 1
    text = format_xsb(level, *line[depth], title=False)
    if not _write(args.out, f"best position of fess-only after {args.time_limit:g} s "
                            f"({args.file}, level {args.level}, {where(depth)})", text):
        return 2
    print(text, end="")
    print(f"written to {args.out}: {where(depth)}")
    if args.dead_depth is None:
        return 0

    def is_dead(d: int) -> bool:
        verdict = proved_dead(level, line[d], args.dead_depth, args.heuristic)
        print(f"  depth {d}: {'proved dead' if verdict else 'not proved dead'} "
              f"in {args.dead_depth:g} s", flush=True)
        return verdict

    try:
        dead, asked = shallowest_dead(len(line), is_dead)
    except PdbsearchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if dead is None:
        print(f"the best position is not proved dead in {args.dead_depth:g} s")
        return 0
    above = "the start" if dead == 0 else f"depth {dead - 1} not proved dead"
    if not _write(args.dead_out, f"shallowest position of fess-only's best line proved "
                                 f"dead ({args.file}, level {args.level}, {where(dead)}; "
                                 f"{above})", format_xsb(level, *line[dead], title=False)):
        return 2
    print(f"written to {args.dead_out}: the shallowest position proved dead, at depth "
          f"{dead} of the line's {depth} ({off_goals(dead)} boxes off goals; {above}; "
          f"{asked} positions asked)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
