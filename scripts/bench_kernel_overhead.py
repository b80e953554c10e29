"""What one call of a domain kernel costs inside a jitted loop.

    python scripts/bench_kernel_overhead.py

Runs over every state of the classic Hakoiri board (unit metric) and times,
per state: the goal test through the kernel registry (``kernel_is_goal``,
as the engines call it), the same test written out in the loop, the same
call compiled without numba's reference counting (``_nrt=False``), and one
expansion (``kernel_expand``) with and without it.  The gap between the first two is the cost
of handing the params tuple (which holds arrays) to an inlined kernel:
numba increments and decrements the reference count of every array in it
at each such hand-over.  Prints a table; writes
bench-results/bench_kernel_overhead.json.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numba as nb

from pdbsearch.hakoiri import HakoiriPuzzle
from pdbsearch.hakoiri.builtin import classic_board
from pdbsearch.hakoiri.kernels import VERTICAL, get_code
from pdbsearch.io import atomic_write_text
from pdbsearch.machine import machine_info
from pdbsearch.puzzle import kernel_expand, kernel_is_goal
from pdbsearch.search.bfs import BreadthFirstSearch
from pdbsearch.search.common import EXHAUSTED, NODES, RUNNING, successor_buffers

ROOT = Path(__file__).resolve().parents[1]
REPS = 20


@nb.njit
def goal_through_registry(params, keys, reps):
    t = 0
    for _ in range(reps):
        for i in range(keys.shape[0]):
            t += kernel_is_goal(params, keys[i])
    return t


#: the same loop, compiled as the engines are: without reference counting
goal_through_registry_no_refcounts = nb.njit(_nrt=False)(goal_through_registry.py_func)


@nb.njit
def goal_written_out(params, keys, reps):
    t = 0
    for _ in range(reps):
        for i in range(keys.shape[0]):
            c = params.exit_anchor
            t += get_code(keys[i], c) == VERTICAL and get_code(keys[i], c + params.width) == VERTICAL
    return t


@nb.njit
def expand_through_registry(params, keys, out_keys, out_costs, out_moves, reps):
    t = 0
    for _ in range(reps):
        for i in range(keys.shape[0]):
            t += kernel_expand(params, keys[i], out_keys, out_costs, out_moves)
    return t


expand_without_refcounts = nb.njit(_nrt=False)(expand_through_registry.py_func)


def all_states(puzzle):
    """Every reachable state's key (a BFS over the whole space)."""
    engine = BreadthFirstSearch(puzzle, stop_at_goal=False)
    while True:
        code = engine.run(1 << 20)
        if code == EXHAUSTED:
            break
        if code != RUNNING:
            engine.grow(code)
    return engine.store.keys[:int(engine.stats[NODES])].copy()


def best_ns_per_state(fn, n_states: int) -> float:
    """Best of five CPU-time measurements, in nanoseconds per state."""
    fn()   # compile
    best = min(_cpu(fn) for _ in range(5))
    return best / REPS / n_states * 1e9


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    """Print the table and write the JSON."""
    puzzle = HakoiriPuzzle(classic_board(), "unit", "zero")
    params, keys = puzzle.params, all_states(puzzle)
    buffers = successor_buffers(puzzle)
    rows = {
        "kernel_is_goal (as the engines call it)":
            lambda: goal_through_registry(params, keys, REPS),
        "the same, compiled with _nrt=False":
            lambda: goal_through_registry_no_refcounts(params, keys, REPS),
        "the same test written out in the loop":
            lambda: goal_written_out(params, keys, REPS),
        "kernel_expand (one expansion)":
            lambda: expand_through_registry(params, keys, *buffers, REPS),
        "kernel_expand, compiled with _nrt=False (as in the engines)":
            lambda: expand_without_refcounts(params, keys, *buffers, REPS),
    }
    results = {name: round(best_ns_per_state(fn, len(keys)), 1) for name, fn in rows.items()}
    print(f"{len(keys):,} states of the classic board, ns per state (CPU time, best of 5)")
    for name, ns in results.items():
        print(f"{ns:10.1f}  {name}")
    out = ROOT / "bench-results" / "bench_kernel_overhead.json"
    out.parent.mkdir(exist_ok=True)
    atomic_write_text(out, json.dumps({"machine": machine_info(), "states": len(keys),
                                       "ns_per_state": results}, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
