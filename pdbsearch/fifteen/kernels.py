"""Jitted sliding-tile kernels: the state key, move generation and the goal
test (the heuristics are in :mod:`.bounds`).

**The key.**  The cell of every tile, tile 0 (the blank) first:
``bits = ceil(log2(n))`` bits a tile (4 on the 15-puzzle), as many tiles a
64-bit word as fit (16 on the 15-puzzle: the whole state is one word; the
24-puzzle takes three).  Positions rather than the board (tiles by cell):
the blank's cell is read at once for the moves, and a pattern database
lookup reads exactly the cells of its tiles.  The key is canonical (one
position, one key).

A move is coded ``tile × 4 + direction`` (the direction the tile slides:
0 up, 1 down, 2 left, 3 right, :data:`.model.DIRECTIONS`); its successor is
the parent key with the blank's and the tile's cells swapped.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..puzzle import copy_key

#: The blank's step, per direction a *tile* moves (the blank goes the other way).
_OPPOSITE = (1, 0, 3, 2)


class FifteenParams(NamedTuple):
    """What the sliding-tile kernels need, as seen inside numba."""

    width: int
    height: int
    ncells: int
    bits: int                   #: bits a tile's cell takes in the key
    tile_word: np.ndarray       #: int64 [tile] -> key word holding its cell
    tile_shift: np.ndarray      #: uint64 [tile] -> bit offset in that word
    step: np.ndarray            #: int64 [cell, blank direction] -> neighbour cell, -1 off the board
    goal: np.ndarray            #: uint64 key of the goal
    heuristic: int              #: a heuristic code of .vocabulary
    md: np.ndarray              #: int64 [tile, cell] -> Manhattan distance to its goal cell
    # -- the additive pattern databases (see .bounds) --
    pdb: np.ndarray             #: uint8: every group's table, one after the other
    group_offset: np.ndarray    #: int64 [group] -> first byte of its table in ``pdb``
    group_tiles: np.ndarray     #: int64 [group, i] -> its tiles (-1 padded)
    group_size: np.ndarray      #: int64 [group] -> how many tiles
    nibbles: bool               #: entries are 4-bit excesses over the Manhattan distance
    reflect: bool               #: also look the reflected state up (square boards)
    refl_tile: np.ndarray       #: int64 [tile] -> the tile whose goal is its goal reflected
    refl_cell: np.ndarray       #: int64 [cell] -> the cell reflected about the main diagonal
    #: int64 scratch, the kernels allocate nothing per call (the engines
    #: are single-threaded, so one puzzle, one scratch)
    work: np.ndarray


def key_layout(ncells: int) -> tuple[int, int, int]:
    """(bits a tile, tiles a word, key words) for a board of ``ncells``."""
    bits = max(1, (ncells - 1).bit_length())
    per_word = 64 // bits
    return bits, per_word, -(-ncells // per_word)


def step_table(width: int, height: int) -> np.ndarray:
    """``[cell, d]``: the cell the blank reaches moving opposite to tile
    direction d (up, down, left, right), -1 off the board."""
    table = np.full((width * height, 4), -1, dtype=np.int64)
    moves = ((0, 1), (0, -1), (1, 0), (-1, 0))   # the blank's step when the tile goes u, d, l, r
    for c in range(width * height):
        x, y = c % width, c // width
        for d, (dx, dy) in enumerate(moves):
            if 0 <= x + dx < width and 0 <= y + dy < height:
                table[c, d] = (y + dy) * width + x + dx
    return table


@nb.njit(cache=True, inline="always")
def get_cell(params, key, tile):
    """The cell of ``tile`` (0 = the blank)."""
    mask = (np.uint64(1) << np.uint64(params.bits)) - np.uint64(1)
    return np.int64((key[params.tile_word[tile]] >> params.tile_shift[tile]) & mask)


@nb.njit(cache=True, inline="always")
def set_cell(params, key, tile, cell):
    """Put ``tile`` on ``cell`` in the key."""
    mask = (np.uint64(1) << np.uint64(params.bits)) - np.uint64(1)
    w, s = params.tile_word[tile], params.tile_shift[tile]
    key[w] = (key[w] & ~(mask << s)) | (np.uint64(cell) << s)


@nb.njit(cache=True, inline="always")
def expand(params, key, out_keys, out_costs, out_moves):
    """The (at most 4) successors: each tile next to the blank slides into it."""
    n = params.ncells
    blank = get_cell(params, key, 0)
    # which tile stands on each neighbouring cell: one pass over the tiles
    found = params.work
    for d in range(4):
        found[d] = -1
    for t in range(1, n):
        c = get_cell(params, key, t)
        for d in range(4):
            if params.step[blank, d] == c:
                found[d] = t
    count = 0
    for d in range(4):
        t = found[d]
        if t < 0:
            continue
        c = params.step[blank, d]
        child = out_keys[count]
        copy_key(child, key)
        set_cell(params, child, 0, c)
        set_cell(params, child, t, blank)
        out_costs[count] = 1
        out_moves[count] = t * 4 + d
        count += 1
    return count


@nb.njit(cache=True, inline="always")
def is_goal(params, key):
    """Every tile on its own cell (tile t on cell t, the blank on 0): the
    goal's key, word for word."""
    for i in range(key.shape[0]):
        if key[i] != params.goal[i]:
            return False
    return True
