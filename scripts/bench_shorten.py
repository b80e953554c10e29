#!/usr/bin/env python
"""Benchmark the shortening of found solutions (``pdbsearch.search.shorten``)
on Sokoban levels: each level is solved once without shortening, then that
same solution is shortened with each shortcut depth asked for (windows
re-solved first, then shortcuts; no time limit), and as ``solve`` does by
default (for as long as the search took, at least 1 s).

    python scripts/bench_shorten.py                                     # microban, 20 levels
    python scripts/bench_shorten.py --sets holland --only 1,2,3 --depths 4,6,8
    python scripts/bench_shorten.py --sets mine --optimal docs/bench_sokoban_astar_x.json

It prints one line per level (the cost found, then the cost and seconds at
each depth) and a summary, and writes everything, with a description of the
machine, to a JSON file.  ``--optimal`` reads the push-optimal lengths of a
``bench_sokoban_solving.py --algo astar`` JSON (its proven-optimal levels)
and adds each cost's ratio to the optimum.  A level set is a file in
puzzles/sokoban, or with ``--file`` any level file (named by its stem).
The first shortening of a run pays the kernel's compile time (reported apart).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from bench_sokoban_solving import PUZZLES, ROOT, chosen_numbers, chosen_sets

from pdbsearch.cli.options import positive_float, positive_int_list
from pdbsearch.io import atomic_write_text
from pdbsearch.machine import load_average, machine_info
from pdbsearch.search import Limits, Status, solve
from pdbsearch.search.shorten import shorten, shortening_deadline
from pdbsearch.sokoban.formats import load_levels
from pdbsearch.sokoban.puzzle import SokobanPuzzle


def optimal_lengths(paths: list[str]) -> dict[tuple[str, int], int]:
    """``(set, level) -> pushes`` of the proven-optimal levels of A* runs."""
    out = {}
    for path in paths:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        out.update({(name, lv["number"]): lv["pushes"] for name, run in data["sets"].items()
                    for lv in run["levels"] if lv.get("status") == "solved"
                    and lv.get("optimal", True) and lv.get("pushes") is not None})
    return out


def run_level(level, algo: str, seconds: float, depths: list[int]) -> dict:
    """One level: the solution ``algo`` finds, then each depth's shortening."""
    puzzle = SokobanPuzzle(level)
    result = solve(puzzle, algo, None, Limits(time_seconds=seconds, threads=1), shorten=0)
    row = {"status": result.status.value, "found": result.cost,
           "search_seconds": round(result.seconds, 3), "depths": {}}
    if result.status is not Status.SOLVED:
        return row
    for depth in depths:
        started = time.perf_counter()
        _, report = shorten(puzzle, result.steps, depth)
        row["depths"][str(depth)] = {**_figures(report),
                                     "seconds": round(time.perf_counter() - started, 4)}
    # what `solve` does by default: the default depth, for as long as the search took
    started = time.perf_counter()
    _, report = shorten(puzzle, result.steps, deadline=shortening_deadline(result, seconds))
    row["depths"]["default"] = {**_figures(report),
                                "seconds": round(time.perf_counter() - started, 4)}
    return row


def _figures(report) -> dict:
    """A shortening's figures for the JSON (its wall time apart)."""
    return {"cost": report.after, "windows": report.windows,
            "window_moves": report.window_moves, "passes": report.passes,
            "shortcuts": report.shortcuts, "depth_reached": report.depth,
            "finished": report.finished, "compile_seconds": round(report.compile_seconds, 4)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="microban", help="level sets in puzzles/sokoban")
    parser.add_argument("--file", action="append", default=[],
                        help="a level file outside puzzles/sokoban (repeatable)")
    parser.add_argument("--only", type=positive_int_list, default=None,
                        help="these level numbers (one set)")
    parser.add_argument("--first", type=int, default=20, help="the first N levels of each set")
    parser.add_argument("--algo", default="fess", help="the search that finds the solution")
    parser.add_argument("--time-limit", type=positive_float, default=20.0,
                        help="seconds of search a level (one thread)")
    parser.add_argument("--depths", type=positive_int_list, default=[3, 6, 9],
                        help="shortcut depths to measure")
    parser.add_argument("--optimal", action="append", default=[],
                        help="a bench_sokoban_solving.py A* JSON: ratios to the optimum "
                             "(repeatable)")
    parser.add_argument("--known-only", action="store_true",
                        help="only the levels whose optimum --optimal gives")
    parser.add_argument("--out", default=None, help="the JSON file (default under docs/)")
    args = parser.parse_args(argv)

    sources = [(Path(f).stem.lower(), Path(f)) for f in args.file]
    if not args.file:
        sources = [(name, PUZZLES / f"{name}.txt") for name in chosen_sets(parser, args.sets,
                                                                          args.only)]
    optimum = optimal_lengths(args.optimal)
    # compile (or load) the kernels on a small level first
    warm = time.perf_counter()
    run_level(load_levels(str(PUZZLES / "microban.txt"))[1], "greedy", 10.0, [1])
    compile_seconds = round(time.perf_counter() - warm, 2)
    print(f"warm-up (compile or cache load) {compile_seconds} s", flush=True)
    rows = {}
    for name, path in sources:
        levels = load_levels(str(path))
        numbers = chosen_numbers(parser, args.only, len(levels), name) if args.only \
            else list(range(1, min(args.first, len(levels)) + 1))
        if args.known_only:
            numbers = [n for n in numbers if (name, n) in optimum]
        for number in numbers:
            row = run_level(levels[number - 1], args.algo, args.time_limit, args.depths)
            row["optimal"] = optimum.get((name, number))
            rows[f"{name}:{number}"] = row
            cells = " ".join(f"d{d}={v['cost']} ({v['seconds']:.2f}s)"
                             for d, v in row["depths"].items())
            print(f"{name:>12} {number:4d} {row['status']:>9} found {row['found']} {cells}"
                  f"  optimal {row['optimal']}", flush=True)
    solved = [r for r in rows.values() if r["depths"]]
    print(f"\n{len(solved)} solved of {len(rows)}")
    for depth in [*map(str, args.depths), "default"]:
        before = sum(r["found"] for r in solved)
        after = sum(r["depths"][depth]["cost"] for r in solved)
        secs = sum(r["depths"][depth]["seconds"] for r in solved)
        known = [r for r in solved if r["optimal"]]
        opt = sum(r["optimal"] for r in known)
        ratio = (f", on the {len(known)} with a known optimum: found ×"
                 f"{sum(r['found'] for r in known) / opt:.3f}, shortened ×"
                 f"{sum(r['depths'][depth]['cost'] for r in known) / opt:.3f}") if known else ""
        print(f"depth {depth}: {before} -> {after} ({after / max(before, 1):.3f}), "
              f"{secs:.1f} s{ratio}")
    out = Path(args.out) if args.out else ROOT / "docs" / "bench_shorten.json"
    atomic_write_text(out, json.dumps({"machine": machine_info(), "options": vars(args),
                                       "warm_up_seconds": compile_seconds,
                                       "levels": rows, "load_average_at_end": load_average()},
                                      indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
