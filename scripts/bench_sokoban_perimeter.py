#!/usr/bin/env python
"""Benchmark the backward search of ``--algo fess`` (the perimeter,
``pdbsearch.sokoban.perimeter``) alone, level by level.

The perimeter is a member of the ``--algo fess`` portfolio, never a
solving mode of its own; this script runs it as a complete solver (it ends
when it stores the start, or proves the level unsolvable), one level after
the other in this process, one thread, each with the same CPU-time limit.
It prints one line per level and a summary per set, and writes everything,
with a description of the machine, to a JSON file.

    python scripts/bench_sokoban_perimeter.py                          # the dev sets, 3 s
    python scripts/bench_sokoban_perimeter.py --sets holland --only 17,27 --time-limit 30

It shares the option checks and the folder names of
``bench_sokoban_solving.py`` (imported from beside it).

Levels are solved for pushes with the pruning rules the portfolio uses;
the first level of a run pays the compile time of the kernel (reported
apart, not counted in its time).  ``status`` is ``solved``, ``unsolvable``
(every position backwards from the goal stored, the start not among
them), ``full`` (the table reached its size for ``--memory-limit``) or
``limit``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from bench_sokoban_solving import DEV_SETS, PUZZLES, ROOT, chosen_numbers, chosen_sets

from pdbsearch.cli.options import positive_float, positive_int, positive_int_list
from pdbsearch.io import atomic_write_text
from pdbsearch.machine import load_average, machine_info
from pdbsearch.search.common import EXHAUSTED, EXPANDED, RUNNING, SOLVED
from pdbsearch.search.result import Limits
from pdbsearch.sokoban.formats import load_levels
from pdbsearch.sokoban.puzzle import SokobanPuzzle

#: Expansions between two looks at the clock.
CHUNK = 20_000


def run_level(level, seconds: float, memory_mb: int) -> dict:
    """The perimeter alone on one level: its outcome and figures."""
    puzzle = SokobanPuzzle(level, heuristic="matching")   # the perimeter needs no bound
    puzzle.prepare()
    puzzle.tune("fess", 1.0)
    engine = puzzle.portfolio_engine("perimeter", Limits(memory_mb=memory_mb))
    compiled = time.perf_counter()
    engine.load_kernels()
    compile_seconds = time.perf_counter() - compiled
    started = time.process_time()
    code = RUNNING
    while code == RUNNING and time.process_time() - started < seconds:
        code = engine.run(CHUNK)
    spent = time.process_time() - started
    status = {SOLVED: "solved", EXHAUSTED: "unsolvable", RUNNING: "limit"}.get(code, "full")
    pushes = None
    if code == SOLVED:
        keys = engine.solution_keys()
        _, pushes = puzzle.check_solution(engine.solution_codes(keys))   # replayed
    return {"boxes": len(level.boxes), "status": status, "pushes": pushes,
            "expanded": int(engine.stats[EXPANDED]), "stored": engine.perimeter.stored(),
            "cpu_seconds": round(spent, 4), "compile_seconds": round(compile_seconds, 3)}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(DEV_SETS),
                        help="comma-separated set names in puzzles/sokoban (default the dev sets)")
    parser.add_argument("--time-limit", type=positive_float, default=3.0,
                        help="CPU seconds per level (default 3)")
    parser.add_argument("--only", type=positive_int_list, default=None, metavar="N,N,...",
                        help="only these level numbers (one set)")
    parser.add_argument("--memory-limit", type=positive_int, default=4000, metavar="MB",
                        help="memory the table is sized from (default 4000)")
    parser.add_argument("--json", default=str(ROOT / "bench-results" /
                                              "bench_sokoban_perimeter.json"),
                        help="where to write the results")
    args = parser.parse_args(argv)
    names = chosen_sets(parser, args.sets, args.only)
    out = {"machine": machine_info(), "options": vars(args), "sets": {}}
    for name in names:
        levels = load_levels(PUZZLES / f"{name}.txt")
        numbers = set(chosen_numbers(parser, args.only, len(levels), name))
        rows = []
        print(f"{name}: level boxes status pushes expanded stored cpu_s")
        for number, level in enumerate(levels, start=1):
            if number not in numbers:
                continue
            row = {"number": number, **run_level(level, args.time_limit, args.memory_limit)}
            rows.append(row)
            print(f"{name} {number:4d} {row['boxes']:5d} {row['status']:>10} "
                  f"{row['pushes'] if row['pushes'] is not None else '-':>6} "
                  f"{row['expanded']:>10,} {row['stored']:>11,} {row['cpu_seconds']:7.2f}",
                  flush=True)
        solved = [r for r in rows if r["status"] == "solved"]
        cpu_seconds = sum(r["cpu_seconds"] for r in rows)
        summary = {"levels": len(rows), "solved": len(solved),
                   "cpu_seconds_solved": round(sum(r["cpu_seconds"] for r in solved), 2),
                   "expanded": sum(r["expanded"] for r in rows),
                   "cpu_seconds": round(cpu_seconds, 2)}
        summary["expanded_per_cpu_second"] = round(summary["expanded"] / max(cpu_seconds, 1e-9))
        out["sets"][name] = {"summary": summary, "levels": rows}
        print(f"{name}: solved {len(solved)}/{len(rows)} at {args.time_limit:g} s of CPU a "
              f"level ({summary['cpu_seconds_solved']} s on those); "
              f"{summary['expanded_per_cpu_second']:,} expanded per CPU s")
    out["load_average_at_end"] = load_average()
    atomic_write_text(args.json, json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
