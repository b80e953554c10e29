#!/usr/bin/env python
"""Benchmark the Sokoban solver on Microban (or another collection).

Runs every level in its own process with a per-level time limit (the same
machinery as ``pdbsearch levels``), prints the per-level table and the
totals, then measures the effect of each pruning rule by running the first
``--ablation`` levels with that rule switched off.  Everything, with a
description of the machine, is written to a JSON file; ``--markdown``
also prints the tables for ``docs/benchmarks.md``.

    python scripts/bench_sokoban.py                      # all of Microban, 60 s a level
    python scripts/bench_sokoban.py --first 20 --time-limit 5 --ablation 10
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

from pdbsearch.io import atomic_write_text
from pdbsearch.sokoban.collection import (RunOptions, records_json, run_levels,
                                          summary_table, totals)
from pdbsearch.sokoban.domain import read_levels
from pdbsearch.sokoban.puzzle import Rules
from pdbsearch.sokoban.reference import StateLimitError, bfs_min_pushes

ROOT = Path(__file__).resolve().parents[1]
MICROBAN = ROOT.parent / "shared" / "levels" / "sokoban" / "microban.txt"

#: (name, how the options differ from the full solver)
ABLATIONS = [
    ("all rules", {}),
    ("no dead squares", {"rules": Rules(dead_squares=False)}),
    ("no freeze", {"rules": Rules(freeze=False)}),
    ("no corral", {"rules": Rules(corral=False)}),
    ("no tunnels", {"rules": Rules(tunnels=False)}),
    ("simple bound (no matching)", {"heuristic": "simple"}),
    ("no rules, simple bound", {"rules": Rules(False, False, False, False),
                                "heuristic": "simple"}),
]


def machine() -> dict:
    """Cores, CPU model and library versions of this machine."""
    import numba
    import numpy
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cores": os.cpu_count(), "cpu": cpu, "system": platform.platform(),
            "python": platform.python_version(), "numba": numba.__version__,
            "numpy": numpy.__version__, "load_average_at_start": _load()}


def _load() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (other work on a shared machine
    slows the figures down)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def ablation_table(rows: list[dict]) -> str:
    """Markdown table of the ablation runs."""
    lines = ["| configuration | solved | proven optimal | expanded | generated | search s "
             "| expanded/s |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        t = r["summary"]
        rate = f"{t['nodes_per_second']:,}" if t["nodes_per_second"] else "-"
        lines.append(f"| {r['name']} | {t['solved']}/{t['levels']} | {t['optimal']} | "
                     f"{t['expanded']:,} | {t['generated']:,} | {t['seconds']:.1f} | {rate} |")
    return "\n".join(lines)


def unsolved_table(records) -> str:
    """Markdown lines for the levels not solved."""
    rows = [r for r in records if not r.solved]
    if not rows:
        return "(every level solved)"
    lines = ["| level | boxes | status | lower bound | expanded |", "|---:|---:|---|---:|---:|"]
    for r in rows:
        bound = "-" if r.lower_bound is None else f"{r.lower_bound:g}"
        lines.append(f"| {r.number} | {r.boxes} | {r.status} | {bound} | {r.expanded:,} |")
    return "\n".join(lines)


def check_reference(levels, records, max_states: int) -> dict:
    """Compare the proven optima with the exhaustive reference BFS on the
    levels it can finish; returns the counts and any disagreement."""
    checked, skipped, disagree = 0, 0, []
    for level, record in zip(levels, records):
        if not (record.solved and record.optimal):
            continue
        try:
            expected = bfs_min_pushes(level, max_states=max_states)
        except StateLimitError:
            skipped += 1
            continue
        checked += 1
        if expected != record.cost:
            disagree.append({"level": record.number, "solver": record.cost,
                             "reference": expected})
    print(f"reference BFS check: {checked} levels agree" if not disagree else
          f"reference BFS check: {len(disagree)} of {checked} DISAGREE: {disagree}")
    print(f"({skipped} proven-optimal levels need more than {max_states:,} "
          f"reference states and were not checked)")
    return {"max_states": max_states, "checked": checked, "skipped": skipped,
            "disagree": disagree}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default=str(MICROBAN),
                        help="level collection (default Microban)")
    parser.add_argument("--time-limit", type=float, default=60.0,
                        help="seconds per level (default 60)")
    parser.add_argument("--first", type=int, help="only the first N levels")
    parser.add_argument("--algo", default="astar", help="search algorithm (default astar)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="levels at once (default 1: figures per core)")
    parser.add_argument("--ablation", type=int, default=40, metavar="N",
                        help="run N levels with each rule off (default 40; 0: skip)")
    parser.add_argument("--ablation-pick", choices=["hardest", "first"], default="hardest",
                        help="which N levels: the solved ones that needed the most "
                             "expansions (default) or the first N")
    parser.add_argument("--ablation-limit", type=float, default=10.0,
                        help="seconds per level in the ablation runs (default 10)")
    parser.add_argument("--json", default=str(ROOT / "docs" / "bench_sokoban.json"),
                        help="where to write the results")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables too")
    parser.add_argument("--check-reference", type=int, default=0, metavar="STATES",
                        help="also compare every optimal cost with the plain-Python BFS "
                             "of the reference module, on the levels it finishes within "
                             "STATES positions (slow: minutes for 150,000)")
    args = parser.parse_args(argv)

    levels, _ = read_levels(args.levels)
    if args.first:
        levels = levels[:args.first]
    base = RunOptions(algo=args.algo, time_limit=args.time_limit)
    info = machine()
    print(f"machine: {info['cores']} cores, {info['cpu']}; Python {info['python']}, "
          f"numba {info['numba']}, numpy {info['numpy']}", file=sys.stderr)

    start = time.perf_counter()
    records, interrupted = run_levels(levels, base, jobs=args.jobs)
    wall = time.perf_counter() - start
    print(summary_table(records))
    print(f"wall time {wall:.1f} s ({args.jobs} job(s), limit {args.time_limit:g} s a level); "
          f"load average {info['load_average_at_start']} at the start, {_load()} now")

    reference = check_reference(levels, records, args.check_reference) \
        if args.check_reference and not interrupted else None

    ablations, picked = [], []
    if args.ablation and not interrupted:
        if args.ablation_pick == "first":
            picked = [r.number for r in records[:args.ablation]]
        else:
            solved = sorted((r for r in records if r.solved), key=lambda r: -r.expanded)
            picked = sorted(r.number for r in solved[:args.ablation])
        subset = [levels[n - 1] for n in picked]
        print(f"ablation levels ({args.ablation_pick}): {picked}", file=sys.stderr)
        for name, change in ABLATIONS:
            options = replace(base, time_limit=args.ablation_limit, **change)
            print(f"ablation: {name} on {len(subset)} levels", file=sys.stderr)
            recs, stop = run_levels(subset, options, jobs=args.jobs, numbers=picked)
            ablations.append({"name": name, "options": options.describe(),
                              "summary": totals(recs),
                              "levels": [{"number": r.number, "status": r.status,
                                          "cost": r.cost, "expanded": r.expanded,
                                          "generated": r.generated,
                                          "seconds": r.seconds} for r in recs]})
            if stop:
                break
        print(ablation_table(ablations))

    report = json.loads(records_json(records, file=args.levels, options=base.describe(),
                                     jobs=args.jobs, interrupted=interrupted))
    info["load_average_at_end"] = _load()
    report = {"machine": info, "wall_seconds": round(wall, 1), **report,
              "ablation_levels": picked if ablations else [], "ablation": ablations,
              "reference_check": reference}
    atomic_write_text(args.json, json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.json}", file=sys.stderr)
    if args.markdown:
        t = totals(records)
        print()
        print(f"- solved {t['solved']}/{t['levels']}, proven optimal {t['optimal']}; "
              f"search time {t['seconds']:.1f} s, wall time {wall:.1f} s; "
              f"{t['expanded']:,} expanded nodes, {t['nodes_per_second']:,} per second")
        print()
        print(unsolved_table(records))
    return 3 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
