#!/usr/bin/env python
"""Benchmark the Sokoban solver on Microban (or another collection).

Runs every level in a worker process with a per-level time limit (the same
machinery as ``pdbsearch levels``), with the chosen heuristic (default
``pdb``) and then, in the same run so that the two can be compared as
ratios on a shared machine, with ``--against`` (default ``matching``).  It
prints the per-level tables, the totals and the comparison, then measures
the effect of each pruning rule by running the first ``--ablation`` levels
with that rule switched off, and, with ``--grouping-levels``, the greedy
against the static grouping of the pattern bound.  Everything, with a
description of the machine, is written to a JSON file; ``--markdown``
also prints the tables for ``docs/benchmarks.md``.

    python scripts/bench_sokoban.py --ablation 0         # all of Microban, pdb vs matching
    python scripts/bench_sokoban.py --metric moves --against none --ablation 0
    python scripts/bench_sokoban.py --levels microban2.txt --weight 2 --against none
    python scripts/bench_sokoban.py --first 20 --time-limit 5 --ablation 10
    python scripts/bench_sokoban.py --against none --without tunnel_macros,diagonal,learning
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from pdbsearch.io import atomic_write_text
from pdbsearch.batch.levels import run_levels
from pdbsearch.machine import load_average, machine_info
from pdbsearch.sokoban.collection import RunOptions, records_json, summary_table, totals
from pdbsearch.sokoban.formats import load_levels
from pdbsearch.sokoban.puzzle import Rules
from pdbsearch.testing.sokoban import StateLimitError, bfs_min_moves, bfs_min_pushes

ROOT = Path(__file__).resolve().parents[1]
MICROBAN = ROOT / "puzzles" / "sokoban" / "microban.txt"

#: (name, how the options differ from the full solver)
ABLATIONS = [
    ("all rules", {}),
    ("no dead squares", {"rules": Rules(dead_squares=False)}),
    ("no freeze", {"rules": Rules(freeze=False)}),
    ("no corral", {"rules": Rules(corral=False)}),
    ("no tunnels", {"rules": Rules(tunnels=False)}),
    ("no tunnel macros", {"rules": Rules(tunnel_macros=False)}),
    ("no closed diagonals", {"rules": Rules(diagonal=False)}),
    ("no learned deadlocks", {"rules": Rules(learning=False)}),
    ("learned deadlocks with any algorithm", {"rules": Rules(learning=True)}),
    ("none of macros, diagonals, learning", {"rules": Rules(tunnel_macros=False, diagonal=False,
                                                             learning=False)}),
    ("simple bound (no matching)", {"heuristic": "simple"}),
    ("no rules, simple bound", {"rules": Rules.none(), "heuristic": "simple"}),
]


def ablation_table(rows: list[dict]) -> str:
    """Markdown table of the ablation runs."""
    lines = ["| configuration | solved | proven optimal | expanded | generated | search s "
             "| expanded/s | expanded per CPU s |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        t = r["summary"]
        rate = f"{t['nodes_per_second']:,}" if t["nodes_per_second"] else "-"
        cpu_rate = f"{t['nodes_per_cpu_second']:,}" if t["nodes_per_cpu_second"] else "-"
        lines.append(f"| {r['name']} | {t['solved']}/{t['levels']} | {t['optimal']} | "
                     f"{t['expanded']:,} | {t['generated']:,} | {t['seconds']:.1f} | {rate} "
                     f"| {cpu_rate} |")
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


def check_reference(levels, records, max_states: int, metric: str = "pushes") -> dict:
    """Compare the proven optima with the exhaustive reference BFS on the
    levels it can finish; returns the counts and any disagreement."""
    checked, skipped, disagree = 0, 0, []
    for level, record in zip(levels, records):
        if not (record.solved and record.optimal):
            continue
        try:
            expected = (bfs_min_pushes if metric == "pushes" else bfs_min_moves)(
                level, max_states=max_states)
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


def comparison_table(name_a: str, a, name_b: str, b) -> tuple[str, dict]:
    """Markdown comparison of two runs of the same levels: counts, and the
    nodes and search time summed over the levels both solved."""
    both = [(x, y) for x, y in zip(a, b) if x.solved and y.solved]
    ta, tb = totals(a), totals(b)
    exp_a, exp_b = sum(x.expanded for x, _ in both), sum(y.expanded for _, y in both)
    sec_a, sec_b = sum(x.seconds for x, _ in both), sum(y.seconds for _, y in both)
    lines = ["| heuristic | solved | proven optimal | expanded (all) | search s (all) "
             "| expanded/s | expanded per CPU s | expanded (both solved) "
             "| search s (both solved) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, t, e, sec in ((name_a, ta, exp_a, sec_a), (name_b, tb, exp_b, sec_b)):
        rate = f"{t['nodes_per_second']:,}" if t["nodes_per_second"] else "-"
        cpu_rate = f"{t['nodes_per_cpu_second']:,}" if t["nodes_per_cpu_second"] else "-"
        lines.append(f"| {name} | {t['solved']}/{t['levels']} | {t['optimal']} | "
                     f"{t['expanded']:,} | {t['seconds']:.1f} | {rate} | {cpu_rate} | {e:,} "
                     f"| {sec:.1f} |")
    ratios = {"levels_both_solved": len(both),
              "expanded_ratio": round(exp_a / exp_b, 3) if exp_b else None,
              "seconds_ratio": round(sec_a / sec_b, 3) if sec_b else None}
    lines.append("")
    lines.append(f"On the {len(both)} levels both solved: {name_a} / {name_b} expanded "
                 f"{ratios['expanded_ratio']}, search time {ratios['seconds_ratio']}.")
    return "\n".join(lines), ratios


def grouping_runs(levels, numbers, time_limit: float, metric: str) -> list[dict]:
    """Greedy against static grouping of the pattern bound, in this process
    (the level runner has no grouping option), one level at a time."""
    from pdbsearch.search import Limits, solve
    from pdbsearch.sokoban.puzzle import SokobanPuzzle
    rows = []
    for number in numbers:
        level = levels[number - 1]
        for grouping in ("greedy", "static"):
            puzzle = SokobanPuzzle(level, metric, "pdb", grouping=grouping)
            r = solve(puzzle, "astar", 1.0, Limits(time_seconds=time_limit))
            rows.append({"level": number, "boxes": len(level.boxes), "grouping": grouping,
                         "k": puzzle.patterns.k, "status": r.status.value, "cost": r.cost,
                         "lower_bound": r.lower_bound, "expanded": r.expanded,
                         "seconds": round(r.seconds, 3)})
            print(f"grouping {grouping:6s} level {number}: {r.status.value} "
                  f"{r.expanded:,} expanded, {r.seconds:.2f} s", file=sys.stderr)
    return rows


def grouping_table(rows: list[dict]) -> str:
    """Markdown table of :func:`grouping_runs`."""
    lines = ["| level | boxes | k | greedy: expanded | s | static: expanded | s |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for g, st in zip(rows[::2], rows[1::2]):
        def cell(r):
            mark = "" if r["status"] == "solved" else f" ({r['status']}, bound {r['lower_bound']:g})"
            return f"{r['expanded']:,}{mark} | {r['seconds']:.2f}"
        lines.append(f"| {g['level']} | {g['boxes']} | {g['k']} | {cell(g)} | {cell(st)} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default=str(MICROBAN),
                        help="level collection (default Microban)")
    parser.add_argument("--time-limit", type=float, default=60.0,
                        help="seconds per level (default 60)")
    parser.add_argument("--node-limit", type=int, default=None, metavar="N",
                        help="also stop each level after N expansions (a budget that does "
                             "not depend on the machine's load)")
    parser.add_argument("--first", type=int, help="only the first N levels")
    parser.add_argument("--algo", default="astar", help="search algorithm (default astar)")
    parser.add_argument("--weight", type=float, default=None,
                        help="weighted A* with this weight (implies --algo wastar)")
    parser.add_argument("--metric", choices=["pushes", "moves"], default="pushes")
    parser.add_argument("--heuristic", default="pdb",
                        help="heuristic of the main run (default pdb)")
    parser.add_argument("--against", default="matching",
                        help="heuristic of the comparison run, or none (default matching)")
    parser.add_argument("--grouping-levels", default="", metavar="N,N,...",
                        help="also compare greedy and static grouping on these levels")
    parser.add_argument("--without", default="", metavar="RULE,...",
                        help="switch these rules off in the main run (names as in "
                             "Rules: tunnel_macros, diagonal, learning, freeze, ...)")
    parser.add_argument("--with", dest="with_", default="", metavar="RULE,...",
                        help="force these rules on in the main run (e.g. learning, which "
                             "is otherwise left to the algorithm)")
    parser.add_argument("--ablations", default="", metavar="NAME,...",
                        help="run only the ablations whose names contain one of these "
                             "words (default: all)")
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

    levels = load_levels(args.levels)
    if args.first:
        levels = levels[:args.first]
    algo = "wastar" if args.weight is not None else args.algo
    off = {name.strip(): False for name in args.without.split(",") if name.strip()}
    off.update({name.strip(): True for name in args.with_.split(",") if name.strip()})
    base = RunOptions(algo=algo, weight=args.weight or 1.0, time_limit=args.time_limit,
                      metric=args.metric, heuristic=args.heuristic, rules=Rules(**off),
                      node_limit=args.node_limit)
    info = machine_info()
    info["load_average_at_start"] = info.pop("load_average")
    print(f"machine: {info['cores']} cores, {info['cpu']}; Python {info['python']}, "
          f"numba {info['numba']}, numpy {info['numpy']}", file=sys.stderr)

    start = time.perf_counter()
    records, interrupted = run_levels(levels, base, jobs=args.jobs)
    wall = time.perf_counter() - start
    print(summary_table(records))
    print(f"wall time {wall:.1f} s ({args.jobs} job(s), limit {args.time_limit:g} s a level); "
          f"load average {info['load_average_at_start']} at the start, {load_average()} now")

    against, comparison, ratios = None, None, None
    if args.against != "none" and not interrupted:
        other = replace(base, heuristic=args.against)
        t0 = time.perf_counter()
        against, interrupted = run_levels(levels, other, jobs=args.jobs)
        print(summary_table(against))
        print(f"wall time {time.perf_counter() - t0:.1f} s ({args.against})")
        comparison, ratios = comparison_table(args.heuristic, records, args.against, against)
        print(comparison)

    groupings = []
    if args.grouping_levels and not interrupted:
        numbers = [int(x) for x in args.grouping_levels.split(",") if x.strip()]
        groupings = grouping_runs(levels, numbers, args.ablation_limit, args.metric)
        print(grouping_table(groupings))

    reference = check_reference(levels, records, args.check_reference, args.metric) \
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
        wanted = [w.strip() for w in args.ablations.split(",") if w.strip()]
        for name, change in ABLATIONS:
            if wanted and name != "all rules" and not any(w in name for w in wanted):
                continue
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
    info["load_average_at_end"] = load_average()
    report = {"machine": info, "wall_seconds": round(wall, 1), **report,
              "against": None if against is None else {
                  "heuristic": args.against, "summary": totals(against), "ratios": ratios,
                  "levels": [{"number": r.number, "status": r.status, "cost": r.cost,
                              "expanded": r.expanded, "seconds": r.seconds}
                             for r in against]},
              "grouping": groupings,
              "ablation_levels": picked if ablations else [], "ablation": ablations,
              "reference_check": reference}
    atomic_write_text(args.json, json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.json}", file=sys.stderr)
    if args.markdown:
        t = totals(records)
        print()
        print(f"- solved {t['solved']}/{t['levels']}, proven optimal {t['optimal']}; "
              f"search time {t['seconds']:.1f} s, wall time {wall:.1f} s; "
              f"{t['expanded']:,} expanded nodes, {t['nodes_per_second']:,} per second, "
              f"{t['nodes_per_cpu_second']:,} per CPU second (the rate per core)")
        print()
        print(unsolved_table(records))
    return 3 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
