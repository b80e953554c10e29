#!/usr/bin/env python
"""Benchmark a solving mode (default ``--algo fess``) on Sokoban level sets
against YASS 2.153, level by level.

Runs every level of each set in a worker process with the same per-level
limit (the machinery of ``pdbsearch levels``), then compares with YASS's
per-level results in ``docs/peers/yass_<set>_<N>s.csv`` (YASS at 5 s a
level on the dev sets; on Microban its 20 s run, whose levels all took
under 5 s).  Prints one table per set (solved by both / only us / only
YASS, times) and a summary, and writes everything, with a description of
the machine, to a JSON file.

    python scripts/bench_sokoban_solving.py                       # the three dev sets, 5 s
    python scripts/bench_sokoban_solving.py --sets microban       # Microban 155
    python scripts/bench_sokoban_solving.py --sets holland --first 20 --time-limit 2
    python scripts/bench_sokoban_solving.py --algo wastar --weight 2 --jobs 2   # one engine alone

The limit counts CPU seconds of search by default (``--clock cpu``): on a
shared machine the wall clock mostly measures the other work.  A level's
threads (``--threads``; by default the cores shared among the ``--jobs``)
all count against a CPU limit; what two threads gain at a wall limit shows
with ``--clock wall --jobs 1``.  Times:
``search`` is the search alone (the per-level preparation of FESS
included), ``cpu`` its CPU time, ``wall`` the level's whole time in its worker
process (building the level's tables too), which is what YASS's column measures.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

from pdbsearch.batch.levels import run_levels
from pdbsearch.cli.options import (portfolio_members, positive_float, positive_int,
                                   positive_int_list, weight)
from pdbsearch.io import atomic_write_text
from pdbsearch.machine import load_average, machine_info
from pdbsearch.search import ALGORITHMS
from pdbsearch.sokoban.collection import RunOptions, summary_table, totals
from pdbsearch.sokoban.formats import load_levels
from pdbsearch.sokoban.puzzle import Rules
from pdbsearch.sokoban.vocabulary import PORTFOLIO_MEMBERS

ROOT = Path(__file__).resolve().parents[1]
PUZZLES = ROOT / "puzzles" / "sokoban"
PEERS = ROOT / "docs" / "peers"
DEV_SETS = ("holland", "grigr2002", "sasquatch5")


def yass_results(name: str, limit: float) -> dict[int, float | None]:
    """YASS's seconds per level (None: unsolved) at ``limit`` seconds a
    level, from the CSV in docs/peers (the 20 s Microban run cut at the limit)."""
    path = next(iter(sorted(PEERS.glob(f"yass_{name}_*s.csv"))), None)
    if path is None:
        return {}
    out: dict[int, float | None] = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            ok = row.get("solved", row.get("status", "")) in ("yes", "solved")
            seconds = float(row["seconds"])
            out[int(row["level"])] = seconds if ok and seconds <= limit else None
    return out


def compare(records, yass: dict[int, float | None]) -> dict | None:
    """Level-by-level comparison of one set's records with YASS's (None when
    there are no YASS results for the set)."""
    if not yass:
        return None
    ours = {r.number for r in records if r.solved}
    theirs = {n for n, s in yass.items() if s is not None}
    numbers = {r.number for r in records}
    theirs &= numbers
    return {"levels": len(records), "solved": len(ours), "yass_solved": len(theirs),
            "both": len(ours & theirs), "only_us": sorted(ours - theirs),
            "only_yass": sorted(theirs - ours),
            "yass_seconds": round(sum(yass[n] or 0.0 for n in numbers if n in yass), 3)}


def set_table(name: str, records, cmp: dict | None) -> str:
    """The one-set summary lines."""
    t = totals(records)
    wall = sum(r.wall_seconds for r in records)
    rate = f"{t['nodes_per_cpu_second']:,}" if t["nodes_per_cpu_second"] else "-"
    work = f"search {t['seconds']:.1f} s, cpu {t['cpu_seconds']:.1f} s, wall {wall:.1f} s"
    nodes = f"{t['expanded']:,} expanded, {rate} per CPU s"
    if cmp is None:
        return (f"{name}: solved {t['solved']}/{t['levels']} (no YASS results for this set); "
                f"{work}; {nodes}")
    return (f"{name}: solved {cmp['solved']}/{cmp['levels']} (YASS {cmp['yass_solved']}; "
            f"both {cmp['both']}, only us {cmp['only_us']}, only YASS {cmp['only_yass']}); "
            f"{work} (YASS {cmp['yass_seconds']:.1f} s); {nodes}")


def chosen_sets(parser: argparse.ArgumentParser, text: str,
                only: list[int] | None = None) -> list[str]:
    """The set names of ``--sets``, each a file in puzzles/sokoban (else a
    usage error naming the sets there); just one with ``--only``."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    missing = [name for name in names if not (PUZZLES / f"{name}.txt").is_file()]
    if missing or not names:
        known = ", ".join(sorted(path.stem for path in PUZZLES.glob("*.txt")))
        parser.error(f"no level set {', '.join(missing) or repr(text)} in {PUZZLES} "
                     f"(there are: {known})")
    if only is not None and len(names) != 1:
        parser.error("--only takes one set")
    return names


def chosen_numbers(parser: argparse.ArgumentParser, only: list[int] | None, n_levels: int,
                   name: str) -> list[int]:
    """The level numbers of ``--only`` (all when None), each checked
    against the set's size (else a usage error)."""
    if only is None:
        return list(range(1, n_levels + 1))
    beyond = [n for n in only if n > n_levels]
    if beyond:
        parser.error(f"--only: {name} has {n_levels} levels, no level {beyond[0]}")
    return list(only)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(DEV_SETS),
                        help="comma-separated set names in puzzles/sokoban (default the "
                             "three dev sets)")
    parser.add_argument("--algo", choices=list(ALGORITHMS), default="fess",
                        help="search algorithm (default fess)")
    parser.add_argument("--weight", type=weight, default=1.0,
                        help="weight of h for --algo wastar (default 1)")
    parser.add_argument("--heuristic", default="pdb",
                        help="the puzzles' heuristic (default pdb, the command line's: "
                             "each level's pattern tables are built within its limit)")
    parser.add_argument("--time-limit", type=positive_float, default=5.0,
                        help="seconds of search per level (default 5)")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                        help="what the limit counts: CPU seconds of the search (default: "
                             "steady on a shared machine; the wall limit is then 4x) or "
                             "wall seconds")
    parser.add_argument("--learning", choices=["auto", "on", "off"], default="auto",
                        help="learned deadlock patterns: left to the algorithm (default), "
                             "always, never")
    parser.add_argument("--no-perimeter", action="store_true",
                        help="no search backwards beside the forward one (astar, wastar, "
                             "fess: as the command line's switch)")
    parser.add_argument("--no-probes", action="store_true",
                        help="run FESS without its dead-end probes (to measure them)")
    parser.add_argument("--no-goal-rooms", action="store_true",
                        help="run FESS without its goal-room macros (to measure them)")
    parser.add_argument("--members", type=portfolio_members, default=None, metavar="NAME,...",
                        help="--algo fess: only these members of its portfolio (to measure "
                             "one alone), from " + ", ".join(PORTFOLIO_MEMBERS))
    parser.add_argument("--first", type=positive_int,
                        help="only the first N levels of each set")
    parser.add_argument("--only", type=positive_int_list, default=None, metavar="N,N,...",
                        help="only these level numbers (one set)")
    parser.add_argument("--jobs", type=positive_int, default=1,
                        help="levels at once (default 1)")
    parser.add_argument("--threads", type=positive_int, default=None,
                        help="threads per level (default: the cores shared among the jobs; "
                             "only --algo fess uses more than one)")
    parser.add_argument("--json", default=str(ROOT / "bench-results" /
                                              "bench_sokoban_solving.json"),
                        help="where to write the results")
    args = parser.parse_args(argv)
    names = chosen_sets(parser, args.sets, args.only)

    info = machine_info()
    print(f"machine: {info['cores']} cores, {info['cpu']}; Python {info['python']}, "
          f"numba {info['numba']}, numpy {info['numpy']}; load {info['load_average']}",
          file=sys.stderr)
    rules = Rules(learning={"auto": None, "on": True, "off": False}[args.learning],
                  perimeter=not args.no_perimeter, probes=not args.no_probes,
                  goal_rooms=not args.no_goal_rooms)
    cpu = args.clock == "cpu"   # a CPU limit, with 4x that of wall clock as a backstop
    options = RunOptions(algo=args.algo, weight=args.weight, heuristic=args.heuristic,
                         rules=rules, time_limit=(4 if cpu else 1) * args.time_limit,
                         cpu_limit=args.time_limit if cpu else None, threads=args.threads,
                         members=args.members)
    report = {"machine": info, "options": options.describe(), "sets": {}}
    lines = []
    interrupted = False
    for name in names:
        levels = load_levels(PUZZLES / f"{name}.txt")
        numbers = chosen_numbers(parser, args.only, len(levels), name)
        if args.first and args.only is None:
            numbers = numbers[:args.first]
        chosen = [levels[n - 1] for n in numbers]
        t0 = time.perf_counter()
        records, interrupted = run_levels(chosen, options, jobs=args.jobs, numbers=numbers)
        wall = time.perf_counter() - t0
        print(summary_table(records))
        cmp = compare(records, yass_results(name, args.time_limit))
        line = set_table(name, records, cmp)
        print(line)
        lines.append(line)
        report["sets"][name] = {"wall_seconds": round(wall, 1), "summary": totals(records),
                                "yass": cmp,
                                "levels": [{"number": r.number, "boxes": r.boxes,
                                            "status": r.status, "pushes": r.pushes,
                                            "lower_bound": r.lower_bound,
                                            "upper_bound": r.upper_bound,
                                            "expanded": r.expanded, "seconds": r.seconds,
                                            "cpu_seconds": r.cpu_seconds,
                                            "wall_seconds": r.wall_seconds, "winner": r.winner,
                                            "error": r.error}
                                           for r in records]}
        if interrupted:
            break
    report["load_average_at_end"] = load_average()
    print("\n".join(lines))
    atomic_write_text(args.json, json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.json}", file=sys.stderr)
    return 3 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
