"""Jitted Hakoiri lower bounds: the 2x2's distance on an empty board and the
relaxed-problem pattern database (:mod:`.abstraction`)."""

from __future__ import annotations

import numba as nb
import numpy as np

from ..pdb.builder import UNREACHABLE
from ..puzzle import DEAD
from .kernels import decode, find_square
from .vocabulary import SIMPLE, STRAIGHT, UNIT, ZERO


@nb.njit(cache=True, inline="always")
def square_distance(metric, width, a, b):
    """Moves the 2×2 needs from anchor ``a`` to ``b`` on an empty board."""
    ax, ay, bx, by = a % width, a // width, b % width, b // width
    if metric == UNIT:
        return abs(ax - bx) + abs(ay - by)
    if metric == STRAIGHT:
        return (ax != bx) + (ay != by)
    return 1 if a != b else 0


@nb.njit(cache=True, inline="always")
def pdb_rank(params, key):
    """Index of the relaxed state of ``key`` in the pattern database (see
    :mod:`pdbsearch.hakoiri.abstraction`): 2×2 position × C(free cells, empties)
    + rank of the empty cells among the cells the 2×2 does not cover."""
    width = params.width
    ncells = width * params.height
    square = find_square(width, ncells, key)
    position = (square // width) * (width - 1) + square % width
    owner = params.work[:ncells]
    shape_at = params.work[ncells:2 * ncells]
    decode(width, ncells, key, owner, shape_at)
    free_index = params.pdb_free_index
    binom = params.pdb_binom
    rank = 0
    j = 0
    for c in range(ncells):
        if owner[c] == -1:
            j += 1
            rank += binom[free_index[position, c], j]
    return position * binom[ncells - 4, params.n_empty] + rank


@nb.njit(cache=True)
def heuristic(params, key):
    """Zero, the 2×2's distance to the exit, or the relaxed PDB distance."""
    if params.heuristic == ZERO:
        return 0
    if params.heuristic == SIMPLE:
        square = find_square(params.width, params.width * params.height, key)
        return square_distance(params.metric, params.width, square, params.exit_anchor)
    value = params.pdb[pdb_rank(params, key)]
    if value == UNREACHABLE:
        return DEAD  # unreachable in the relaxation: dead in the real puzzle
    return np.int64(value)
