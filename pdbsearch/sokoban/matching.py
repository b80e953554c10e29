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
:func:`rematch_row` updates an optimal matching after one row of the costs
changed (one box pushed) in O(n²).

:func:`rows_all_matched` answers the yes-or-no question without costs,
for at most 64 columns given as one bit mask per row (Kuhn's augmenting
paths, each a breadth-first search over the columns' bits).
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

_INF = np.int64(1) << 62


@nb.njit(cache=True)
def _augment(cost, n, i, work):
    """Match row ``i`` (1-based, unmatched) by a shortest augmenting path.

    Preconditions: the duals ``u = work[0]`` (rows) and ``v = work[1]``
    (columns) are feasible (``u[r] + v[c] <= cost[r-1, c-1]``), every matched
    pair is tight, and ``match = work[2]`` (column -> 1-based row, 0: free)
    leaves at least one column free.  The duals stay feasible and tight.
    """
    u, v, match, way, minv, used = work[0], work[1], work[2], work[3], work[4], work[5]
    # Grow a shortest-path tree from the virtual column 0 (holding row i)
    # until it reaches a free column, then flip the path.
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
                # Among columns equally near, a free one ends the path now:
                # after one pushed box the old optimum mostly still holds.
                if minv[j] < delta or (minv[j] == delta and match[j] == 0):
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


@nb.njit(cache=True)
def _total(cost, n, match):
    total = 0
    for j in range(1, n + 1):
        total += cost[match[j] - 1, j - 1]
    return total


@nb.njit(cache=True)
def min_cost_matching(cost, n, work):
    """The minimum total cost of a perfect matching of ``cost[:n, :n]``.

    ``cost[i, j]`` is the cost of giving column ``j`` to row ``i`` (int64,
    non-negative).  ``work`` is int64 ``[6, >= n + 1]``: on return its rows
    0 to 2 hold the row duals, the column duals and ``match`` (column ->
    1-based row), which :func:`rematch_row` can start from.
    """
    for j in range(n + 1):
        work[0, j] = 0
        work[1, j] = 0
        work[2, j] = 0
    for i in range(1, n + 1):
        _augment(cost, n, i, work)
    return _total(cost, n, work[2])


@nb.njit(cache=True)
def rematch_row(cost, n, r, work):
    """The minimum matching cost after row ``r`` (0-based) of ``cost`` has
    changed, in O(n²), from the optimal solution of the old matrix held in
    ``work`` (as :func:`min_cost_matching` leaves it).

    Row ``r`` loses its column, its dual is lowered until it is feasible
    again, and it is matched anew by one augmenting path.
    """
    u, v, match = work[0], work[1], work[2]
    for j in range(1, n + 1):
        if match[j] == r + 1:
            match[j] = 0
    lowest = _INF
    for j in range(1, n + 1):
        slack = cost[r, j - 1] - v[j]
        if slack < lowest:
            lowest = slack
    u[r + 1] = lowest
    v[0] = 0   # the virtual column's dual is scratch: keep it from drifting
    _augment(cost, n, r + 1, work)
    # Shift the duals (u + c, v - c keeps them feasible and tight) so that
    # the largest column dual is 0: repeated updates cannot drift them.
    top = v[1]
    for j in range(2, n + 1):
        if v[j] > top:
            top = v[j]
    for j in range(1, n + 1):
        v[j] -= top
        u[j] += top
    return _total(cost, n, match)


#: Most columns :func:`rows_all_matched` takes (one bit each in a uint64).
MAX_MASK_COLUMNS = 64


def mask_matching_work() -> np.ndarray:
    """The scratch of :func:`rows_all_matched` (int32, 272 bytes)."""
    return np.empty((4, MAX_MASK_COLUMNS + 1), np.int32)


@nb.njit(cache=True, inline="always")
def _lowest_bit(x):
    """The index of the lowest set bit of ``x`` (uint64, not 0): one
    instruction, where a loop over the bits took up to 64 steps."""
    return np.int64(trailing_zeros(x))


@nb.njit(cache=True)
def rows_all_matched(masks, n, work):
    """True when rows ``0..n-1`` can each be given a distinct column, row
    ``r`` only the columns whose bits are set in ``masks[r]`` (uint64).
    ``work``: :func:`mask_matching_work`; nothing is allocated."""
    return hall_rows(masks, n, work) == 0


@nb.njit(cache=True)
def hall_rows(masks, n, work):
    """0 when rows ``0..n-1`` can each be given a distinct column (as
    :func:`rows_all_matched`); else ``k`` rows, listed in ``work[3, :k]``,
    whose masks together hold fewer than ``k`` columns (Hall's condition
    broken: the proof that no matching exists).

    Each row takes a free column of its own when it has one, else looks
    for an augmenting path breadth-first (Kuhn).  When none exists, the
    rows the search met can reach only the columns it met, all taken by
    the rows met but the first: one column fewer than rows.
    """
    owner, col_of, via, queue = work[0], work[1], work[2], work[3]
    one = np.uint64(1)
    taken = np.uint64(0)
    for i in range(n):
        free = masks[i] & ~taken
        if free != 0:
            j = _lowest_bit(free)
            owner[j] = i
            col_of[i] = j
            taken |= one << np.uint64(j)
            continue
        # Every column of row i is taken: search for a path from row i to
        # a free column that alternates unmatched and matched pairs.
        seen = np.uint64(0)
        queue[0] = i
        head, tail = 0, 1
        found = -1
        while head < tail and found < 0:
            r = queue[head]
            head += 1
            cand = masks[r] & ~seen
            while cand != 0:
                j = _lowest_bit(cand)
                bit = one << np.uint64(j)
                cand &= ~bit
                seen |= bit
                via[j] = r
                if taken & bit == 0:
                    found = j
                    break
                queue[tail] = owner[j]
                tail += 1
        if found < 0:
            return tail
        # Flip the path: each row on it moves to the column that led to it.
        taken |= one << np.uint64(found)
        j = found
        while True:
            r = via[j]
            previous = col_of[r]
            owner[j] = r
            col_of[r] = j
            if r == i:
                break
            j = previous
    return 0


def matching_cost(cost: np.ndarray) -> int:
    """The minimum perfect-matching cost of a square matrix (Python wrapper)."""
    cost = np.ascontiguousarray(cost, dtype=np.int64)
    n = cost.shape[0]
    if cost.shape != (n, n):
        raise ValueError(f"the cost matrix must be square, not {cost.shape}")
    return int(min_cost_matching(cost, n, np.zeros((6, n + 1), dtype=np.int64)))
