"""Sokoban parts of the ``pdbsearch`` command.

* the pruning switches (``--no-dead-squares``, ``--no-freeze``,
  ``--no-corral``, ``--no-tunnels``) on ``solve``;
* the ``levels`` subcommand: every level of a collection, each in its own
  process with its own limit (:mod:`.collection`).
"""

from __future__ import annotations

import argparse
import sys

from ..errors import PdbsearchError


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    """The switches that turn the Sokoban pruning rules off."""
    group = parser.add_argument_group("sokoban pruning (all on by default)")
    group.add_argument("--no-dead-squares", action="store_true",
                       help="allow pushes onto dead squares")
    group.add_argument("--no-freeze", action="store_true",
                       help="do not prune freeze deadlocks (2x2 blocks, frozen chains)")
    group.add_argument("--no-corral", action="store_true",
                       help="no PI-corral pruning and corral deadlock detection")
    group.add_argument("--no-tunnels", action="store_true",
                       help="no one-way tunnel pruning")


def add_pattern_options(parser: argparse.ArgumentParser) -> None:
    """The options of the k-box pattern PDBs (heuristic ``pdb``)."""
    from ..cli import _positive_int
    group = parser.add_argument_group("sokoban pattern databases (--heuristic pdb)")
    group.add_argument("--pattern-boxes", type=_positive_int, default=None, metavar="K",
                       help="largest pattern, 1 to 4 boxes (default: the largest whose "
                            "table has at most 16 Mi entries)")
    group.add_argument("--grouping", choices=["greedy", "static"], default="greedy",
                       help="how boxes are grouped per state: greedy by gain (default) or "
                            "runs of K boxes in cell order")


def add_sokoban_commands(sub) -> None:
    """Add the Sokoban subcommands (and the pruning and pattern options of
    ``solve``)."""
    from ..cli import _positive_int, add_pdb_options, add_search_options

    for name in ("solve", "compare"):
        parser = sub.choices.get(name)
        if parser is not None:
            if name == "solve":
                add_rule_options(parser)
            add_pattern_options(parser)

    p = sub.add_parser(
        "levels", help="solve every level of a Sokoban collection",
        description="Solve every level of a collection, each in its own process with "
                    "its own limits: 60 s of search a level unless --time-limit says "
                    "otherwise (a level still running 10 s past it is killed), and by "
                    "default half the RAM shared by the --jobs running at once. A "
                    "progress bar counts levels on stderr; a summary table follows. "
                    "Ctrl-C stops the run and keeps what was solved.",
        epilog="exit codes: 0 every level solved, 3 some level unfinished (limit, "
               "Ctrl-C or error), 4 some level proved unsolvable and none unfinished")
    p.add_argument("file", metavar="FILE", help="level collection (XSB, Push!! or seed 002)")
    p.add_argument("--metric", choices=["pushes", "moves"], default="pushes",
                   help="what is minimised (default pushes)")
    p.add_argument("--heuristic", choices=["zero", "simple", "matching", "pdb"], default="pdb",
                   help="lower bound (default pdb: max of matching and the k-box pattern "
                        "PDBs, built per level and cached in the database folder)")
    add_pdb_options(p)
    p.add_argument("--format", choices=["xsb", "push", "seed002"], default=None,
                   help="file format (default: detected)")
    add_rule_options(p)
    add_pattern_options(p)
    add_search_options(p)
    p.set_defaults(time_limit=60.0)
    p.add_argument("--jobs", type=_positive_int, default=1, metavar="N",
                   help="levels solved at once (default 1)")
    p.add_argument("--first", type=_positive_int, metavar="N",
                   help="only the first N levels")
    p.add_argument("--json", metavar="OUT", help="write every level's record as JSON")
    p.add_argument("--csv", metavar="OUT", help="write every level's record as CSV")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_levels)


def cmd_levels(args) -> int:
    """``pdbsearch levels``: solve a collection and print the summary."""
    from ..cli import EXIT_LIMIT, EXIT_OK, EXIT_UNSOLVABLE
    from .collection import RunOptions, run_levels, summary_table, totals, write_outputs
    from .domain import algo_and_weight, read_levels, rules_from_args

    if args.pdb is not None:
        raise PdbsearchError("--pdb names the PDB of one level; use --db-dir with levels")
    levels, fmt = read_levels(args.file, args.format)
    if args.first is not None:
        levels = levels[:args.first]
    algo, weight = algo_and_weight(args)
    if algo == "bfs" and args.metric != "pushes":
        raise PdbsearchError("bfs is optimal only when every move costs 1; "
                             "use astar with --metric moves")
    options = RunOptions(metric=args.metric, heuristic=args.heuristic,
                         rules=rules_from_args(args), algo=algo, weight=weight,
                         time_limit=args.time_limit, node_limit=args.node_limit,
                         memory_mb=args.memory_limit, pattern_boxes=args.pattern_boxes,
                         grouping=args.grouping,
                         db_dir=None if args.db_dir is None else str(args.db_dir))
    records, interrupted = run_levels(levels, options, jobs=args.jobs,
                                      progress=not args.no_progress)
    print(summary_table(records))
    if interrupted:
        print("interrupted: the levels above that finished are kept", file=sys.stderr)
    write_outputs(records, args.json, args.csv, file=str(args.file), format=fmt,
                  options=options.describe(), jobs=args.jobs, interrupted=interrupted)
    t = totals(records)
    if t["unfinished"] or interrupted:
        return EXIT_LIMIT
    return EXIT_UNSOLVABLE if t["unsolvable"] else EXIT_OK
