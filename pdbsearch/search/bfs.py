"""Breadth-first search (optimal when every move costs 1).

The node table doubles as the FIFO queue: states are stored in the order
they are found, and ``stats[HEAD]`` walks through them.  The goal test is
done when a state is generated, which is safe for unit costs.
With ``stop_at_goal=False`` it enumerates the whole reachable space.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..puzzle import copy_key, kernel_expand, kernel_is_goal
from .common import (ENGINE_JIT_OPTIONS, EXHAUSTED, EXPANDED, F_LAST, GENERATED, GOAL,
                     GROW_NODES, HEAD, NODES, N_FSTATS, N_STATS, RUNNING, SOLVED,
                     successor_buffers)
from .store import NodeStore, find_slot


@nb.njit(**ENGINE_JIT_OPTIONS)
def bfs_chunk(params, keys, g, parent, slots, stats, fstats, stop_at_goal,
              budget, out_keys, out_costs, out_moves):
    """Run BFS for at most ``budget`` expansions; returns a chunk code."""
    cap = keys.shape[0]
    max_succ = out_keys.shape[0]
    done = 0
    while stats[HEAD] < stats[NODES]:
        if done >= budget:
            return RUNNING
        if stats[NODES] + max_succ > cap:
            return GROW_NODES
        node = stats[HEAD]
        stats[HEAD] += 1
        stats[EXPANDED] += 1
        done += 1
        fstats[F_LAST] = g[node]
        n = kernel_expand(params, keys[node], out_keys, out_costs, out_moves)
        stats[GENERATED] += n
        for i in range(n):
            s = find_slot(keys, slots, out_keys[i])
            if slots[s] >= 0:
                continue
            idx = stats[NODES]
            copy_key(keys[idx], out_keys[i])
            g[idx] = g[node] + 1
            parent[idx] = node
            slots[s] = idx
            stats[NODES] += 1
            if stop_at_goal and kernel_is_goal(params, out_keys[i]):
                stats[GOAL] = idx
                return SOLVED
    return EXHAUSTED


class BreadthFirstSearch:
    """Engine state of a BFS run (see :mod:`pdbsearch.search.driver`)."""

    name = "bfs"
    progress_label = "depth"

    def __init__(self, puzzle, stop_at_goal: bool = True):
        self.puzzle = puzzle
        self.stop_at_goal = stop_at_goal
        self.store = NodeStore(puzzle.key_words)
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.fstats = np.zeros(N_FSTATS, dtype=np.float64)
        self.buffers = successor_buffers(puzzle)
        root = puzzle.initial_key()
        self.store.keys[0] = root
        self.store.slots[find_slot(self.store.keys, self.store.slots, root)] = 0
        self.stats[NODES] = 1

    def run(self, budget: int) -> int:
        """One chunk of at most ``budget`` expansions."""
        st = self.store
        return bfs_chunk(self.puzzle.params, st.keys, st.g, st.parent, st.slots,
                         self.stats, self.fstats, self.stop_at_goal, budget,
                         *self.buffers)

    def load_kernels(self) -> None:
        """Compile or load every kernel a run may call (see the driver)."""
        self.run(0)
        self.store.load_kernels()

    def nbytes(self) -> int:
        """Bytes held now."""
        return self.store.nbytes()

    def grow_nbytes(self, code: int) -> int:
        """Bytes that would be held after serving ``code``."""
        return self.store.grown_nbytes()

    def grow(self, code: int) -> None:
        """Make room as ``code`` asks."""
        self.store.grow(int(self.stats[NODES]))

    def solution_keys(self) -> list[np.ndarray]:
        """The states from the start to the goal found."""
        return [self.store.keys[i].copy() for i in self.store.path_to(int(self.stats[GOAL]))]

    def lower_bound(self) -> float | None:
        """Every state up to the depth being expanded was generated and tested."""
        return float(self.fstats[F_LAST]) + 1.0 if self.stats[EXPANDED] else None
