"""Options shared by the subcommands, and turning them into API calls."""

from __future__ import annotations

import argparse
import sys

from ..domains import DOMAINS
from ..errors import PdbsearchError
from ..search import ALGORITHMS, DEFAULT_SHORTCUT_DEPTH
from ..sokoban.formats import FORMATS
from ..sokoban.rules import Rules
from ..sokoban.vocabulary import GROUPINGS, PORTFOLIO_MEMBERS, check_members

#: Longest whole number an option takes (digits): beyond any real limit.
MAX_DIGITS = 15


def _shown(text: str) -> str:
    """``text`` quoted, cut short when long."""
    return repr(text if len(text) <= 30 else text[:30] + "...")


def _digits_value(text: str) -> int:
    """The value of a string of digits (``_`` and ``,`` may group them)."""
    digits = text.strip().replace("_", "").replace(",", "")
    if not (digits.isascii() and digits.isdigit()):
        raise argparse.ArgumentTypeError(f"not a whole number: {_shown(text)}")
    if len(digits) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"too large: {_shown(text)}")
    return int(digits)


def positive_int(text: str) -> int:
    """A whole number > 0 (``_`` and ``,`` may group digits)."""
    value = _digits_value(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {_shown(text)}")
    return value


def positive_int_list(text: str) -> list[int]:
    """Comma-separated whole numbers > 0 (``3,17,40``)."""
    parts = [part for part in text.split(",") if part.strip()]
    if not parts:
        raise argparse.ArgumentTypeError(f"no numbers in {_shown(text)}")
    return [positive_int(part) for part in parts]


def whole_number(text: str) -> int:
    """A whole number >= 0 (``_`` and ``,`` may group digits)."""
    if text.strip().startswith("-"):
        raise argparse.ArgumentTypeError(f"must be 0 or more: {_shown(text)}")
    return _digits_value(text)


def positive_float(text: str) -> float:
    """A finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {_shown(text)}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive finite number: {_shown(text)}")
    return value


def weight(text: str) -> float:
    """A weight α >= 1."""
    value = positive_float(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"the weight must be >= 1, not {text}")
    return value


def portfolio_members(text: str) -> tuple[str, ...]:
    """Comma-separated names of ``--algo fess`` portfolio members."""
    try:
        return check_members([part.strip() for part in text.split(",") if part.strip()])
    except PdbsearchError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_search_options(parser: argparse.ArgumentParser) -> None:
    """``--algo``, ``--weight``, the limits, the threads and the portfolio's members."""
    parser.add_argument("--algo", choices=list(ALGORITHMS), default=None,
                        help="search algorithm (default astar, or wastar with --weight): " +
                        "; ".join(f"{a.name}: {a.summary}" for a in ALGORITHMS.values()))
    parser.add_argument("--weight", type=weight, default=None, metavar="ALPHA",
                        help="weight α of h in weighted A* (f = g + α·h; cost <= α x optimal); "
                             "alone it selects wastar")
    add_limit_options(parser)
    parser.add_argument("--shorten", type=whole_number, default=DEFAULT_SHORTCUT_DEPTH,
                        metavar="N",
                        help="a solution not proven optimal is then shortened, for as long "
                             "again as the search took (at least 1 s, within --time-limit): "
                             "sokoban re-solves stretches of its path with A*; then "
                             "shortcuts of up to N moves between the positions of its path "
                             f"(default {DEFAULT_SHORTCUT_DEPTH}; 0: keep it as found)")
    parser.add_argument("--threads", type=positive_int, default=None, metavar="N",
                        help="threads a search may run at once (default: one per core; "
                             "levels: the cores shared among --jobs); --algo fess runs its "
                             "FESS engines beside the other members, sokoban astar its "
                             "perimeter beside A*")
    parser.add_argument("--members", type=portfolio_members, default=None, metavar="NAME,...",
                        help="sokoban --algo fess: run only these members of its portfolio "
                             "(to see what one does alone), from " + ", ".join(PORTFOLIO_MEMBERS))


def check_members_algo(args: argparse.Namespace) -> None:
    """``--members`` picks members of the ``--algo fess`` portfolio: refused
    with any other algorithm, which has no members to pick."""
    if args.members is not None and args.algo != "fess":
        raise PdbsearchError(f"--members picks members of the --algo fess portfolio; "
                             f"this run's algorithm is {args.algo or 'the default'}")


def add_limit_options(parser: argparse.ArgumentParser, each: str = "") -> None:
    """The time, node and memory limits of a search (``each`` qualifies them)."""
    parser.add_argument("--time-limit", type=positive_float, metavar="S",
                        help=f"stop after S seconds of search{each}")
    parser.add_argument("--node-limit", type=positive_int, metavar="N",
                        help=f"stop after N expanded nodes{each}")
    parser.add_argument("--memory-limit", type=positive_int, metavar="MB",
                        help=f"stop before the search tables pass MB megabytes{each} "
                             "(default: half the RAM, at most 8 GiB)")


def limits(args: argparse.Namespace) -> dict:
    """The limit keywords of :func:`pdbsearch.solve` from the options."""
    return {"time_limit": args.time_limit, "node_limit": args.node_limit,
            "memory_limit": args.memory_limit}


def add_pdb_options(parser: argparse.ArgumentParser) -> None:
    """Where pattern databases are found, built and saved."""
    parser.add_argument("--db-dir", default=None, metavar="DIR",
                        help="folder of pattern databases (default: $PDBSEARCH_DB_DIR, "
                             "else ./databases); a missing one is built there")
    parser.add_argument("--pdb", default=None, metavar="FILE",
                        help="use this PDB file (refused if made for another board or metric)")


def add_puzzle_options(parser: argparse.ArgumentParser) -> None:
    """The puzzle file and what chooses its domain, metric and heuristic."""
    add_file_options(parser, " (a Push!! file without it: every map)")
    parser.add_argument("--metric", default=None, help="what a move costs; " + "; ".join(
        f"{d.name}: {', '.join(d.metrics.names)} (default {d.metrics.default})"
        for d in DOMAINS.values()))
    parser.add_argument("--heuristic", default=None, help="the lower bound; " + " | ".join(
        f"{d.name}: {d.heuristics.help()}" for d in DOMAINS.values()))
    add_pdb_options(parser)
    add_sokoban_options(parser)


def add_file_options(parser: argparse.ArgumentParser, level_note: str = "") -> None:
    """The puzzle file (optional: the built-in board), its domain, its level
    in a collection and its format."""
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="puzzle file, - for the standard input (default: the built-in "
                             "classic Hakoiri board)")
    parser.add_argument("--domain", choices=list(DOMAINS), default=None,
                        help="puzzle family (default: told from the file)")
    parser.add_argument("--level", default=None, metavar="N|TITLE",
                        help="which level or instance of a collection (1-based number, title "
                             f"or id; default 1){level_note}")
    add_format_option(parser)


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """``--format``: which of the Sokoban level formats a file is in."""
    parser.add_argument("--format", default=None, choices=list(FORMATS),
                        help="sokoban: file format (default: detected)")


def add_sokoban_options(parser: argparse.ArgumentParser) -> None:
    """The switches of the Sokoban pruning rules and pattern databases."""
    rules = parser.add_argument_group("sokoban pruning (all on by default)")
    rules.add_argument("--no-dead-squares", action="store_true",
                       help="allow pushes onto dead squares")
    rules.add_argument("--no-freeze", action="store_true",
                       help="do not prune freeze deadlocks (2x2 blocks, frozen chains)")
    rules.add_argument("--no-corral", action="store_true",
                       help="no PI-corral pruning and corral deadlock detection")
    rules.add_argument("--no-tunnels", action="store_true",
                       help="no one-way tunnel pruning")
    rules.add_argument("--no-tunnel-macros", action="store_true",
                       help="push a box through a one-way tunnel one push at a time "
                            "(macros are used under the pushes metric only)")
    rules.add_argument("--no-diagonal", action="store_true",
                       help="do not prune closed diagonal deadlocks")
    rules.add_argument("--no-perimeter", action="store_true",
                       help="no search backwards from the goal beside the forward one "
                            "(astar: breadth-first, its depths and floor keep optimality; "
                            "fess: in the portfolio)")
    rules.add_argument("--no-probes", action="store_true",
                       help="fess: no dead-end probes (small exhaustive searches from "
                            "the positions it is stuck under)")
    rules.add_argument("--no-goal-rooms", action="store_true",
                       help="fess: no goal-room macros (a box entering a room of goals "
                            "goes straight to the room's next goal)")
    learning = rules.add_mutually_exclusive_group()
    learning.add_argument("--learning", action="store_true",
                          help="learn deadlock patterns by small local searches with any "
                               "algorithm (default: with wastar and greedy only)")
    learning.add_argument("--no-learning", action="store_true",
                          help="never learn deadlock patterns")
    patterns = parser.add_argument_group("sokoban pattern databases (--heuristic pdb)")
    patterns.add_argument("--pattern-boxes", type=positive_int, default=None, metavar="K",
                          help="largest pattern, 1 to 4 boxes (default: the largest whose "
                               "table has at most 16 Mi entries)")
    patterns.add_argument("--grouping", choices=list(GROUPINGS.names), default=None,
                          help="how boxes are grouped per state: " + GROUPINGS.help())


def rules(args: argparse.Namespace) -> Rules:
    """The Sokoban pruning rules the switches leave on."""
    return Rules(dead_squares=not args.no_dead_squares, freeze=not args.no_freeze,
                 corral=not args.no_corral, tunnels=not args.no_tunnels,
                 tunnel_macros=not args.no_tunnel_macros, diagonal=not args.no_diagonal,
                 perimeter=not args.no_perimeter, probes=not args.no_probes,
                 goal_rooms=not args.no_goal_rooms,
                 learning=True if args.learning else (False if args.no_learning else None))


def sokoban_options(args: argparse.Namespace) -> dict:
    """The Sokoban keywords of :func:`pdbsearch.load` the user gave (only
    those, so that a Hakoiri file given one of them is told it does not apply)."""
    options = {}
    if args.format is not None:
        options["format"] = args.format
    chosen = rules(args)
    if chosen != Rules():   # some switch was given
        options["rules"] = chosen
    if args.pattern_boxes is not None:
        options["pattern_boxes"] = args.pattern_boxes
    if args.grouping is not None:
        options["grouping"] = args.grouping
    if getattr(args, "members", None) is not None:   # solve has it, build does not
        options["members"] = args.members
    return options


def log(args: argparse.Namespace):
    """Where notes about database builds go: stderr, unless ``--quiet``."""
    if getattr(args, "quiet", False):
        return None
    return lambda message: print(message, file=sys.stderr)


def wants_progress(args: argparse.Namespace) -> bool:
    """Progress bars on stderr: with ``--progress``, or when stderr is a
    terminal and the output is not ``--json`` or ``--quiet``."""
    if getattr(args, "progress", False):
        return True
    quiet = getattr(args, "quiet", False) or getattr(args, "json", False) is True
    return not quiet and sys.stderr.isatty()


def load_puzzle(args: argparse.Namespace):
    """The puzzle (or the Push!! maps) the options name."""
    from ..api import load
    return load(args.file, level=args.level, domain=args.domain, metric=args.metric,
                heuristic=args.heuristic, db_dir=args.db_dir, pdb=args.pdb, log=log(args),
                progress=wants_progress(args), **sokoban_options(args))
