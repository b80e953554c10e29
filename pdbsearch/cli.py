"""The ``pdbsearch`` command.

Exit codes (also in README.md):

====  =====================================================
0     solved (or the command did its job)
1     internal error (a bug: please report it)
2     bad input or usage: the message names the file, line and problem
3     stopped by a limit (time, nodes, memory) or by Ctrl-C
4     proved unsolvable (the whole reachable space was searched)
====  =====================================================
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Sequence

from .errors import PdbsearchError

EXIT_OK, EXIT_BUG, EXIT_BAD_INPUT, EXIT_LIMIT, EXIT_UNSOLVABLE = 0, 1, 2, 3, 4


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def _weight(text: str) -> float:
    value = _positive_float(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"the weight must be >= 1, not {text}")
    return value


def add_search_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that runs a search."""
    from .search import ALGORITHMS

    parser.add_argument("--algo", choices=list(ALGORITHMS), default="astar",
                        help="search algorithm (default: astar): " + "; ".join(
                            f"{a.name}: {a.summary}" for a in ALGORITHMS.values()))
    parser.add_argument("--weight", type=_weight, default=None, metavar="ALPHA",
                        help="weight α of h in weighted A* (f = g + α·h); implies --algo wastar")
    add_limit_options(parser)


def add_limit_options(parser: argparse.ArgumentParser, each: str = "") -> None:
    """The time, node and memory limits of a search (``each`` qualifies them)."""
    parser.add_argument("--time-limit", type=_positive_float, metavar="S",
                        help=f"stop after S seconds of search{each}")
    parser.add_argument("--node-limit", type=_positive_int, metavar="N",
                        help=f"stop after N expanded nodes{each}")
    parser.add_argument("--memory-limit", type=_positive_int, metavar="MB",
                        help=f"stop before the search tables pass MB megabytes{each} "
                             "(default: half the RAM, at most 8 GiB)")


def add_puzzle_options(parser: argparse.ArgumentParser) -> None:
    """Options that choose the domain, metric and heuristic."""
    from .domains import DOMAINS

    parser.add_argument("--domain", choices=list(DOMAINS), default=None,
                        help="puzzle family (default: from the file; hakoiri without a file)")
    parser.add_argument("--metric", default=None,
                        help="move metric: hakoiri unit|straight|free (default straight)")
    parser.add_argument("--heuristic", default=None,
                        help="heuristic: hakoiri zero|simple|pdb (default pdb); "
                             "sokoban zero|simple|matching|pdb (default pdb)")
    add_pdb_options(parser)
    parser.add_argument("--level", default=None, metavar="N|TITLE",
                        help="sokoban: which level of a collection (1-based number or title; "
                             "default 1)")
    parser.add_argument("--format", default=None, choices=["xsb", "push", "seed002"],
                        help="sokoban: file format (default: detected)")


def add_pdb_options(parser: argparse.ArgumentParser) -> None:
    """Where pattern databases are found, built and saved."""
    parser.add_argument("--db-dir", default=None, metavar="DIR",
                        help="folder of pattern databases (default: $PDBSEARCH_DB_DIR, "
                             "else ./databases); a missing one is built there")
    parser.add_argument("--pdb", default=None, metavar="FILE",
                        help="use this PDB file (refused if made for another board or metric)")


def _limits(args):
    from .search import Limits
    return Limits(time_seconds=args.time_limit, nodes=args.node_limit,
                  memory_mb=args.memory_limit)


def _load(args):
    from .domains import DOMAINS, detect_domain
    name = args.domain or detect_domain(args.file)
    domain = DOMAINS[name]
    if args.metric is not None and args.metric not in domain.metrics:
        raise PdbsearchError(f"unknown metric {args.metric!r} for {name}; "
                             f"choose from {', '.join(domain.metrics)}")
    if args.heuristic is not None and args.heuristic not in domain.heuristics:
        raise PdbsearchError(f"unknown heuristic {args.heuristic!r} for {name}; "
                             f"choose from {', '.join(domain.heuristics)}")
    return domain.load(args.file, args)


def _status_exit(result) -> int:
    from .search import Status
    return {Status.SOLVED: EXIT_OK, Status.LIMIT: EXIT_LIMIT,
            Status.UNSOLVABLE: EXIT_UNSOLVABLE}[result.status]


def format_result(puzzle, result, show_boards: bool = False) -> str:
    """The human-readable report of one search (domains supply the wording)."""
    from .search import Status
    lines = [puzzle.describe()]
    algo = result.algo + (f" (weight {result.weight:g})" if result.algo == "wastar" else "")
    if result.status is Status.SOLVED:
        if result.optimal:
            quality = puzzle.optimality_word()
        elif result.bound is not None:
            quality = f"at most {result.bound:g} x optimal"
        else:
            quality = "no optimality guarantee"
        lines.append(f"solved by {algo}: {puzzle.cost_text(result)} ({quality})")
    elif result.status is Status.UNSOLVABLE:
        lines.append(f"proved unsolvable by {algo}: every reachable state was searched")
    else:
        bound = (f"; the optimum is at least {result.lower_bound:g} {puzzle.cost_unit}"
                 if result.lower_bound is not None else "")
        lines.append(f"stopped by the {result.stop_reason} limit ({algo}){bound}")
    lines.append(f"expanded {result.expanded:,}, generated {result.generated:,}, "
                 f"stored {result.stored:,} states, {result.memory_bytes / 2**20:.1f} MiB; "
                 f"search {result.seconds:.3f} s, compile/load {result.compile_seconds:.2f} s")
    if result.status is Status.SOLVED:
        if show_boards:
            pictures = puzzle.render_path(result.path_keys, result.steps)
            for i, picture in enumerate(pictures):
                title = "start" if i == 0 else f"{i}. {result.steps[i - 1].text}"
                lines.append("")
                lines.append(title)
                lines.append(picture)
            lines.append("")
        lines.extend(puzzle.solution_lines(result))
    return "\n".join(lines)


def cmd_solve(args) -> int:
    """``pdbsearch solve``: solve one puzzle and print the solution and figures."""
    from .search import solve

    args.progress = not (args.quiet or args.json) and sys.stderr.isatty()
    puzzle = _load(args)
    if hasattr(puzzle, "solve_command"):
        # A domain may answer the command itself (e.g. Push!! files hold many maps).
        return puzzle.solve_command(args)
    algo = "wastar" if args.weight is not None and args.algo in ("astar", "wastar") else args.algo
    weight = args.weight if args.weight is not None else 1.0
    progress = not (args.quiet or args.json) and sys.stderr.isatty()
    result = solve(puzzle, algo, weight, _limits(args), progress=progress)
    if args.json:
        print(json.dumps(result.to_json()))
    elif args.quiet:
        print(result.cost if result.cost is not None else result.status.value)
    else:
        print(format_result(puzzle, result, args.boards))
    return _status_exit(result)


def cmd_generate(args) -> int:
    """``pdbsearch generate``: write seeded random boards proved solvable."""
    from .hakoiri.formats import format_board
    from .hakoiri.generator import Recipe, default_recipe, generate
    from .io import atomic_write_text

    width, height = _size(args.size)
    recipe = default_recipe(width, height, args.empty)
    recipe = Recipe(width, height,
                    args.verticals if args.verticals is not None else recipe.verticals,
                    args.horizontals if args.horizontals is not None else recipe.horizontals,
                    args.empty, args.square, args.exit)
    recipe.check()
    boards = generate(recipe, args.count, args.seed, args.metric, args.node_limit)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for i, (board, note) in enumerate(boards, start=1):
        path = out / f"{args.prefix}{width}x{height}_s{args.seed}_{i:03d}.txt"
        atomic_write_text(path, format_board(board))
        if not args.quiet:
            print(f"{path}: {note}")
    return EXIT_OK


def cmd_build(args) -> int:
    """``pdbsearch build``: build (or rebuild) a relaxed Hakoiri PDB."""
    from .hakoiri.database import build_relaxed, pdb_filename, relaxed_spec
    from .hakoiri.formats import load_board
    from .pdb.store import default_db_dir, histogram, save_pdb

    metric = args.metric or "straight"
    if metric not in ("unit", "straight", "free"):
        raise PdbsearchError(f"unknown metric {metric!r}; choose from unit, straight, free")
    if Path(args.target).exists():
        board = load_board(args.target)
        width, height, exit_xy = board.width, board.height, board.exit
        n_empty = len(board.empty_cells())
    else:
        try:
            width, height = _size(args.target)
        except PdbsearchError:
            raise PdbsearchError(f"{args.target}: no such board file, and not a size like "
                                 f"8x20") from None
        if not (2 <= width <= 64 and 2 <= height <= 64):
            raise PdbsearchError("board sides must be from 2 to 64")
        exit_xy = ((width - 2) // 2, height - 2) if args.exit == "bottom" else \
            tuple(int(v) for v in args.exit.replace(",", " ").split())
        if len(exit_xy) != 2 or not (0 <= exit_xy[0] <= width - 2 and 0 <= exit_xy[1] <= height - 2):
            raise PdbsearchError(f"the 2x2 cannot stand at the exit {args.exit} on {width}x{height}")
        n_empty = args.empty
        if n_empty < 1 or n_empty > width * height - 4:
            raise PdbsearchError(f"empty cells must be from 1 to {width * height - 4}")
    spec = relaxed_spec(width, height, exit_xy, n_empty, metric)
    out = Path(args.out) if args.out else (Path(args.db_dir) if args.db_dir else
                                           default_db_dir()) / pdb_filename(spec)
    progress = not args.quiet and sys.stderr.isatty()
    table, seconds, compile_seconds = build_relaxed(spec, progress, args.threads)
    save_pdb(out, table, spec, seconds)
    if not args.quiet:
        hist = histogram(table)
        reachable = table[table != 255]
        print(f"relaxed PDB {width}x{height}, exit {exit_xy[0]},{exit_xy[1]}, "
              f"{n_empty} empty cells, {metric} metric")
        print(f"entries {table.shape[0]:,} ({(width - 1) * (height - 1)} positions of the 2x2 x "
              f"C({width * height - 4},{n_empty})), {table.nbytes:,} bytes (1 byte each)")
        print(f"maximum {int(reachable.max()) if reachable.size else 0}, "
              f"unreachable {int(hist[255]):,}")
        print("histogram: " + ", ".join(f"{v}:{int(c)}" for v, c in enumerate(hist[:255]) if c))
        print(f"built in {seconds:.3f} s (compile/load {compile_seconds:.2f} s); saved to {out}")
    return EXIT_OK


def _weights(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise PdbsearchError(f"bad weights {text!r}: expected numbers like 1,2,3.5") from None
    if not values or any(not v >= 1 for v in values):
        raise PdbsearchError(f"bad weights {text!r}: each must be a number >= 1")
    return values


def cmd_compare(args) -> int:
    """``pdbsearch compare``: weighted A* over a list of weights, as a table."""
    from .compare import compare_weights, format_table, plot_runs
    from .search import Status

    weights = _weights(args.weights)
    args.progress = not (args.quiet or args.json) and sys.stderr.isatty()
    puzzle = _load(args)
    runs = compare_weights(puzzle, weights, _limits(args), known_optimum=args.optimum,
                           progress=args.progress,
                           on_run=None if (args.json or args.quiet) else
                           (lambda r: print(f"alpha {r.weight:g}: {r.status.value} "
                                            f"{r.cost if r.cost is not None else ''}",
                                            file=sys.stderr)))
    if args.json:
        print(json.dumps([r.to_json() for r in runs]))
    elif not args.quiet:
        print(puzzle.describe())
        print(format_table(runs, args.optimum))
    if args.plot:
        plot_runs(runs, args.plot, title=puzzle.describe())
        if not (args.json or args.quiet):
            print(f"plot saved to {args.plot}")
    return EXIT_OK if any(r.status is Status.SOLVED for r in runs) else EXIT_LIMIT


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise PdbsearchError(f"bad size {text!r}: expected WIDTHxHEIGHT, e.g. 6x7") from None
    return w, h


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``pdbsearch`` command."""
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="pdbsearch",
        description="Solve sliding-block puzzles and Sokoban with pattern databases "
                    "and heuristic search.",
        epilog="exit codes: 0 solved, 1 internal error, 2 bad input or usage, "
               "3 stopped by a limit, 4 proved unsolvable")
    parser.add_argument("--version", action="version", version=f"pdbsearch {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("solve", help="solve one puzzle (the classic board if no FILE)",
                       description="Solve one puzzle and print the moves and the figures.")
    p.add_argument("file", nargs="?", metavar="FILE", help="puzzle file (default: built-in "
                   "classic Hakoiri board)")
    add_puzzle_options(p)
    add_search_options(p)
    p.add_argument("--boards", action="store_true", help="print the board after every move")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="print only the cost (or the status)")
    p.set_defaults(run=cmd_solve)

    p = sub.add_parser("generate", help="write seeded random Hakoiri boards proved solvable",
                       description="Write random Hakoiri boards; each is kept only once a "
                                   "search has solved it (the note says how).")
    p.add_argument("--size", default="6x7", help="WIDTHxHEIGHT (default 6x7)")
    p.add_argument("--verticals", type=int, help="number of 2x1 pieces (default: classic mix)")
    p.add_argument("--horizontals", type=int, help="number of 1x2 pieces (default: classic mix)")
    p.add_argument("--empty", type=_positive_int, default=2, help="empty cells (default 2)")
    p.add_argument("--square", default="top",
                   help="where the 2x2 starts: top, random or X,Y (default top)")
    p.add_argument("--exit", default="bottom", help="exit of the 2x2: bottom or X,Y")
    p.add_argument("--count", type=_positive_int, default=1, help="how many boards")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--metric", choices=["unit", "straight", "free"], default="straight",
                   help="metric of the solvability check (default straight)")
    p.add_argument("--node-limit", type=_positive_int, default=2_000_000,
                   help="node budget of the solvability check per board")
    p.add_argument("--out", default="puzzles/hakoiri/random", help="output folder")
    p.add_argument("--prefix", default="random_", help="file name prefix")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(run=cmd_generate)

    p = sub.add_parser("build", help="build a relaxed Hakoiri PDB for a board or a geometry",
                       description="Build the relaxed-problem pattern database of a board "
                                   "file's geometry, or of a size like 8x20.")
    p.add_argument("target", metavar="FILE|WxH", help="a board file, or a size like 8x20")
    p.add_argument("--metric", default=None, help="unit, straight (default) or free")
    p.add_argument("--empty", type=int, default=2, help="empty cells, with a size (default 2)")
    p.add_argument("--exit", default="bottom", help="exit X,Y or bottom, with a size")
    p.add_argument("--out", default=None, help="output file (default: the database folder)")
    p.add_argument("--threads", type=_positive_int, default=1,
                   help="threads sweeping each BFS layer (default 1)")
    add_pdb_options(p)
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(run=cmd_build)

    p = sub.add_parser("compare", help="weighted A* over several weights, as a table",
                       description="Solve one puzzle with weighted A* for each weight and "
                                   "print α, seconds, expanded, steps and steps / optimal.")
    p.add_argument("file", nargs="?", metavar="FILE", help="puzzle file (default: classic)")
    add_puzzle_options(p)
    p.add_argument("--weights", default="1,2,3,5,7,9,11,13,15",
                   help="comma-separated weights α >= 1 (default 1,2,3,5,7,9,11,13,15)")
    add_limit_options(p, each=" (each run)")
    p.add_argument("--optimum", type=int, default=None,
                   help="known optimal cost, for the ratio column when α = 1 is not run")
    p.add_argument("--json", action="store_true", help="print a JSON list of the runs")
    p.add_argument("--plot", metavar="PNG", help="draw time and steps against α (matplotlib)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(run=cmd_compare)

    from .sokoban.cli import add_sokoban_commands
    add_sokoban_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pdbsearch`` command; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # A process started in the background by a non-interactive shell inherits
    # SIGINT as ignored, and Python then installs no KeyboardInterrupt; the
    # documented Ctrl-C behaviour (stop, keep the figures) needs it back.
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return args.run(args)
    except PdbsearchError as exc:
        print(f"pdbsearch: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("pdbsearch: interrupted", file=sys.stderr)
        return EXIT_LIMIT
    except BrokenPipeError:
        return EXIT_OK
    except MemoryError:
        print("pdbsearch: error: out of memory; lower --memory-limit or use a smaller "
              "heuristic table", file=sys.stderr)
        return EXIT_LIMIT
    except Exception as exc:  # a bug: one line, the traceback only on request
        if os.environ.get("PDBSEARCH_DEBUG"):
            raise
        print(f"pdbsearch: internal error: {type(exc).__name__}: {exc} (this is a bug; "
              f"set PDBSEARCH_DEBUG=1 for the traceback and please report it)", file=sys.stderr)
        return EXIT_BUG


if __name__ == "__main__":
    sys.exit(main())
