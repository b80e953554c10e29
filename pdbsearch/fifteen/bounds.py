"""Jitted lower bounds of the sliding-tile puzzle: Manhattan distance and
disjoint additive pattern databases (:mod:`.abstraction`).

A pattern database of a group of tiles holds, per placement of those tiles
(the others anonymous), the fewest moves *of the group's tiles* that bring
them home, minimised over where the blank is.  Every move moves one tile,
so the values of disjoint groups add up to a lower bound (Korf & Felner
2002).  On a square board the same tables also bound the state reflected
about the main diagonal (tile t becomes the tile whose goal cell is t's
reflected), and the larger of the two sums is taken.

With 4-bit entries (``nibbles``) a table stores, two a byte, the excess of
the value over the group's Manhattan distance, halved (it is even: every
move of a group tile changes its Manhattan distance by one), capped at 15
(a cap only lowers the bound); the lookup adds the Manhattan distance back.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..pdb.ranking import rank_partial
from ..pdb.store import UNREACHABLE
from ..puzzle import DEAD
from .kernels import get_cell
from .vocabulary import MANHATTAN, ZERO


@nb.njit(cache=True, inline="always")
def manhattan(params, key):
    """Sum of the tiles' Manhattan distances (the blank excluded)."""
    h = 0
    for t in range(1, params.ncells):
        h += params.md[t, get_cell(params, key, t)]
    return h


@nb.njit(cache=True, inline="always")
def _pattern_sum(params, key, reflected):
    """Sum over the groups of their table values for the state (or for the
    state reflected about the main diagonal)."""
    n = params.ncells
    cells = params.work[4:]
    total = 0
    for g in range(params.group_size.shape[0]):
        k = params.group_size[g]
        md = 0
        for i in range(k):
            t = params.group_tiles[g, i]
            if reflected:
                # tile t of the reflected state stands where refl_tile[t] stands, reflected
                c = params.refl_cell[get_cell(params, key, params.refl_tile[t])]
            else:
                c = get_cell(params, key, t)
            cells[i] = c
            md += params.md[t, c]
        r = rank_partial(cells, k, n)
        if params.nibbles:
            byte = params.pdb[params.group_offset[g] + (r >> 1)]
            total += md + 2 * np.int64((byte >> ((r & 1) << 2)) & 15)
        else:
            v = params.pdb[params.group_offset[g] + r]
            if v == UNREACHABLE:
                return DEAD   # no solvable state maps there: a damaged input, not a bound
            total += np.int64(v)
    return total


@nb.njit(cache=True, inline="always")
def heuristic(params, key):
    """Zero, Manhattan distance, or the additive pattern databases (the
    maximum with the reflected state's when ``reflect``)."""
    if params.heuristic == ZERO:
        return 0
    if params.heuristic == MANHATTAN:
        return manhattan(params, key)
    h = _pattern_sum(params, key, False)
    if params.reflect:
        h2 = _pattern_sum(params, key, True)
        if h2 > h:
            h = h2
    return h
