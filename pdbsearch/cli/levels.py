"""``pdbsearch levels``: solve every level of a Sokoban collection, or every
instance of a sliding-tile collection (Korf's 100)."""

from __future__ import annotations

import argparse
import sys

from ..domains import detect_domain
from ..errors import PdbsearchError
from ..io import read_text, source_name
from ..search import choose_algorithm
from ..sokoban.formats import InvalidLevel, detect_format, parse_levels_each
from ..fifteen.vocabulary import HEURISTICS as FIFTEEN_HEURISTICS
from ..sokoban.vocabulary import HEURISTICS, METRICS
from .exitcodes import EXIT_BAD_INPUT, EXIT_LIMIT, EXIT_OK, EXIT_UNSOLVABLE
from .options import (
    add_format_option,
    add_pdb_options,
    add_search_options,
    add_sokoban_options,
    check_members_algo,
    positive_int,
    rules,
)

#: Seconds of search a level gets unless --time-limit says otherwise.
DEFAULT_TIME_LIMIT = 60.0


def add_parser(sub) -> None:
    """Register ``levels``."""
    p = sub.add_parser(
        "levels", help="solve every level of a Sokoban collection (or every instance of a "
                       "sliding-tile collection such as Korf's 100)",
        description="Solve every level of a collection, each with its own limits, "
                    "in worker processes apart from this one: "
                    f"{DEFAULT_TIME_LIMIT:g} s of search a level unless "
                    "--time-limit says otherwise (a level still running 10 s past it is "
                    "killed), and by default half the RAM and all the cores shared by "
                    "the --jobs running at once. A progress bar counts levels on stderr; "
                    "a summary table follows. Ctrl-C stops the run and keeps what was "
                    "solved.",
        epilog="exit codes: 0 every level solved, 3 some level unfinished (limit, "
               "Ctrl-C or error), 4 some level proved unsolvable and none unfinished")
    p.add_argument("file", metavar="FILE",
                   help="level collection (XSB, SLC, Push!! or seed 002; or a sliding-tile "
                        "collection; - reads the standard input)")
    p.add_argument("--domain", choices=["sokoban", "fifteen"], default=None,
                   help="what the collection holds (default: told from the file)")
    p.add_argument("--metric", choices=list(METRICS.names), default=None,
                   help=f"sokoban: what is minimised: {METRICS.help()}")
    p.add_argument("--heuristic", default=None,
                   help=f"lower bound; sokoban: {HEURISTICS.help()} | fifteen: "
                        f"{FIFTEEN_HEURISTICS.help()}")
    p.add_argument("--partition", default=None,
                   help="fifteen, heuristic pdb: the pattern groups, 7-8 (default on 4x4), "
                        "6-6-3, 5-5-5 or tiles like 1,2,3/4,5,6/...")
    add_pdb_options(p)
    add_format_option(p)
    add_sokoban_options(p)
    add_search_options(p)
    p.set_defaults(time_limit=DEFAULT_TIME_LIMIT)
    p.add_argument("--jobs", type=positive_int, default=1, metavar="N",
                   help="levels solved at once (default 1)")
    p.add_argument("--dask", metavar="WHERE",
                   help="run the levels as tasks on a Dask cluster: a scheduler's address "
                        "(tcp://host:8786) or local:N (N worker processes on this machine); "
                        "needs pip install 'pdbsearch[dask]'")
    p.add_argument("--first", type=positive_int, metavar="N", help="only the first N levels")
    p.add_argument("--json", metavar="OUT", help="write every level's record as JSON "
                   "(rewritten as records arrive)")
    p.add_argument("--csv", metavar="OUT", help="write every level's record as CSV "
                   "(rewritten as records arrive)")
    p.add_argument("--resume", metavar="OUT.json",
                   help="skip the levels this JSON report of an earlier run (same options) "
                        "records as finished, and keep writing it (unless --json names "
                        "another file); a missing file starts a new run")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Solve the collection, print the summary, write the records."""
    # Imported here: the other commands need none of the level runner.
    from ..batch.levels import run_levels
    from ..sokoban.collection import (
        LevelRecord,
        LiveReports,
        RunOptions,
        invalid_record,
        read_resume,
        summary_table,
        totals,
    )
    if args.pdb is not None:
        raise PdbsearchError("--pdb names the PDB of one level; use --db-dir with levels")
    check_members_algo(args)
    if args.dask is not None:
        from ..batch.cluster import check_dask_spec
        check_dask_spec(args.dask)
    text, source = read_text(args.file), source_name(args.file)
    if args.format is not None and args.domain == "fifteen":
        raise PdbsearchError("--format names a Sokoban file format; a sliding-tile collection "
                             "has one")
    domain = args.domain or ("sokoban" if args.format is not None else detect_domain(text))
    if domain == "fifteen":
        return _run_fifteen(args, text, source)
    args.metric = args.metric or METRICS.default
    args.heuristic = HEURISTICS.check(args.heuristic)
    if args.partition is not None:
        raise PdbsearchError("--partition applies to sliding-tile collections")
    algo, weight = choose_algorithm(args.algo, args.weight)
    if algo == "bfs" and args.metric != "pushes":
        raise PdbsearchError("bfs is optimal only when every move costs 1; "
                             "use astar with --metric moves")
    if domain != "sokoban":
        raise PdbsearchError(f"{source}: a {domain} board, not a Sokoban collection: "
                             f"levels runs Sokoban collections; use solve")
    fmt = args.format or detect_format(text)
    # One level that breaks a rule of the model (say, more boxes than the
    # limit) is reported and skipped; the others are still solved.
    everything = parse_levels_each(text, source, fmt)
    if args.first is not None:
        everything = everything[:args.first]
    invalid = {n: invalid_record(n, lv) for n, lv in enumerate(everything, 1)
               if isinstance(lv, InvalidLevel)}
    numbers = [n for n in range(1, len(everything) + 1) if n not in invalid]
    levels = [everything[n - 1] for n in numbers]
    options = RunOptions(metric=args.metric, heuristic=args.heuristic, rules=rules(args),
                         algo=algo, weight=weight, time_limit=args.time_limit,
                         node_limit=args.node_limit, memory_mb=args.memory_limit,
                         pattern_boxes=args.pattern_boxes, threads=args.threads,
                         grouping=args.grouping or RunOptions.grouping, members=args.members,
                         shorten=args.shorten,
                         db_dir=None if args.db_dir is None else str(args.db_dir))
    done = read_resume(args.resume, levels, numbers, options) if args.resume else {}
    if done:
        print(f"resuming {args.resume}: {len(done)} of {len(levels)} levels already "
              f"finished", file=sys.stderr)
    first = {n: done.get(n) or LevelRecord(n, lv.title, len(lv.boxes))
             for n, lv in zip(numbers, levels)}
    reports = LiveReports(sorted({**first, **invalid}.values(), key=lambda r: r.number),
                          args.json or args.resume, args.csv, file=source, format=fmt,
                          options=options.describe(), jobs=args.jobs, dask=args.dask)
    ran, interrupted = run_levels(levels, options, jobs=args.jobs, numbers=numbers,
                                  progress=not args.no_progress, on_record=reports.add,
                                  dask=args.dask, done=done)
    records = sorted([*ran, *invalid.values()], key=lambda r: r.number)
    reports.close(records, interrupted)
    print(summary_table(records))
    for record in invalid.values():
        print(f"pdbsearch: level {record.number} not run: {record.error}", file=sys.stderr)
    if interrupted:
        print("interrupted: the levels above that finished are kept", file=sys.stderr)
    t = totals(records)
    if interrupted:
        return EXIT_LIMIT
    if invalid:
        return EXIT_BAD_INPUT
    if t["unfinished"]:
        return EXIT_LIMIT
    return EXIT_UNSOLVABLE if t["unsolvable"] else EXIT_OK


def _run_fifteen(args: argparse.Namespace, text: str, source: str) -> int:
    """Every instance of a sliding-tile collection (IDA* by default), each
    answer checked against the optimum the file records."""
    from ..fifteen.collection import FifteenRunOptions, records_json, summary_table, totals
    from ..fifteen.database import parse_partition
    from ..fifteen.formats import is_collection, parse_collection
    from ..io import atomic_write_text
    if not is_collection(text):
        if detect_domain(text) == "fifteen":
            raise PdbsearchError(f"{source}: one sliding-tile board, not a collection; "
                                 f"use solve")
        raise PdbsearchError(f"{source}: not a sliding-tile collection (one instance a line: "
                             f"id optimal t0 t1 ...)")
    if args.metric is not None:
        raise PdbsearchError("--metric applies to Sokoban collections: a sliding-tile move "
                             "costs 1")
    if args.csv:
        raise PdbsearchError("--csv applies to Sokoban collections; use --json")
    if args.resume:
        raise PdbsearchError("--resume applies to Sokoban collections")
    instances = parse_collection(text, source)
    if args.first is not None:
        instances = instances[:args.first]
    algo, weight = choose_algorithm(args.algo or "idastar", args.weight)
    b = instances[0].board
    partition = None if args.partition is None else parse_partition(args.partition, b.width,
                                                                     b.height)
    options = FifteenRunOptions(heuristic=FIFTEEN_HEURISTICS.check(args.heuristic), algo=algo,
                                weight=weight, time_limit=args.time_limit,
                                node_limit=args.node_limit, memory_mb=args.memory_limit,
                                db_dir=None if args.db_dir is None else str(args.db_dir),
                                partition=partition, shorten=args.shorten)
    from ..batch.levels import run_levels
    records, interrupted = run_levels(instances, options, jobs=args.jobs,
                                      progress=not args.no_progress, dask=args.dask)
    print(summary_table(records))
    if interrupted:
        print("interrupted: the instances above that finished are kept", file=sys.stderr)
    if args.json:
        atomic_write_text(args.json, records_json(records, file=source,
                                                  options=options.describe(), jobs=args.jobs,
                                                  interrupted=interrupted))
    t = totals(records)
    if t["disagree"]:
        print(f"pdbsearch: {t['disagree']} answers differ from the recorded optimum",
              file=sys.stderr)
        return 1
    return EXIT_LIMIT if t["unfinished"] or interrupted else EXIT_OK
