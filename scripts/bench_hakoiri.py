"""Hakoiri benchmarks: prints a table, writes bench-results/bench_hakoiri.json.

Measures, on this machine:
* BFS throughput (generated states per second) over a whole state space;
* A* expansions per second (PDB heuristic);
* bytes per stored state;
* the classic board solved in-process (unit and free metrics);
* first-call compile time (fresh numba cache) and a warm whole-process
  ``pdbsearch solve`` of the classic board;
* the relaxed PDB build of 8x20 (straight, unit, free), 1 and all threads.

    python scripts/bench_hakoiri.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba

from pdbsearch.hakoiri import HakoiriPuzzle, load_board
from pdbsearch.hakoiri.builtin import classic_board
from pdbsearch.hakoiri.database import build_relaxed, obtain_pdb, relaxed_spec
from pdbsearch.machine import machine_info
from pdbsearch.search import Limits, explore, solve

ROOT = Path(__file__).resolve().parents[1]


def pdb_puzzle(board, metric="straight", algo_heuristic="pdb"):
    table = obtain_pdb(relaxed_spec(board.width, board.height, board.exit,
                                    len(board.empty_cells()), metric))
    return HakoiriPuzzle(board, metric, algo_heuristic, pdb=table)


def best_of(n, fn):
    """The fastest of n runs of fn() (returns its result and seconds)."""
    best = None
    for _ in range(n):
        r = fn()
        if best is None or r.seconds < best.seconds:
            best = r
    return best


def main() -> None:
    """Run every benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the slow parts")
    args = parser.parse_args()
    rows: list[tuple[str, str, str]] = []
    data: dict = {"machine": machine_info()}

    # BFS throughput over a whole space.
    for name, board in (("classic 4x5", classic_board()),
                        ("paper 6x7", load_board(ROOT / "puzzles/hakoiri/paper_6x7.txt"))):
        puzzle = HakoiriPuzzle(board, "straight", "zero")
        explore(puzzle, Limits(nodes=10))  # compile
        r = best_of(1 if "6x7" in name else 5,
                    lambda: explore(puzzle, Limits(time_seconds=120)))
        rate = r.generated / r.seconds
        data[f"bfs {name}"] = {"states": r.stored, "generated": r.generated, "seconds": r.seconds,
                               "status": r.status.value, "generated_per_s": rate,
                               "bytes_per_state": r.memory_bytes / r.stored}
        rows.append((f"BFS whole space, {name}",
                     f"{r.stored:,} states ({r.status.value}), {r.seconds:.3f} s",
                     f"{rate / 1e6:.2f} M generated/s"))

    # Classic in-process solves.
    board = classic_board()
    for metric in ("unit", "free"):
        for algo, heuristic in (("bfs", "zero"), ("astar", "simple"), ("astar", "pdb")):
            puzzle = (pdb_puzzle(board, metric) if heuristic == "pdb"
                      else HakoiriPuzzle(board, metric, heuristic))
            solve(puzzle, algo)
            r = best_of(5, lambda: solve(puzzle, algo))
            data[f"classic {metric} {algo} {heuristic}"] = {"cost": r.cost, "seconds": r.seconds,
                                                           "expanded": r.expanded}
            rows.append((f"classic {metric}, {algo} ({heuristic})",
                         f"{r.cost} moves, {r.expanded:,} expanded",
                         f"{r.seconds * 1000:.1f} ms"))

    # A* expansions per second and bytes per state.
    b67 = load_board(ROOT / "puzzles/hakoiri/paper_6x7.txt")
    r = solve(pdb_puzzle(b67), "astar")
    data["astar 6x7"] = r.to_dict()
    rows.append(("A* + PDB, paper 6x7", f"{r.cost} moves, {r.expanded:,} expanded",
                 f"{r.expanded / r.seconds / 1e3:.0f} k expanded/s"))
    b820 = load_board(ROOT / "puzzles/hakoiri/paper_8x20.txt")
    p820 = pdb_puzzle(b820)
    r = solve(p820, "wastar", 2.0, Limits(time_seconds=60))
    data["wastar2 8x20"] = r.to_dict()
    rows.append(("weighted A* α=2, paper 8x20", f"{r.status.value} {r.cost}, {r.stored:,} stored",
                 f"{r.memory_bytes / max(1, r.stored):.1f} bytes/state (all tables), "
                 f"{r.expanded / r.seconds / 1e3:.0f} k expanded/s"))

    # Compile time (fresh cache) and warm whole-process solve.
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pdbsearch", "solve", "--quiet", "--heuristic",
                        "simple"], env=env, check=True, capture_output=True)
        cold = time.perf_counter() - t0
    warm = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pdbsearch", "solve", "--quiet"], check=True,
                       capture_output=True)
        warm.append(time.perf_counter() - t0)
    data["process"] = {"cold_seconds": cold, "warm_seconds": warm}
    rows.append(("pdbsearch solve, whole process", f"cold (empty cache) {cold:.1f} s",
                 f"warm median {statistics.median(warm):.2f} s"))

    # PDB builds.
    if not args.quick:
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            for metric in ("straight", "unit", "free"):
                table, seconds, compile_s = build_relaxed(relaxed_spec(8, 20, (3, 18), 2, metric),
                                                          threads=threads)
                data[f"pdb 8x20 {metric} threads {threads}"] = {
                    "entries": int(table.shape[0]), "seconds": seconds, "compile": compile_s}
                rows.append((f"PDB 8x20 {metric}, {threads} thread(s)",
                             f"{table.shape[0]:,} entries, {table.nbytes:,} bytes",
                             f"{seconds:.2f} s"))

    width = [max(len(r[i]) for r in rows) for i in range(3)]
    print(f"machine: {data['machine']}")
    for r in rows:
        print(" | ".join(c.ljust(w) for c, w in zip(r, width)))
    out = ROOT / "bench-results" / "bench_hakoiri.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(data, indent=1, default=str))
    print(f"saved {out}")


if __name__ == "__main__":
    main()
