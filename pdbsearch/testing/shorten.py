"""A plain-Python reference of the shortcut search of
:mod:`pdbsearch.search.shorten`, for the tests: dictionaries and ``heapq``
instead of the kernel's tables, the same labels and the same choice."""

from __future__ import annotations

import heapq

import numpy as np

from ..search.common import expand_into, successor_buffers


def shortcut_reference(puzzle, keys, costs, i: int, depth: int) -> tuple[int, int]:
    """``(j, saving)`` of the best shortcut from position ``i`` of the path
    ``keys`` (move ``t`` costs ``costs[t]``): ``j`` the later position it
    lands on (-1 and 0: none saves anything).

    The local search labels a position with its cheapest cost and, among
    those, its fewest moves; it expands labels with fewer than ``depth``
    moves and drops routes that cost as much as the rest of the path.  The
    best shortcut saves most, ties going to the furthest ``j``.
    """
    cum = np.concatenate([[0], np.cumsum(costs)]).astype(np.int64)
    last_at = {}
    for t, key in enumerate(keys):
        last_at[bytes(key.tobytes())] = t
    horizon = int(cum[-1] - cum[i])
    buffers = successor_buffers(puzzle)
    out_keys, out_costs, _ = buffers
    start = bytes(keys[i].tobytes())
    label = {start: (0, 0)}
    rows = {start: keys[i]}
    queue = [(0, 0, start)]
    done = set()
    best_j, best_save = -1, 0
    while queue:
        cost, moves, here = heapq.heappop(queue)
        if here in done or label[here] != (cost, moves):
            continue
        done.add(here)
        j = last_at.get(here, -1)
        if j > i:
            save = int(cum[j] - cum[i]) - cost
            if save > best_save or (save == best_save and save > 0 and j > best_j):
                best_j, best_save = j, save
        if moves >= depth:
            continue
        count = expand_into(puzzle.params, rows[here], *buffers)
        for k in range(count):
            new = (cost + int(out_costs[k]), moves + 1)
            if new[0] >= horizon:
                continue
            there = bytes(out_keys[k].tobytes())
            if there in label and label[there] <= new:
                continue
            label[there] = new
            rows[there] = out_keys[k].copy()
            heapq.heappush(queue, (*new, there))
    return best_j, best_save
