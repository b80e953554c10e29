"""Reproduce seed 003's comparisons on our boards; prints tables, writes JSON.

    python scripts/experiments.py random6x7 [--count 100] [--time-limit 60] [--workers 2 | --dask local:2] [--resume]
    python scripts/experiments.py optimal7x8 [--time-limit 600]
    python scripts/experiments.py sweep [--weights 1,...] [--time-limit 60]

(a) ``random6x7``: seeded random 6x7 boards (two empty cells, classic mix),
    BFS against A*+PDB against IDA*+PDB; node and time ratios.
(b) ``optimal7x8``: puzzles/hakoiri/paper_7x8.txt by A* and IDA* with the PDB.
(c) ``sweep``: weighted A* over α on paper_8x20 and paper_10x20.
Results go to bench-results/experiments-<name>.json (straight metric).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import pdbsearch
from pdbsearch.hakoiri import HakoiriPuzzle, load_board
from pdbsearch.hakoiri.database import obtain_pdb, relaxed_spec
from pdbsearch.hakoiri.generator import default_recipe, generate
from pdbsearch.io import atomic_write_text
from pdbsearch.machine import machine_info
from pdbsearch.search import Limits, solve
from pdbsearch.sweep import format_table

ROOT = Path(__file__).resolve().parents[1]


def pdb_for(board, metric="straight"):
    """The relaxed PDB of a board's geometry (built once, then reused)."""
    return obtain_pdb(relaxed_spec(board.width, board.height, board.exit,
                                   len(board.empty_cells()), metric))


def save(name: str, data, quiet: bool = False) -> None:
    """Write results JSON under bench-results/ (atomically)."""
    out = ROOT / "bench-results" / f"experiments-{name}.json"
    out.parent.mkdir(exist_ok=True)
    atomic_write_text(out, json.dumps({"machine": machine_info(), "results": data}, indent=1))
    if not quiet:
        print(f"saved {out}")


#: The algorithms of experiment (a), with their heuristics.
RANDOM6X7_RUNS = (("bfs", "zero"), ("astar", "pdb"), ("idastar", "pdb"))

_PDBS: dict = {}   # the relaxed PDB of each geometry this process has loaded


def run_board(board, algo: str, heuristic: str, time_limit: float) -> dict:
    """One run of experiment (a): ``algo`` on ``board`` (the body of a batch
    job; the PDB is loaded once per process, before its children fork)."""
    key = (board.width, board.height, board.exit, len(board.empty_cells()))
    if key not in _PDBS:
        _PDBS[key] = pdb_for(board)
    r = solve(HakoiriPuzzle(board, "straight", heuristic, pdb=_PDBS[key]), algo,
              limits=Limits(time_seconds=time_limit))
    return {"status": r.status.value, "cost": r.cost, "expanded": r.expanded,
            "seconds": r.seconds}


def warm_up_runs(board) -> None:
    """Compile every algorithm's kernels and load the PDB in this process
    (once per process, before its children fork: a child would compile
    outside its time limit, and be killed for it)."""
    for algo, heuristic in RANDOM6X7_RUNS:
        run_board(board, algo, heuristic, 0.0)


def run_failure(status: str, stop_reason, error) -> dict:
    """The record of a run the batch stopped (killed, lost, interrupted)."""
    return {"status": status, "cost": None, "expanded": 0, "seconds": 0.0, "error": error}


def random6x7(args) -> None:
    """(a) BFS vs A*+PDB vs IDA*+PDB on seeded random 6x7 boards, one batch job
    per board and algorithm (on this machine, or on a Dask cluster)."""
    from pdbsearch.batch import Job, WarmUp, run_batch
    rows: dict[int, dict] = {}
    saved = ROOT / "bench-results" / "experiments-random6x7.json"
    if args.resume and saved.exists():
        # Boards already measured with the same seed and limit are kept.
        old = json.loads(saved.read_text())["results"]
        if (old["summary"].get("seed", args.seed) == args.seed
                and old["summary"]["bfs_time_limit"] == args.time_limit):
            for n, row in enumerate(old["runs"], 1):
                rows[row.setdefault("board", n)] = row
            print(f"resuming: {len(rows)} boards already measured")
    todo = [i for i in range(1, args.count + 1) if i not in rows]
    jobs = []
    if todo:
        recipe = default_recipe(6, 7, 2)
        pdb = pdb_for(load_board(ROOT / "puzzles/hakoiri/paper_6x7.txt"))
        boards = generate(recipe, args.count, args.seed, "straight", 2_000_000, "pdb", pdb)
        jobs = [Job((i, algo), run_board, (boards[i - 1][0], algo, heuristic, args.time_limit),
                    run_failure, args.time_limit + 10)
                for i in todo for algo, heuristic in RANDOM6X7_RUNS]
        # compiles the kernels and loads the PDB before any child is forked
        warm_up = WarmUp("random6x7", warm_up_runs, (boards[0][0],))
    partial_rows: dict[int, dict] = {}

    def record(outcome) -> None:
        i, algo = outcome.key
        row = partial_rows.setdefault(i, {"board": i})
        row[algo] = outcome.record
        if len(row) < 1 + len(RANDOM6X7_RUNS):
            return
        rows[i] = partial_rows.pop(i)
        print(i, {a: (v["cost"], v["expanded"], round(v["seconds"], 3))
                  for a, v in rows[i].items() if a != "board"}, flush=True)
        # Saved after every board, so a long run that is stopped keeps its figures.
        ordered = [rows[k] for k in sorted(rows)]
        save("random6x7", {"summary": summarise(ordered, args.time_limit, args.seed),
                           "runs": ordered}, quiet=True)

    if jobs:
        run_batch(jobs, record, workers=args.workers, dask=args.dask, warm_up=warm_up)
    ordered = [rows[k] for k in sorted(rows)]
    summary = summarise(ordered, args.time_limit, args.seed)
    print(json.dumps(summary, indent=1))
    save("random6x7", {"summary": summary, "runs": ordered})


def summarise(rows: list[dict], time_limit: float, seed: int) -> dict:
    """Solved counts and BFS / A* and BFS / IDA* ratios over the boards so far."""
    summary = {"boards": len(rows), "seed": seed, "bfs_time_limit": time_limit,
               "bfs_solved": sum(r["bfs"]["status"] == "solved" for r in rows)}
    for algo in ("astar", "idastar"):
        # Where BFS hit its limit, the nodes it expanded so far only bound
        # the ratio from below: report those boards apart.
        both = [r for r in rows if r["bfs"]["status"] == r[algo]["status"] == "solved"]
        exact = [r["bfs"]["expanded"] / max(1, r[algo]["expanded"]) for r in both]
        lower = [r["bfs"]["expanded"] / max(1, r[algo]["expanded"]) for r in rows
                 if r["bfs"]["status"] != "solved" and r[algo]["status"] == "solved"]
        summary[f"{algo}_solved"] = sum(r[algo]["status"] == "solved" for r in rows)
        summary[f"bfs_over_{algo}_nodes_mean_exact"] = statistics.mean(exact) if exact else None
        summary[f"bfs_over_{algo}_nodes_mean_lower_bound"] = (statistics.mean(lower)
                                                              if lower else None)
        summary[f"{algo}_seconds_mean"] = statistics.mean(r[algo]["seconds"] for r in rows)
        # The same for time: a BFS stopped at its limit took at least that long.
        lower_time = [r["bfs"]["seconds"] / max(1e-6, r[algo]["seconds"]) for r in rows
                      if r["bfs"]["status"] != "solved" and r[algo]["status"] == "solved"]
        summary[f"bfs_over_{algo}_time_mean_lower_bound"] = (statistics.mean(lower_time)
                                                             if lower_time else None)
        if lower:
            summary[f"bfs_over_{algo}_nodes_median_lower_bound"] = statistics.median(lower)
            summary[f"bfs_over_{algo}_time_median_lower_bound"] = statistics.median(lower_time)
        if both:
            summary[f"bfs_over_{algo}_boards_exact"] = len(both)
            summary[f"bfs_over_{algo}_time_mean_exact"] = statistics.mean(
                r["bfs"]["seconds"] / max(1e-6, r[algo]["seconds"]) for r in both)
            summary[f"bfs_over_{algo}_time_total_exact"] = (
                sum(r["bfs"]["seconds"] for r in both) / sum(r[algo]["seconds"] for r in both))
    done = [r for r in rows
            if all(r[a]["status"] == "solved" for a in ("bfs", "astar", "idastar"))]
    summary["agree"] = all(r["bfs"]["cost"] == r["astar"]["cost"] == r["idastar"]["cost"]
                           for r in done) and all(
        r["astar"]["cost"] == r["idastar"]["cost"] for r in rows
        if r["astar"]["status"] == r["idastar"]["status"] == "solved")
    return summary


def optimal7x8(args) -> None:
    """(b) the 7x8 board solved optimally by A* and IDA*."""
    board = load_board(ROOT / "puzzles/hakoiri/paper_7x8.txt")
    pdb = pdb_for(board)
    out = {}
    for algo in ("astar", "idastar"):
        r = solve(HakoiriPuzzle(board, "straight", "pdb", pdb=pdb), algo,
                  limits=Limits(time_seconds=args.time_limit))
        out[algo] = r.to_dict() | {"moves": len(r.moves)}
        print(algo, r.status.value, r.cost, f"{r.expanded:,} expanded", f"{r.seconds:.1f} s",
              f"{r.memory_bytes / 2**20:.0f} MiB", flush=True)
    save("optimal7x8", out)


def sweep(args) -> None:
    """(c) the α sweep on the 8x20 and 10x20 boards."""
    weights = [float(w) for w in args.weights.split(",")]
    out = {}
    for name in ("paper_8x20", "paper_10x20"):
        board = load_board(ROOT / f"puzzles/hakoiri/{name}.txt")
        puzzle = HakoiriPuzzle(board, "straight", "pdb", pdb=pdb_for(board))
        runs = pdbsearch.compare(puzzle, weights, time_limit=args.time_limit,
                                 memory_limit=args.memory_limit)
        print(name)
        print(format_table(runs))
        out[name] = [r.to_dict() | {"moves": len(r.moves)} for r in runs]
    save("sweep", out)


def main() -> None:
    """Command line of the experiments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="which", required=True)
    p = sub.add_parser("random6x7")
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--seed", type=int, default=2015)
    p.add_argument("--time-limit", type=float, default=60)
    p.add_argument("--workers", type=int, default=1, help="runs at once on this machine")
    p.add_argument("--dask", metavar="WHERE", help="run on a Dask cluster: local:N or "
                   "tcp://host:8786 (one task per board and algorithm)")
    p.add_argument("--resume", action="store_true",
                   help="keep the boards already in the JSON (same seed and limit)")
    p.set_defaults(run=random6x7)
    p = sub.add_parser("optimal7x8")
    p.add_argument("--time-limit", type=float, default=600)
    p.set_defaults(run=optimal7x8)
    p = sub.add_parser("sweep")
    p.add_argument("--weights", default="1,2,3,5,7,9,11,13,15")
    p.add_argument("--time-limit", type=float, default=60)
    p.add_argument("--memory-limit", type=int, default=6000)
    p.set_defaults(run=sweep)
    args = parser.parse_args()
    t0 = time.time()
    args.run(args)
    print(f"total {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
