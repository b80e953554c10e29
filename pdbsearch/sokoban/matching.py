"""Minimum-cost perfect matching of boxes to goals (the Hungarian method).

The matching lower bound of Sokoban: every box must end on a distinct goal
and each push moves one box one cell, so the cheapest one-to-one assignment
of boxes to goals, with push distances as costs, never overestimates the
pushes still needed.  When no assignment avoids an impossible pair (a box
that cannot reach a goal at all), the position is a *bipartite deadlock*.

:func:`min_cost_matching` is the O(n³) shortest-augmenting-path form of the
Hungarian method with dual potentials: rows (boxes) are added one at a time,
each by a Dijkstra-like search over columns (goals) on reduced costs.  It
works on preallocated arrays so that it allocates nothing per call.
"""

from __future__ import annotations

import numba as nb
import numpy as np

_INF = np.int64(1) << 62


@nb.njit(cache=True)
def min_cost_matching(cost, n, u, v, match, way, minv, used):
    """The minimum total cost of a perfect matching of ``cost[:n, :n]``.

    ``cost[i, j]`` is the cost of giving column ``j`` to row ``i`` (int64,
    non-negative).  The work arrays ``u`` (rows), ``v``, ``match``, ``way``,
    ``minv`` and ``used`` (columns) need ``n + 1`` entries; index 0 is a
    sentinel.  On return ``match[j]`` (``j >= 1``) is the 1-based row given
    column ``j``.
    """
    for j in range(n + 1):
        v[j] = 0
        match[j] = 0
    for i in range(n + 1):
        u[i] = 0
    for i in range(1, n + 1):
        # Add row i: grow a shortest-path tree from the free column 0 until it
        # reaches an unmatched column, then flip the path.
        match[0] = i
        j0 = 0
        for j in range(n + 1):
            minv[j] = _INF
            used[j] = 0
        while True:
            used[j0] = 1
            i0 = match[j0]
            delta = _INF
            j1 = 0
            for j in range(1, n + 1):
                if used[j] == 0:
                    reduced = cost[i0 - 1, j - 1] - u[i0] - v[j]
                    if reduced < minv[j]:
                        minv[j] = reduced
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(n + 1):
                if used[j] != 0:
                    u[match[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if match[j0] == 0:
                break
        while j0 != 0:
            j1 = way[j0]
            match[j0] = match[j1]
            j0 = j1
    return -v[0]


def matching_cost(cost: np.ndarray) -> int:
    """The minimum perfect-matching cost of a square matrix (Python wrapper)."""
    cost = np.ascontiguousarray(cost, dtype=np.int64)
    n = cost.shape[0]
    if cost.shape != (n, n):
        raise ValueError(f"the cost matrix must be square, not {cost.shape}")
    work = [np.zeros(n + 1, dtype=np.int64) for _ in range(6)]
    return int(min_cost_matching(cost, n, *work))
