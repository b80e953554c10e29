"""The abstraction behind a sliding-tile pattern database.

A *pattern* is a group of k tiles; an abstract state keeps where those tiles
stand and where the blank is, every other tile anonymous.  Only moves of the
pattern's tiles count (that is what makes disjoint patterns additive); the
blank moving among the non-pattern cells is free.  So the blank's exact cell
does not matter, only its **region**: the connected set of non-pattern cells
it can reach for free.  The abstract state is then (placement of the k
tiles, region of the blank), and every abstract move costs 1: a pattern
tile next to the blank's region slides into it, and the blank is then in
the region of the cell the tile left.  The table the puzzle uses is the
minimum over the regions (:func:`pdbsearch.pdb.builder.reduce_min`).

Indexing: ``rank(placement) × (n − k) + j``, where the placement is ranked
as a partial permutation (:func:`pdbsearch.pdb.ranking.rank_partial`) and
``j`` is the index of a non-pattern cell, in cell order.  Two ways fill it:

* the generic layered BFS (:mod:`pdbsearch.pdb.builder`) over the unit-cost
  region graph of :func:`pattern_neighbours`, where ``j`` is the smallest
  cell of the blank's region (its representative; the other ``j`` of a
  region stay at 255).  Kept as the reference the tests compare with.
* the builder with this module's own block sweep
  (:func:`pattern_sweep_block`, the default), where entry ``j`` holds the
  distance of the region of cell ``j``: every cell of a region ends with the
  same value.  A layer expands a placement once (not once a region): the
  entries at the layer's depth are spread over their regions with one flood
  fill, the moves out of those regions are found with masks, and each
  child's rank is the parent's plus a change, not ranked anew.

Both give the same table once reduced.  The abstract goal is the pattern's
tiles home and the blank in the region of cell 0 (the blank's goal cell,
never a pattern cell), which the real goal maps to.

Bits: cells are bits of a uint64 (boards of at most 64 cells), and a region
is grown by shifting its mask (a few word operations a step).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..pdb.builder import BLOCK_SHIFT, byte_matches, prefetch, register_abstraction
from ..pdb.ranking import advance_placement, lowest_bit, placements, popcount64, rank_partial, \
    select_bit, unrank_digits, unrank_partial
from ..pdb.store import UNREACHABLE


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
    weight: np.ndarray        #: int64 [i] -> place value of tile i's digit in the rank


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
    weight = np.ones(k, dtype=np.int64)
    for i in range(k - 2, -1, -1):
        weight[i] = weight[i + 1] * (n - i - 1)
    return PatternParams(width, height, n, k, tiles, n - k, goal, np.uint64(full),
                         np.uint64(full & ~left), np.uint64(full & ~right), step, weight)


def table_size(params: PatternParams) -> int:
    """Entries of the build table: placements × (n − k)."""
    return placements(params.ncells, params.k) * params.n_free


def max_neighbours(params: PatternParams) -> int:
    """At most 4 moves a pattern tile."""
    return 4 * params.k


def workspace_size(params: PatternParams) -> int:
    """int64 scratch words of :func:`pattern_neighbours` (the cells)."""
    return params.k


@nb.njit(cache=True, inline="always")
def region(start, free, width, not_left, not_right):
    """The cells of ``free`` (a mask) connected to cell ``start`` (in it)."""
    return spread(np.uint64(1) << np.uint64(start), free, width, not_left, not_right)


@nb.njit(cache=True, inline="always")
def spread(seeds, free, width, not_left, not_right):
    """The cells of ``free`` (a mask) connected to some cell of ``seeds`` (in it)."""
    one = np.uint64(1)
    w = np.uint64(width)
    reg = seeds
    while True:
        grown = reg | ((reg << one) & not_left) | ((reg >> one) & not_right) \
            | (reg << w) | (reg >> w)
        grown &= free
        if grown == reg:
            return reg
        reg = grown


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
    j = rank % n_free
    unrank_partial(rank // n_free, k, n, cells)
    occupied = np.uint64(0)
    for i in range(k):
        occupied |= one << np.uint64(cells[i])
    free = params.full & ~occupied
    # the blank's representative: the j-th free cell
    reach = region(select_bit(free, j), free, params.width, params.not_left,
                   params.not_right)
    count = 0
    for i in range(k):
        p = cells[i]
        for d in range(4):
            q = params.step[p, d]
            if q < 0 or not (reach >> np.uint64(q)) & one:
                continue
            # tile i slides p -> q; the blank is now on p, in the region of p
            new_free = (free & ~(one << np.uint64(q))) | (one << np.uint64(p))
            rep = lowest_bit(region(p, new_free, params.width, params.not_left,
                                    params.not_right))
            cells[i] = q
            out[count] = rank_partial(cells, k, n) * n_free \
                + popcount64(new_free & ((one << np.uint64(rep)) - one))
            cells[i] = p
            count += 1
    return count


@nb.njit(cache=True, inline="always")
def _rank_change(params, tile_at, occupied, i, p, q):
    """How the placement rank changes when tile ``i`` slides from ``p`` to
    ``q``: its digit moves by ``q - p`` less the earlier tiles between them,
    and each later tile between them has one cell more or fewer below it
    (see :func:`~pdbsearch.pdb.ranking.rank_partial`).  A slide along a row
    passes no cell; one along a column passes ``width - 1``."""
    earlier = 0
    later = 0
    # branch-free: the cells between are tested in turn (a free cell's
    # tile_at is stale, and counts for nothing)
    for c in range(min(p, q) + 1, max(p, q)):
        on = np.int64((occupied >> np.uint64(c)) & np.uint64(1))
        t = tile_at[c]
        earlier += on * (t < i)
        later += on * (t > i) * params.weight[t]
    sign = 1 if q > p else -1
    return params.weight[i] * (q - p - sign * earlier) + sign * later


@nb.njit(cache=True, inline="always")
def _moves(params, prank, tile_at, occupied, reach, out):
    """Write into ``out`` the entries (placement, blank cell) one move from
    the blank anywhere in ``reach`` (the union of regions of placement
    ``prank``); returns how many.  The tiles that can move are found with
    masks (the pattern cells next to ``reach``, per direction), so the
    loop runs once a move; the child's rank is the parent's plus a change
    (:func:`_rank_change`), not ranked anew."""
    n_free = params.n_free
    one = np.uint64(1)
    w = np.uint64(params.width)
    free = params.full & ~occupied
    count = 0
    for d in range(4):
        # the cells p whose tile slides into reach: to p - width, p + width, p - 1, p + 1
        if d == 0:
            movers, delta = occupied & (reach << w), -params.width
        elif d == 1:
            movers, delta = occupied & (reach >> w), params.width
        elif d == 2:
            movers, delta = occupied & (reach << one) & params.not_left, -1
        else:
            movers, delta = occupied & (reach >> one) & params.not_right, 1
        while movers:
            p = lowest_bit(movers)
            movers &= movers - one
            q = p + delta
            child = prank + _rank_change(params, tile_at, occupied, tile_at[p], p, q)
            # the blank is now on p: its index among the child's free cells
            child_free = (free & ~(one << np.uint64(q))) | (one << np.uint64(p))
            out[count] = child * n_free + popcount64(child_free & ((one << np.uint64(p)) - one))
            count += 1
    return count


@nb.njit(cache=True, inline="always")
def _open_placement(params, table, prank, held, depth, out, cells, tile_at, digits):
    """Start expanding placement ``prank`` at layer ``depth``: returns
    (entries lowered to ``depth``, moves written into ``out``).

    Here an entry is (placement, the blank's cell) and holds the distance
    of the blank's region, the same for every cell of it: the cells at
    ``depth`` (where moves arrived) are first spread over their regions
    (the free moves of the blank), then every pattern-tile move from those
    regions gives the child's entry of the cell it vacated (prefetched:
    :func:`_settle` looks them up one placement later, by when most have
    arrived from memory).  So one flood fill a placement and layer, none a
    move."""
    n, k, n_free = params.ncells, params.k, params.n_free
    one = np.uint64(1)
    # ``held``: the placement ``cells`` holds, -1 none
    if held >= 0 and prank >= held:
        if prank > held:
            advance_placement(digits, cells, k, n, prank - held)
    else:
        unrank_digits(prank, k, n, digits, cells)
    occupied = np.uint64(0)
    for i in range(k):
        occupied |= one << np.uint64(cells[i])
        tile_at[cells[i]] = i
    free = params.full & ~occupied
    base = prank * n_free
    # the cells at depth, then their regions
    # (branch-free loops: which entries match is as good as random)
    arrived = np.uint64(0)
    rest = free
    for j in range(n_free):
        c = rest & (~rest + one)
        rest ^= c
        arrived |= c * np.uint64(table[base + j] == depth)
    reach = spread(arrived, free, params.width, params.not_left, params.not_right)
    lowered = 0
    rest = free
    for j in range(n_free):
        c = rest & (~rest + one)
        rest ^= c
        # a cell of reach holds depth; a move may have put depth + 1 there
        # earlier in this layer, before its region was known
        # (stored only when lowered: a store of the value read could undo
        # another thread's mark of a cell outside reach)
        if (reach & c) != np.uint64(0) and table[base + j] > depth:
            table[base + j] = depth
            lowered += 1
    moves = _moves(params, prank, tile_at, occupied, reach, out)
    for m in range(moves):
        prefetch(table, out[m])
    return lowered, moves


@nb.njit(cache=True, inline="always")
def _settle(table, out, moves, value, dirty_next, n_free):
    """Mark ``value`` on the unvisited entries ``out[:moves]``; returns how many.

    Branch-free (a store either way): the loads are independent, so the
    processor overlaps whatever cache misses are left."""
    count = 0
    for m in range(moves):
        s = out[m]
        fresh = table[s] == UNREACHABLE
        table[s] = value if fresh else table[s]
        # flagged: the block of the placement's first entry, where it is
        # swept, which is the block of s or the one before (no division)
        dirty_next[s >> BLOCK_SHIFT] |= np.uint8(fresh)
        dirty_next[max(s - n_free + 1, 0) >> BLOCK_SHIFT] |= np.uint8(fresh)
        count += fresh
    return count


@nb.njit(cache=True)
def pattern_sweep_block(params, table, words, b, depth, value, dirty_next, out, work):
    """The builder's block sweep (:func:`pdbsearch.pdb.builder.sweep_block`)
    for patterns: a block owns the placements whose first entry lies in it;
    each placement with an entry at ``depth`` is unranked once (or stepped
    to from the last one) and all its regions at ``depth`` are expanded.

    With several threads (interleaved blocks, see
    :func:`~pdbsearch.pdb.builder.next_layer`) a race can leave a cell of a
    region at ``depth + 1`` where its region's other cells hold ``depth``
    (a move marked it while its region was being lowered): harmless, since
    the cells the layer arrived at hold ``depth`` (so the minimum over the
    placement is right) and every move out of that region was made in this
    layer (so the cell's expansion at the next layer marks nothing).  No
    store writes back 255, so no mark is ever lost."""
    n, k, n_free = params.ncells, params.k, params.n_free
    # scratch of the block: the placement held (its cells, digits, the tile on each cell)
    cells = np.empty(k, dtype=np.int64)
    tile_at = np.zeros(n, dtype=np.int64)
    digits = np.empty(k, dtype=np.int64)
    # two buffers of moves: this placement's, and the last one's, pending
    moves_now = np.empty(4 * k, dtype=np.int64)
    pending = np.empty(4 * k, dtype=np.int64)
    n_pending = 0
    held = -1
    size = table.shape[0]
    start = b << BLOCK_SHIFT
    end = min(start + (1 << BLOCK_SHIFT), size)
    first = (start + n_free - 1) // n_free * n_free     # first entry of the first placement
    last = min((end + n_free - 1) // n_free * n_free, size)
    pattern = np.uint64(depth) * np.uint64(0x0101010101010101)
    inverse = 1.0 / n_free
    count = 0
    r = first
    w_end = min(last >> 3, words.shape[0])
    while r < last:
        # the next entry at depth: eight at a time over whole words (the
        # bytes below r masked off), then byte by byte in the tail
        w = r >> 3
        if w < w_end:
            hits = byte_matches(words[w], pattern) & (~np.uint64(0) << np.uint64(8 * (r & 7)))
            if not hits:
                r = (w + 1) << 3
                continue
            r = (w << 3) + (lowest_bit(hits) >> 3)
        elif table[r] != depth:
            r += 1
            continue
        # r // n_free without a division (exact after the correction)
        prank = np.int64(r * inverse)
        prank += (prank + 1) * n_free <= r
        prank -= prank * n_free > r
        lowered, moves = _open_placement(params, table, prank, held, depth, moves_now, cells,
                                         tile_at, digits)
        count += lowered + _settle(table, pending, n_pending, value, dirty_next, n_free)
        moves_now, pending, n_pending = pending, moves_now, moves
        held = prank
        r = (prank + 1) * n_free      # its other entries were handled with it
    return count + _settle(table, pending, n_pending, value, dirty_next, n_free)


def pattern_goals(params: PatternParams) -> list[int]:
    """The one abstract goal (see :func:`pattern_is_goal`)."""
    return [params.goal_rank]


register_abstraction(PatternParams, is_goal=pattern_is_goal, neighbours=pattern_neighbours,
                     sweep_block=pattern_sweep_block, goals=pattern_goals)
