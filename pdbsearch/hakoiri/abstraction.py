"""The relaxed Hakoiri problem of seed 003, the abstraction behind its PDB.

Every size-2 piece is split into two 1×1 pieces, so a relaxed state is only
*where the 2×2 stands* and *which cells are empty*; every other cell holds an
anonymous 1×1 piece.  A relaxed move, under the same metric as the real
puzzle, slides one of:

* the 2×2;
* one 1×1 piece;
* two adjacent 1×1 pieces together, in the same direction by the same
  distance (what a split domino did in the real puzzle).

Every real move is one relaxed move, so the relaxed distance is an
admissible and consistent heuristic, and a real state whose relaxed state
cannot reach the goal is dead.  The relaxed state space depends only on the
board size, the exit, the number of empty cells and the metric, so one PDB
serves every puzzle of that geometry.

Indexing: ``position × C(n_free, n_empty) + rank(empty cells)``, where
``position = row × (width − 1) + column`` of the 2×2 (``(width−1)(height−1)``
positions), ``n_free = width × height − 4``, and the empty cells are ranked
by their index among the cells the 2×2 does not cover (combinatorial number
system).  One byte per entry, no unused entries.
"""

from __future__ import annotations

from math import comb
from typing import NamedTuple

import numba as nb
import numpy as np

from ..pdb.builder import register_abstraction
from ..pdb.ranking import binomial_table, unrank_subset
from .vocabulary import FREE, METRICS, UNIT


class RelaxedParams(NamedTuple):
    """What the relaxed-problem kernels need."""

    width: int
    height: int
    exit_position: int        #: position index of the 2×2 at the exit
    metric: int               #: a metric code of .vocabulary
    n_empty: int
    n_free: int               #: width × height − 4
    n_combos: int             #: C(n_free, n_empty)
    binom: np.ndarray         #: int64 binomial table
    free_index: np.ndarray    #: int16 [position, cell] -> index among free cells, -1 if covered
    free_cell: np.ndarray     #: int16 [position, index] -> cell
    cell_x: np.ndarray        #: int64 [cell] -> column (no division in the hot loop)
    cell_y: np.ndarray        #: int64 [cell] -> row


def ranking_tables(width: int, height: int, n_empty: int) -> tuple[np.ndarray, np.ndarray]:
    """(binomial table, free-index table) shared by the builder and the search."""
    ncells = width * height
    positions = (width - 1) * (height - 1)
    free_index = np.full((positions, ncells), -1, dtype=np.int16)
    for p in range(positions):
        x, y = p % (width - 1), p // (width - 1)
        covered = {(y + j) * width + x + i for j in range(2) for i in range(2)}
        j = 0
        for c in range(ncells):
            if c not in covered:
                free_index[p, c] = j
                j += 1
    return binomial_table(ncells - 4, n_empty), free_index


def relaxed_params(width: int, height: int, exit_xy: tuple[int, int], n_empty: int,
                   metric: str) -> RelaxedParams:
    """The params of the relaxed problem of a board geometry."""
    binom, free_index = ranking_tables(width, height, n_empty)
    positions, ncells = free_index.shape
    free_cell = np.zeros((positions, ncells - 4), dtype=np.int16)
    for p in range(positions):
        cells = np.nonzero(free_index[p] >= 0)[0]
        free_cell[p, :] = cells
    cells = np.arange(ncells, dtype=np.int64)
    return RelaxedParams(width, height, exit_xy[1] * (width - 1) + exit_xy[0],
                         METRICS.code(metric), n_empty, ncells - 4,
                         comb(ncells - 4, n_empty), binom, free_index, free_cell,
                         cells % width, cells // width)


def table_size(params: RelaxedParams) -> int:
    """Entries of the table: positions × C(n_free, n_empty)."""
    return (params.width - 1) * (params.height - 1) * params.n_combos


def max_neighbours(params: RelaxedParams) -> int:
    """A bound on the relaxed moves from one state."""
    e = params.n_empty
    return (1 + 16 * e) * (4 * e + 8)


def workspace_size(params: RelaxedParams) -> int:
    """int64 scratch words :func:`relaxed_neighbours` needs."""
    ncells = params.width * params.height
    return _W_FIXED + 3 * ncells + 60 * params.n_empty + 4 * params.n_empty


# Layout of the scratch array: [stamp, grid (ncells), seen stamps (ncells),
# queue (ncells), bodies (20 e × 3), empties (e), idx (e), new (e), sort (e)]
_W_FIXED = 1


# --------------------------------------------------------------------------
# Jitted kernels

EMPTY, PIECE, SQUARE = 1, 0, 2


@nb.njit(cache=True)
def relaxed_is_goal(params, rank):
    """The 2×2 stands at the exit."""
    return rank // params.n_combos == params.exit_position


@nb.njit(cache=True, inline="always")
def _rank_of(position, empties, n, idx, n_combos, binom, free_index):
    """Rank of (position, the ``n`` cells in ``empties``), sorting their
    indices in the scratch array ``idx``."""
    for i in range(n):
        v = np.int64(free_index[position, empties[i]])
        j = i
        while j > 0 and idx[j - 1] > v:
            idx[j] = idx[j - 1]
            j -= 1
        idx[j] = v
    r = position * n_combos
    for i in range(n):
        r += binom[idx[i], i + 1]
    return r


# The helpers below take scalars and plain arrays, never the params tuple:
# passing a tuple of arrays to a function costs a reference count update
# per array per call, which made the builder five times slower.

@nb.njit(cache=True, inline="always")
def _inside(cx, cy, x, y, w, h):
    """Cell (cx, cy) is covered by a w × h body at (x, y)."""
    return x <= cx < x + w and y <= cy < y + h


@nb.njit(cache=True, inline="always")
def _fits(grid, width, height, ax, ay, w, h, x, y):
    """The body now at (ax, ay), w × h, fits at column x, row y."""
    if x < 0 or y < 0 or x + w > width or y + h > height:
        return False
    for j in range(h):
        for i in range(w):
            if grid[(y + j) * width + x + i] != EMPTY and not _inside(x + i, y + j, ax, ay, w, h):
                return False
    return True


_DX = np.array([1, -1, 0, 0], dtype=np.int64)
_DY = np.array([0, 0, 1, -1], dtype=np.int64)


@nb.njit(cache=True, inline="always")
def _slides(grid, width, height, metric, empties, e, position, ax, ay, w, h, is_square,
            n_combos, binom, free_index, cell_x, cell_y, work, out, n):
    """Emit the rank of every state reached by one move of one body."""
    ncells = width * height
    base = 1 + 3 * ncells + 60 * e
    new = work[base + 2 * e:base + 3 * e]
    idx = work[base + 3 * e:base + 4 * e]
    seen = work[1 + ncells:1 + 2 * ncells]
    queue = work[1 + 2 * ncells:1 + 3 * ncells]
    if metric == FREE:
        # "seen" holds stamps: a fresh stamp per body avoids clearing it.
        work[0] += 1
        stamp = work[0]
        seen[ay * width + ax] = stamp
        queue[0] = ay * width + ax
        head, tail = 0, 1
    else:
        stamp, head, tail = 0, 0, 0
    d = 0
    dist = 1
    while True:
        # Next target (tx, ty): BFS order for free, rays for unit/straight.
        if metric == FREE:
            if d == 4:
                d = 0
                head += 1
            if head >= tail:
                return n
            p = queue[head]
            tx, ty = cell_x[p] + _DX[d], cell_y[p] + _DY[d]
            d += 1
            if not _fits(grid, width, height, ax, ay, w, h, tx, ty):
                continue
            b = ty * width + tx
            if seen[b] == stamp:
                continue
            seen[b] = stamp
            queue[tail] = b
            tail += 1
        else:
            if d == 4:
                return n
            tx, ty = ax + dist * _DX[d], ay + dist * _DY[d]
            if not _fits(grid, width, height, ax, ay, w, h, tx, ty) or \
                    (metric == UNIT and dist > 1):
                d += 1
                dist = 1
                continue
            dist += 1
        # (old empties ∪ old body) minus the new body
        k = 0
        for i in range(e):
            c = empties[i]
            if not _inside(cell_x[c], cell_y[c], tx, ty, w, h):
                new[k] = c
                k += 1
        for j in range(h):
            for i in range(w):
                if not _inside(ax + i, ay + j, tx, ty, w, h):
                    new[k] = (ay + j) * width + ax + i
                    k += 1
        pos = ty * (width - 1) + tx if is_square else position
        out[n] = _rank_of(pos, new, e, idx, n_combos, binom, free_index)
        n += 1


@nb.njit(cache=True)
def relaxed_neighbours(params, rank, out, work):
    """Every relaxed state one move away (moves are reversible)."""
    width, height, metric = params.width, params.height, params.metric
    e, n_combos = params.n_empty, params.n_combos
    binom, free_index = params.binom, params.free_index
    cell_x, cell_y = params.cell_x, params.cell_y
    ncells = width * height
    position = rank // n_combos
    grid = work[1:1 + ncells]                   # PIECE (0) everywhere between calls
    base = 1 + 3 * ncells
    bodies = work[base:base + 60 * e]
    empties = work[base + 60 * e:base + 61 * e]
    idx = work[base + 61 * e:base + 62 * e]
    unrank_subset(binom, params.n_free, rank % n_combos, idx)
    for i in range(e):
        empties[i] = params.free_cell[position, idx[i]]
        grid[empties[i]] = EMPTY
    sx, sy = position % (width - 1), position // (width - 1)
    for j in range(2):
        for i in range(2):
            grid[(sy + j) * width + sx + i] = SQUARE

    n = _slides(grid, width, height, metric, empties, e, position, sx, sy, 2, 2, True,
                n_combos, binom, free_index, cell_x, cell_y, work, out, 0)
    # Bodies touching an empty cell: 1x1 pieces and adjacent pairs of them.
    nb_bodies = 0
    for i in range(e):
        ex, ey = cell_x[empties[i]], cell_y[empties[i]]
        for d in range(4):
            px, py = ex - _DX[d], ey - _DY[d]
            if px < 0 or py < 0 or px >= width or py >= height:
                continue
            c = py * width + px
            if grid[c] != PIECE:
                continue
            # the 1x1 itself, then the pairs it makes with a piece beside it
            for k in range(5):
                if k == 0:
                    bx, by, w, h = px, py, 1, 1
                else:
                    qx, qy = px + _DX[k - 1], py + _DY[k - 1]
                    if qx < 0 or qy < 0 or qx >= width or qy >= height:
                        continue
                    if grid[qy * width + qx] != PIECE:
                        continue
                    bx, by = min(px, qx), min(py, qy)
                    w, h = (2, 1) if qy == py else (1, 2)
                anchor = by * width + bx
                known = False
                for b in range(nb_bodies):
                    if bodies[3 * b] == anchor and bodies[3 * b + 1] == w \
                            and bodies[3 * b + 2] == h:
                        known = True
                        break
                if known:
                    continue
                bodies[3 * nb_bodies] = anchor
                bodies[3 * nb_bodies + 1] = w
                bodies[3 * nb_bodies + 2] = h
                nb_bodies += 1
                n = _slides(grid, width, height, metric, empties, e, position, bx, by, w, h,
                            False, n_combos, binom, free_index, cell_x, cell_y, work, out, n)
    # Leave the grid all PIECE for the next call.
    for i in range(e):
        grid[empties[i]] = PIECE
    for j in range(2):
        for i in range(2):
            grid[(sy + j) * width + sx + i] = PIECE
    return n


register_abstraction(RelaxedParams, is_goal=relaxed_is_goal, neighbours=relaxed_neighbours)
