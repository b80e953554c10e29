"""Jitted Hakoiri kernels: the state key, move generation and the goal test
(the heuristics are in :mod:`.bounds`).

**The key.**  Two bits per cell, cell ``c = row × width + column`` in word
``c // 32`` at bit ``2 × (c % 32)``.  A cell holds the code of the piece
whose top-left corner it is: 0 none (empty, or covered by a piece anchored
elsewhere), 1 a 1×1, 2 a 1×2 (horizontal), 3 a 2×1 (vertical).  The 2×2 is
written as code 3 at its top-left cell *and* at the cell below; a real 2×1
covers the cell below its anchor, so that pair never occurs otherwise.
Pieces of the same shape are anonymous, so the key is canonical, and a board
of ``n`` cells takes ``ceil(2 n / 64)`` words: 8 bytes for the classic 4×5
board, 40 bytes for 8×20, 128 bytes for 16×32.

A move is coded ``from_anchor × 4096 + to_anchor``; its successor key is the
parent key with the piece's code cleared at the old anchor and set at the new
one (the cells a piece covers besides its anchor always hold 0).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..puzzle import copy_key
from .vocabulary import FREE, UNIT

#: Move code of a move: ``from_anchor * MOVE_BASE + to_anchor``.
MOVE_BASE = 4096

SINGLE, HORIZONTAL, VERTICAL, SQUARE = 1, 2, 3, 4
_TWO = np.uint64(3)


class HakoiriParams(NamedTuple):
    """What the Hakoiri kernels need, as seen inside numba."""

    width: int
    height: int
    exit_anchor: int       #: cell of the 2×2's top-left corner when solved
    metric: int            #: a metric code of .vocabulary
    heuristic: int         #: a heuristic code of .vocabulary
    n_empty: int           #: empty cells on the board (constant over play)
    pdb: np.ndarray        #: uint8 relaxed distances (empty when unused)
    pdb_binom: np.ndarray  #: int64 binomial table for ranking empty-cell sets
    pdb_free_index: np.ndarray  #: int16 [2×2 position, cell] -> index among free cells (-1 covered)
    #: int32 scratch (see :func:`scratch_size`): the kernels allocate nothing
    #: per call.  The engines are single-threaded, so one puzzle, one scratch.
    work: np.ndarray


def scratch_size(ncells: int, n_empty: int) -> int:
    """int32 words of the kernels' scratch array."""
    return 4 * ncells + 4 * n_empty


@nb.njit(cache=True, inline="always")
def get_code(key, c):
    """The 2-bit code of cell ``c``."""
    return np.int64((key[c >> 5] >> np.uint64((c & 31) << 1)) & _TWO)


@nb.njit(cache=True, inline="always")
def set_code(key, c, code):
    """Set the 2-bit code of cell ``c`` (which must hold 0)."""
    key[c >> 5] |= np.uint64(code) << np.uint64((c & 31) << 1)


@nb.njit(cache=True, inline="always")
def clear_code(key, c):
    """Set the code of cell ``c`` to 0."""
    key[c >> 5] &= ~(_TWO << np.uint64((c & 31) << 1))


@nb.njit(cache=True, inline="always")
def shape_size(shape):
    """(width, height) of a shape code."""
    if shape == SINGLE:
        return 1, 1
    if shape == HORIZONTAL:
        return 2, 1
    if shape == VERTICAL:
        return 1, 2
    return 2, 2


@nb.njit(cache=True, inline="always")
def decode(width, ncells, key, owner, shape_at):
    """Fill ``owner[c]`` (anchor of the covering piece, -1 if empty) and
    ``shape_at[anchor]``; returns the 2×2's anchor."""
    for c in range(ncells):
        owner[c] = -2
    square = -1
    for c in range(ncells):
        if owner[c] != -2:
            continue
        code = get_code(key, c)
        if code == 0:
            owner[c] = -1
        elif code == SINGLE:
            owner[c] = c
            shape_at[c] = SINGLE
        elif code == HORIZONTAL:
            owner[c] = c
            owner[c + 1] = c
            shape_at[c] = HORIZONTAL
        elif c + width < ncells and get_code(key, c + width) == VERTICAL:
            owner[c] = c
            owner[c + 1] = c
            owner[c + width] = c
            owner[c + width + 1] = c
            shape_at[c] = SQUARE
            square = c
        else:
            owner[c] = c
            owner[c + width] = c
            shape_at[c] = VERTICAL
    return square


@nb.njit(cache=True, inline="always")
def find_square(width, ncells, key):
    """The 2×2's anchor: the first cell (row-major) holding code 3 over code 3."""
    for c in range(ncells - width):
        if get_code(key, c) == VERTICAL and get_code(key, c + width) == VERTICAL:
            return c
    return -1


@nb.njit(cache=True, inline="always")
def _fits(owner, width, height, piece, x, y, w, h):
    if x < 0 or y < 0 or x + w > width or y + h > height:
        return False
    for j in range(h):
        for i in range(w):
            o = owner[(y + j) * width + x + i]
            if o != -1 and o != piece:
                return False
    return True


@nb.njit(cache=True, inline="always")
def _emit(key, a, b, shape, width, out_keys, out_costs, out_moves, n):
    row = out_keys[n]
    copy_key(row, key)
    clear_code(row, a)
    if shape == SQUARE:
        clear_code(row, a + width)
        set_code(row, b, VERTICAL)
        set_code(row, b + width, VERTICAL)
    else:
        set_code(row, b, shape)
    out_costs[n] = 1
    out_moves[n] = a * MOVE_BASE + b
    return n + 1


_DX = np.array([1, -1, 0, 0], dtype=np.int64)
_DY = np.array([0, 0, 1, -1], dtype=np.int64)


# Not inlined into the engines (its helpers are inlined into it): inlined
# at numba's IR level, each engine took 25 to 50 s to compile, and run
# times are the same either way (docs/benchmarks.md, "Compile time").
@nb.njit(cache=True)
def expand(params, key, out_keys, out_costs, out_moves):
    """Every successor of ``key`` under the board's metric (each costs 1)."""
    width, height = params.width, params.height
    ncells = width * height
    work = params.work
    owner = work[:ncells]
    shape_at = work[ncells:2 * ncells]
    seen = work[2 * ncells:3 * ncells]
    queue = work[3 * ncells:4 * ncells]
    candidates = work[4 * ncells:4 * ncells + 4 * params.n_empty]
    decode(width, ncells, key, owner, shape_at)
    # Only a piece touching an empty cell can move: collect those, once each.
    n_cand = 0
    for e in range(ncells):
        if owner[e] != -1:
            continue
        ex, ey = e % width, e // width
        for d in range(4):
            x, y = ex - _DX[d], ey - _DY[d]
            if x < 0 or y < 0 or x >= width or y >= height:
                continue
            piece = owner[y * width + x]
            if piece < 0:
                continue
            known = False
            for k in range(n_cand):
                if candidates[k] == piece:
                    known = True
                    break
            if not known:
                candidates[n_cand] = piece
                n_cand += 1
    n = 0
    metric = params.metric
    if metric == FREE:
        seen[:] = -1
    for k in range(n_cand):
        a = candidates[k]
        shape = shape_at[a]
        w, h = shape_size(shape)
        x0, y0 = a % width, a // width
        if metric == FREE:
            # Free: every anchor reachable by unit slides through empty cells.
            seen[a] = k
            head, tail = 0, 1
            queue[0] = a
            while head < tail:
                p = queue[head]
                head += 1
                px, py = p % width, p // width
                for d in range(4):
                    nx, ny = px + _DX[d], py + _DY[d]
                    if not _fits(owner, width, height, a, nx, ny, w, h):
                        continue
                    b = ny * width + nx
                    if seen[b] == k:
                        continue
                    seen[b] = k
                    queue[tail] = b
                    tail += 1
                    n = _emit(key, a, b, shape, width, out_keys, out_costs, out_moves, n)
        else:
            for d in range(4):
                dist = 1
                while _fits(owner, width, height, a, x0 + dist * _DX[d], y0 + dist * _DY[d], w, h):
                    b = (y0 + dist * _DY[d]) * width + x0 + dist * _DX[d]
                    n = _emit(key, a, b, shape, width, out_keys, out_costs, out_moves, n)
                    if metric == UNIT:
                        break
                    dist += 1
    return n


@nb.njit(cache=True)
def is_goal(params, key):
    """True when the 2×2's top-left cell is the exit.

    Code 3 over code 3 is not enough: with the 2×2 one row *above* the exit
    and a 2×1 anchored right below it, the exit holds the 2×2's lower-left
    cell (3) and the cell below holds the 2×1's anchor (3).  Code 3 on the
    cell above the exit tells that case apart: a 2×1 anchored there would
    cover the exit (code 0), and the 2×2's lower cell there would put a
    2×1 anchor on the exit, whose lower cell holds 0, not 3.  So 3 above
    means the 2×2 is anchored one row higher.
    """
    c = params.exit_anchor
    width = params.width
    if get_code(key, c) != VERTICAL or get_code(key, c + width) != VERTICAL:
        return False
    return c < width or get_code(key, c - width) != VERTICAL
