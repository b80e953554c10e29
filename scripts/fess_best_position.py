"""Where FESS stops: run the FESS engine alone on one Sokoban level and
write the best position it reached as a level of its own.

    python scripts/fess_best_position.py FILE [--level N] [--time-limit 10]
                                         [--heuristic pdb] [--out best.xsb]

FESS keeps coming back to the best-ranked position it has expanded (of
those its stuck test has not proved dead); on a level it does not solve,
that position says why.  Give the file written
to another solver: ``pdbsearch solve best.xsb --time-limit 20`` (push-optimal
A*, whose exhausted space is a proof) tells a dead end, which no test of
the search saw, from a live position the search failed to finish (see
"Where the search ends on Disciple" in docs/benchmarks.md).  The level's
boxes and player are replaced; its walls and goals are kept.

Exit codes: 0 the position was written (the level unsolved in the time),
1 the engine solved the level (nothing written), 2 bad input or an
unwritable output file.
"""

from __future__ import annotations

import sys
from pathlib import Path

from levelscript import level_parser, load_level

from pdbsearch.errors import PdbsearchError
from pdbsearch.io import atomic_write_text
from pdbsearch.search import ALGORITHMS, Limits
from pdbsearch.search.driver import run_engine
from pdbsearch.search.result import Status
from pdbsearch.sokoban.formats import format_xsb
from pdbsearch.sokoban.puzzle import SokobanPuzzle


def best_position(puzzle: SokobanPuzzle, seconds: float) -> tuple[Status, frozenset, int, int]:
    """Run ``fess-only`` on ``puzzle`` for ``seconds`` of search; returns
    the status, the best position's boxes and player, and its depth (the
    macro moves from the start)."""
    limits = Limits(time_seconds=seconds, threads=1)
    engine = ALGORITHMS["fess-only"].make(puzzle, 1.0, limits)
    result = run_engine(puzzle, engine, algo="fess-only", weight=1.0, bound=None,
                        limits=limits, progress=False)
    keys = engine.best_keys()
    boxes, player = puzzle.position_of(keys[-1])
    return result.status, frozenset(boxes), int(player), len(keys) - 1


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module doc)."""
    parser = level_parser(__doc__, 10.0, "seconds of search")
    parser.add_argument("--out", default="best.xsb", help="the level file to write")
    args = parser.parse_args(argv)
    try:
        puzzle = load_level(args)
        status, boxes, player, depth = best_position(puzzle, args.time_limit)
    except PdbsearchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    level = puzzle.level
    if status is Status.SOLVED:
        print(f"{args.file} level {args.level}: solved by fess-only within "
              f"{args.time_limit:g} s; no position written")
        return 1
    text = format_xsb(level, boxes, player, title=False)
    where = f"{depth} macro moves deep, {len(boxes - level.goals)} boxes off goals"
    try:
        atomic_write_text(Path(args.out), f"; best position of fess-only after "
                                          f"{args.time_limit:g} s ({args.file}, level "
                                          f"{args.level}, {where})\n" + text)
    except PdbsearchError as exc:   # a folder we cannot write in
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(text, end="")
    print(f"written to {args.out}: {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
