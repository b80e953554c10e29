"""The abstraction behind a sliding-tile pattern database.

A *pattern* is a group of k tiles; an abstract state keeps where those tiles
stand and where the blank is, every other tile anonymous.  Only moves of the
pattern's tiles count (that is what makes disjoint patterns additive); the
blank moving among the non-pattern cells is free.  So the blank's exact cell
does not matter, only its **region**: the connected set of non-pattern cells
it can reach for free.  The abstract state is then (placement of the k
tiles, region of the blank), and every abstract move costs 1: a pattern
tile next to the blank's region slides into it, and the blank is then in
the region of the cell the tile left.  That is a unit-cost graph the
generic layered BFS builder (:mod:`pdbsearch.pdb.builder`) searches
unchanged; the table the puzzle uses is its minimum over the regions
(:func:`pdbsearch.pdb.builder.reduce_min`).

Indexing: ``rank(placement) × (n − k) + j``, where the placement is ranked
as a partial permutation (:func:`pdbsearch.pdb.ranking.rank_partial`) and
``j`` is the index, among the non-pattern cells in cell order, of the
smallest cell of the blank's region (its canonical representative).  The
other ``j`` of a region are never reached (they stay at 255) and the
minimum over ``j`` ignores them; the reduced table has ``n! / (n − k)!``
entries, none unused.

The abstract goal is the pattern's tiles home and the blank in the region
of cell 0 (the blank's goal cell, never a pattern cell), which the real
goal maps to.

Bits: cells are bits of a uint64 (boards of at most 64 cells), and a region
is grown by shifting its mask (a few word operations a step).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..pdb.builder import register_abstraction
from ..pdb.ranking import placements, popcount64, rank_partial, unrank_partial


class PatternParams(NamedTuple):
    """What the pattern-abstraction kernels need."""

    width: int
    height: int
    ncells: int
    k: int                    #: tiles in the pattern
    tiles: np.ndarray         #: int64 [k] the pattern's tiles
    n_free: int               #: ncells - k
    goal_rank: int
    full: np.uint64           #: mask of every cell
    not_left: np.uint64       #: cells not in column 0
    not_right: np.uint64      #: cells not in the last column
    step: np.ndarray          #: int64 [cell, d] -> neighbour cell, -1 off the board


def pattern_params(width: int, height: int, tiles) -> PatternParams:
    """The params of a pattern of ``tiles`` on a width × height board."""
    n = width * height
    tiles = np.array(sorted(int(t) for t in tiles), dtype=np.int64)
    k = len(tiles)
    if not (1 <= k < n and len(set(tiles.tolist())) == k and tiles.min() >= 1
            and tiles.max() < n):
        raise ValueError(f"bad pattern {tiles.tolist()} on a {width}x{height} board")
    full = (1 << n) - 1
    left = sum(1 << (y * width) for y in range(height))
    right = sum(1 << (y * width + width - 1) for y in range(height))
    step = np.full((n, 4), -1, dtype=np.int64)
    for c in range(n):
        x, y = c % width, c // width
        for d, (dx, dy) in enumerate(((0, -1), (0, 1), (-1, 0), (1, 0))):
            if 0 <= x + dx < width and 0 <= y + dy < height:
                step[c, d] = (y + dy) * width + x + dx
    from ..pdb.ranking import rank_partial_py
    goal = rank_partial_py([int(t) for t in tiles], n) * (n - k)
    return PatternParams(width, height, n, k, tiles, n - k, goal, np.uint64(full),
                         np.uint64(full & ~left), np.uint64(full & ~right), step)


def table_size(params: PatternParams) -> int:
    """Entries of the build table: placements × (n − k)."""
    return placements(params.ncells, params.k) * params.n_free


def max_neighbours(params: PatternParams) -> int:
    """At most 4 moves a pattern tile."""
    return 4 * params.k


def workspace_size(params: PatternParams) -> int:
    """int64 scratch words of :func:`pattern_neighbours`."""
    return params.k


@nb.njit(cache=True, inline="always")
def region(start, free, width, not_left, not_right):
    """The cells of ``free`` (a mask) connected to cell ``start`` (in it)."""
    one = np.uint64(1)
    w = np.uint64(width)
    reg = one << np.uint64(start)
    while True:
        grown = reg | ((reg << one) & not_left) | ((reg >> one) & not_right) \
            | (reg << w) | (reg >> w)
        grown &= free
        if grown == reg:
            return reg
        reg = grown


@nb.njit(cache=True, inline="always")
def lowest_cell(mask):
    """Index of the lowest set bit of a non-zero mask."""
    return popcount64((mask & (~mask + np.uint64(1))) - np.uint64(1))


@nb.njit(cache=True)
def pattern_is_goal(params, rank):
    """The pattern's tiles home, the blank in cell 0's region."""
    return rank == params.goal_rank


@nb.njit(cache=True)
def pattern_neighbours(params, rank, out, work):
    """Every abstract state one pattern-tile move away (moves are reversible)."""
    n, k, n_free = params.ncells, params.k, params.n_free
    one = np.uint64(1)
    cells = work[:k]
    unrank_partial(rank // n_free, k, n, cells)
    occupied = np.uint64(0)
    for i in range(k):
        occupied |= one << np.uint64(cells[i])
    free = params.full & ~occupied
    # the blank's representative: the j-th free cell
    j = rank % n_free
    blank = 0
    while True:
        if (free >> np.uint64(blank)) & one:
            if j == 0:
                break
            j -= 1
        blank += 1
    reach = region(blank, free, params.width, params.not_left, params.not_right)
    count = 0
    for i in range(k):
        p = cells[i]
        for d in range(4):
            q = params.step[p, d]
            if q < 0 or not (reach >> np.uint64(q)) & one:
                continue
            # tile i slides p -> q; the blank is now on p
            new_free = (free & ~(one << np.uint64(q))) | (one << np.uint64(p))
            rep = lowest_cell(region(p, new_free, params.width, params.not_left,
                                     params.not_right))
            below_taken = popcount64(~new_free & params.full
                                     & ((one << np.uint64(rep)) - one))
            cells[i] = q
            out[count] = rank_partial(cells, k, n) * n_free + rep - below_taken
            cells[i] = p
            count += 1
    return count


register_abstraction(PatternParams, is_goal=pattern_is_goal, neighbours=pattern_neighbours)
