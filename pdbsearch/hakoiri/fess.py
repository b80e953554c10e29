"""Hakoiri on the FESS protocol (:mod:`pdbsearch.search.fess_protocol`).

A FESS move is one move of the board's metric (already a macro under the
straight and free metrics).  The features, smaller is better:

* ``distance``: the 2×2's relaxed distance to the exit (the relaxed-problem
  PDB's value; the empty-board distance with the ``simple`` heuristic);
* ``blockers``: the pieces covering a cell of the rectangle between the
  2×2 and the exit (both included), which the 2×2 must get past.

Both name the cell; the rank orders by distance, then blockers.  A child
the PDB proves dead is dropped at generation, so the late check has
nothing left to do.  A child's descriptor is its move code.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..puzzle import DEAD, kernel_jit
from ..search.common import move_between
from ..search.fess_protocol import GOAL_CHILD, FessDomain, register_fess_kernels
from .bounds import heuristic
from .kernels import (MOVE_BASE, VERTICAL, HakoiriParams, clear_code, decode,
                      expand as expand_moves, find_square, get_code, is_goal, set_code)
from .vocabulary import ZERO

N_FEATURES = 2
DISTANCE, BLOCKERS = 0, 1


class HakoiriFessParams(NamedTuple):
    """What the Hakoiri FESS kernels need, as seen inside numba."""

    base: HakoiriParams
    costs: np.ndarray      #: int32[M] scratch: move costs
    moves: np.ndarray      #: int64[M] scratch: move codes
    owner: np.ndarray      #: int32[cell] scratch: covering piece
    shape_at: np.ndarray   #: int32[cell] scratch
    mark: np.ndarray       #: int64[cell] scratch: stamps of counted pieces
    counter: np.ndarray    #: int64[1]


@nb.njit(cache=True, inline="always")
def _blockers(fp, key):
    """Pieces other than the 2×2 on the rectangle from the 2×2 to the exit."""
    p = fp.base
    width = p.width
    ncells = width * p.height
    square = decode(width, ncells, key, fp.owner, fp.shape_at)
    sx, sy = square % width, square // width
    ex, ey = p.exit_anchor % width, p.exit_anchor // width
    x0, x1 = min(sx, ex), max(sx, ex) + 1
    y0, y1 = min(sy, ey), max(sy, ey) + 1
    fp.counter[0] += 1
    tag = fp.counter[0]
    count = 0
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            o = fp.owner[y * width + x]
            if o >= 0 and o != square and fp.mark[o] != tag:
                fp.mark[o] = tag
                count += 1
    return count


@nb.njit(cache=True, inline="always")
def _distance(fp, key):
    if fp.base.heuristic == ZERO:
        return 0
    return heuristic(fp.base, key)


@kernel_jit
def expand(fp, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank, out_flags):
    """The moves of ``key`` with their features (the FESS protocol)."""
    d = _distance(fp, key)
    b = _blockers(fp, key)
    self_info[0] = (np.int64(min(d, 1 << 20)) << np.int64(16)) | b
    self_info[1] = min(d, 1 << 15)
    self_info[2] = b
    n = expand_moves(fp.base, key, out_keys, fp.costs, fp.moves)
    m = 0
    for i in range(n):
        d = _distance(fp, out_keys[i])
        if d >= DEAD:
            continue
        if m != i:
            for w in range(out_keys.shape[1]):
                out_keys[m, w] = out_keys[i, w]
        b = _blockers(fp, out_keys[m])
        out_desc[m] = fp.moves[i]
        out_cost[m] = fp.costs[i]
        out_feat[m, DISTANCE] = min(d, 1 << 15)
        out_feat[m, BLOCKERS] = b
        out_rank[m] = (np.int64(d) << np.int64(16)) | b
        out_flags[m] = GOAL_CHILD if is_goal(fp.base, out_keys[m]) else 0
        m += 1
    return m


@kernel_jit
def child_key(fp, parent_key, desc, out):
    """The key after move ``desc`` (``from * MOVE_BASE + to``)."""
    p = fp.base
    width = p.width
    for w in range(out.shape[0]):
        out[w] = parent_key[w]
    a = desc // MOVE_BASE
    b = desc % MOVE_BASE
    if a == find_square(width, width * p.height, parent_key):
        clear_code(out, a)
        clear_code(out, a + width)
        set_code(out, b, VERTICAL)
        set_code(out, b + width, VERTICAL)
    else:
        code = get_code(parent_key, a)
        clear_code(out, a)
        set_code(out, b, code)


@kernel_jit
def late_check(fp, key):
    """Nothing: dead children were dropped when generated."""
    return False


register_fess_kernels(HakoiriFessParams, expand=expand, child_key=child_key,
                      late_check=late_check)


class HakoiriFessDomain(FessDomain):
    """The Python half of Hakoiri's FESS support."""

    n_features = N_FEATURES
    cell_features = N_FEATURES

    def __init__(self, puzzle, limits):
        self.puzzle = puzzle
        n_grid = puzzle.board.width * puzzle.board.height
        self.key_words = puzzle.key_words
        self.max_children = puzzle.max_successors
        m = self.max_children
        self.params = HakoiriFessParams(puzzle.params, np.zeros(m, np.int32),
                                        np.zeros(m, np.int64), np.zeros(n_grid, np.int32),
                                        np.zeros(n_grid, np.int32), np.zeros(n_grid, np.int64),
                                        np.zeros(1, np.int64))

    def codes_between(self, parent_key, child_key) -> list[int]:
        """The one move of an edge."""
        return [move_between(self.puzzle, parent_key, child_key)[0]]
