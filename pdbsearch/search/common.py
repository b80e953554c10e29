"""Codes and jitted entry points shared by the search engines.

Every engine runs in *chunks*: its jitted kernel does at most ``budget``
expansions and returns one of the codes below, keeping all its state in
arrays.  The Python driver (:mod:`pdbsearch.search.driver`) checks the clock,
the limits and Ctrl-C between chunks, grows arrays on request, and draws the
progress bar, so no Python code runs per node and a search can always be
stopped cleanly with its figures.
"""

from __future__ import annotations

import numba as nb
import numpy as np

# expand_into and successor_buffers live with the puzzle interface (a
# puzzle replays its own solutions with them); the engines take them from here.
from ..puzzle import (KERNEL_JIT_OPTIONS, expand_into, kernel_first_bound, kernel_heuristic,
                      kernel_is_goal, kernel_refine, successor_buffers)

#: Most expansions a chunk may be given.
MAX_BUDGET = 1 << 24


def next_budget(budget: int, spent: float, target: float) -> int:
    """The budget of an engine's next chunk, so that chunks take about
    ``target`` seconds: ``budget`` took ``spent`` seconds this time."""
    if spent < target / 16:
        return min(budget * 8, MAX_BUDGET)
    if spent < target / 2:
        return min(budget * 2, MAX_BUDGET)
    if spent > target * 2 and budget > 1:
        return budget // 2
    return budget


# Return codes of a chunk.
RUNNING = 0       #: budget used up, call again
SOLVED = 1        #: a goal was found
EXHAUSTED = 2     #: nothing left to expand: no solution
GROW_NODES = 3    #: the node table needs more room
GROW_OPEN = 4     #: the open list (or IDA* stack) needs more room
#: nothing left to expand, but the search drops moves a solution may need
#: (FESS's goal-room macros): no proof either way (5-7: FESS's growth codes, 9: the relay's)
STALLED = 8
#: a relay asks for room for a new leg (:mod:`.relay`)
GROW_LEG = 9

# Slots of the int64 ``stats`` array every engine keeps.
EXPANDED = 0
GENERATED = 1
NODES = 2         #: states stored now
OPEN = 3          #: open-list entries (or IDA* stack depth)
GOAL = 4          #: index of the goal node (engine-specific meaning)
HEAD = 5          #: BFS: next node to expand
PRUNED = 6        #: successors dropped as dead by the heuristic
N_STATS = 11

# Slots of the float64 ``fstats`` array.
F_LAST = 0        #: f of the last expanded node (best-first) / depth (BFS)
F_LOWER = 1       #: best proven lower bound on the optimal cost
F_BOUND = 2       #: IDA*: current threshold
N_FSTATS = 4


#: Compile options of the engines' chunk functions.  Without numba's
#: reference counting (``_nrt=False``): every hand-over of a domain's params
#: tuple to an inlined kernel would otherwise increment and decrement the
#: count of every array in it (about 55 ns a call for the four arrays of
#: Hakoiri, microseconds for Sokoban's dozens; scripts/bench_kernel_overhead.py).
#: The engines and kernels allocate nothing, which is what this requires: an
#: allocation in them fails to compile ("NRT required but not enabled")
#: rather than misbehaving.  Measured: Microban level 144 expands 2.2x as
#: many nodes per CPU second, the classic board's A* takes 0.75x the time.
#: (The same options as the domains' non-inlined per-node kernels.)
ENGINE_JIT_OPTIONS = KERNEL_JIT_OPTIONS


@nb.njit(**KERNEL_JIT_OPTIONS)
def evaluate_heuristic(params, key):
    """The domain heuristic of one state (called from Python, rarely)."""
    return kernel_heuristic(params, key)


@nb.njit(**KERNEL_JIT_OPTIONS)
def evaluate_bound_halves(params, key):
    """The cheap and the dear half of the domain heuristic of one state
    (lazy A*; called from Python, rarely)."""
    return kernel_first_bound(params, key), kernel_refine(params, key)


@nb.njit(**KERNEL_JIT_OPTIONS)
def evaluate_is_goal(params, key):
    """The domain goal test of one state (called from Python, rarely)."""
    return kernel_is_goal(params, key)


def move_between(puzzle, parent_key, child_key) -> tuple[int, int]:
    """The cheapest (move code, cost) leading from one state to the other."""
    out_keys, out_costs, out_moves = successor_buffers(puzzle)
    n = expand_into(puzzle.params, parent_key, out_keys, out_costs, out_moves)
    best = None
    for i in range(n):
        if np.array_equal(out_keys[i], child_key):
            if best is None or out_costs[i] < best[1]:
                best = (int(out_moves[i]), int(out_costs[i]))
    if best is None:
        raise AssertionError("search path has a step that is not a move")
    return best
