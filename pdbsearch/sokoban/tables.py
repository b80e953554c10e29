"""Static tables of a level, computed once in Python before a search.

* **Cell indexing.**  The kernels work on grid cells (``row * width +
  col``).  The *region* is every cell a box or the player can ever occupy:
  the player's area with boxes ignored, plus the start boxes and the goals
  (which, in a valid level, are normally inside it).  Region cells always
  have their four neighbours inside the grid (see :mod:`.level`), and every
  non-region cell acts as a wall: a floor cell outside the region is sealed
  off from the player and from every box that can move.
* **The key layout** (:class:`KeyLayout`): one bit per *box cell* (the
  region cells a box may stand on) and, in the high bits of the last word,
  the player's index among the region cells.
* **Push distances**: ``dist[g, c]`` is the number of pushes a lone box
  needs from cell ``c`` to goal ``g`` when the player may teleport (it
  still needs room to stand behind the box).  They are found backwards, by
  pulling a box from the goal.  A cell from which no goal can be reached is
  a *dead square*.
* **Player-aware push distances**: ``side_dist[g, c, k]`` is the same for
  a lone box at ``c`` with the player next to it on side ``k`` (LURD
  order), where the player walks around the box only through the floor.
  ``side_comp[i, x]`` labels the connected parts of the region without its
  ``i``-th cell, so the sides of a box the player can get to, other boxes
  ignored, are those in the player's part.  Both are computed in numba.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache

import numba as nb
import numpy as np

from .model import Level

#: Push distance of a cell from which a goal cannot be reached.
UNREACHABLE = 1 << 20
#: Largest (region cells x grid cells) for the player-aware tables (int16
#: each: 32 MiB); bigger levels use the plain push distances.
AWARE_TABLE_LIMIT = 16 << 20


def region_cells(level: Level) -> list[int]:
    """The sorted cells a box or the player can ever occupy (see module doc)."""
    return sorted(level.playable_cells() | level.boxes | level.goals)


def grid_deltas(width: int) -> np.ndarray:
    """Index offsets of the four directions in LURD order."""
    return np.array([-1, -width, 1, width], dtype=np.int64)


# The board's static tables are asked again for the same board: by the
# pattern tables' set-up (five times on a level), and by every stretch the
# shortening re-solves (its segments share the board).  A few boards'
# worth is kept (by what decides them), and each caller gets its own copy.
_BOARDS_KEPT = 8


def pull_distances(level: Level, region: list[int]) -> np.ndarray:
    """``dist[g, c]``: pushes a lone box needs from cell ``c`` to the
    ``g``-th goal (goals in increasing cell order), :data:`UNREACHABLE`
    when it cannot get there.

    Found by a breadth-first search per goal over *pulls*: a box at ``y``
    can have come from ``x = y - d`` if the player could stand at
    ``x - d`` to push it; both must be region cells.  (Sasquatch5 50's, 240
    goals over 525 cells, takes a quarter of a second.)
    """
    return _pull_distances(level.width, level.width * level.height,
                           tuple(sorted(level.goals)), tuple(region)).copy()


@lru_cache(maxsize=_BOARDS_KEPT)
def _pull_distances(width: int, n_grid: int, goals: tuple, region: tuple) -> np.ndarray:
    inside = np.zeros(n_grid, dtype=bool)
    inside[list(region)] = True
    deltas = grid_deltas(width)
    dist = np.full((len(goals), n_grid), UNREACHABLE, dtype=np.int32)
    for g, goal in enumerate(goals):
        row = dist[g]
        row[goal] = 0
        todo = deque([goal])
        while todo:
            y = todo.popleft()
            for d in deltas:
                x = y - d
                if inside[x] and inside[x - d] and row[x] == UNREACHABLE:
                    row[x] = row[y] + 1
                    todo.append(x)
    return dist


def player_aware_tables(inside: np.ndarray, region: list[int], goal_cells: np.ndarray,
                        deltas: np.ndarray, region_index: np.ndarray):
    """``(available, side_comp, side_dist)``: the player-aware tables (see
    the module doc), or placeholders and ``available = False`` on a level
    too big for them."""
    if len(region) * inside.shape[0] > AWARE_TABLE_LIMIT:
        return False, np.zeros((1, 1), np.int16), np.zeros((1, 1, 4), np.int32)
    comp = side_components(inside, np.array(region, dtype=np.int64), deltas)
    dist = side_distances(inside, goal_cells.astype(np.int64), deltas, comp, region_index)
    return True, comp, dist


@nb.njit(cache=True, inline="always")
def flood_smallest(start, occ, inside, deltas, mark, tag, stack):
    """Stamp ``tag`` in ``mark`` on the cells reachable from ``start``
    through ``inside`` cells not in ``occ`` (``stack``: scratch); returns the
    smallest of them, which names the area (the player's normalised cell)."""
    mark[start] = tag
    stack[0] = start
    n = 1
    best = start
    while n > 0:
        n -= 1
        c = stack[n]
        if c < best:
            best = c
        for d in range(4):
            x = c + deltas[d]
            if inside[x] != 0 and occ[x] == 0 and mark[x] != tag:
                mark[x] = tag
                stack[n] = x
                n += 1
    return best


@nb.njit(cache=True)
def side_components(inside, region, deltas):
    """``comp[i, x]``: a label (>= 1) of the part of the region, without its
    cell ``region[i]``, that holds grid cell ``x`` (0 for ``region[i]`` and
    non-region cells).  The player standing at ``x`` and a lone box at
    ``region[i]``: the player can walk to exactly the cells with the same
    label."""
    n = region.shape[0]
    comp = np.zeros((n, inside.shape[0]), dtype=np.int16)
    queue = np.empty(inside.shape[0], dtype=np.int64)
    for i in range(n):
        b = region[i]
        row = comp[i]
        lab = 0
        for s in range(n):
            seed = region[s]
            if seed == b or row[seed] != 0:
                continue
            lab += 1
            row[seed] = lab
            queue[0] = seed
            head, tail = 0, 1
            while head < tail:
                c = queue[head]
                head += 1
                for k in range(4):
                    x = c + deltas[k]
                    if inside[x] and x != b and row[x] == 0:
                        row[x] = lab
                        queue[tail] = x
                        tail += 1
    return comp


@nb.njit(cache=True)
def side_distances(inside, goals, deltas, comp, region_index):
    """``dist[g, c, k]``: pushes a lone box at ``c`` needs to reach goal
    ``goals[g]`` with the player on side ``k`` of it (at ``c + deltas[k]``),
    UNREACHABLE if it cannot.

    Breadth-first backwards from the goals over (box cell, player side):
    the player changes side for free within its part of the floor (the
    sides with the same ``comp`` label), and the position (``c``, ``k``)
    comes by one push from (``c + deltas[k]``, ``k``) if the player could
    stand at ``c + 2 deltas[k]``.
    """
    n_grid = inside.shape[0]
    dist = np.full((goals.shape[0], n_grid, 4), UNREACHABLE, dtype=np.int32)
    queue = np.empty(4 * n_grid, dtype=np.int64)
    for g in range(goals.shape[0]):
        d = dist[g]
        goal = goals[g]
        tail = 0
        for k in range(4):
            if inside[goal + deltas[k]] and d[goal, k] == UNREACHABLE:
                tail = _settle(d, goal, k, 0, inside, deltas, comp, region_index, queue, tail)
        head = 0
        while head < tail:
            c, k = divmod(queue[head], 4)
            head += 1
            prev = c + deltas[k]
            if inside[prev] and inside[prev + deltas[k]] and d[prev, k] == UNREACHABLE:
                tail = _settle(d, prev, k, d[c, k] + 1, inside, deltas, comp, region_index,
                               queue, tail)
    return dist


@nb.njit(cache=True)
def _settle(d, c, k, value, inside, deltas, comp, region_index, queue, tail):
    """Give (``c``, ``k``) and every side of ``c`` the player reaches from
    it their distance ``value``, and queue them (together, which keeps the
    queue in BFS order); returns the new queue end."""
    row = comp[region_index[c]]
    label = row[c + deltas[k]]
    for k2 in range(4):
        x = c + deltas[k2]
        if inside[x] and d[c, k2] == UNREACHABLE and (k2 == k or row[x] == label):
            d[c, k2] = value
            queue[tail] = c * 4 + k2
            tail += 1
    return tail


def tunnel_axes(level: Level, region: list[int]) -> np.ndarray:
    """For each grid cell: 1 (or 2) if it is a *one-way tunnel cell* along
    the horizontal (vertical) axis, else 0.

    A tunnel cell ``c`` along an axis has region cells on both sides along
    that axis, non-region cells (walls) on both sides across it, and is a
    cut vertex: without ``c``, its two neighbours are not connected.  A box
    on such a cell can only move along the axis, and it splits the level in
    two: the player cannot get from one side to the other while it is there.
    """
    return _tunnel_axes(level.width, level.width * level.height, tuple(region)).copy()


@lru_cache(maxsize=_BOARDS_KEPT)
def _tunnel_axes(width: int, n_grid: int, region: tuple) -> np.ndarray:
    inside = np.zeros(n_grid, dtype=bool)
    inside[list(region)] = True
    axes = np.zeros(inside.size, dtype=np.int8)
    deltas = grid_deltas(width)
    for c in region:
        for axis, (along, across) in enumerate(((1, width), (width, 1)), start=1):
            if (inside[c - along] and inside[c + along]
                    and not inside[c - across] and not inside[c + across]
                    and not _connected_without(inside, deltas, c - along,
                                               c + along, c)):
                axes[c] = axis
    return axes


def _connected_without(inside: np.ndarray, deltas: np.ndarray, a: int, b: int,
                       removed: int) -> bool:
    """True if region cells ``a`` and ``b`` are connected avoiding ``removed``."""
    seen = {a, removed}
    todo = [a]
    while todo:
        c = todo.pop()
        if c == b:
            return True
        for d in deltas:
            n = c + int(d)
            if inside[n] and n not in seen:
                seen.add(n)
                todo.append(n)
    return False


@dataclass(frozen=True)
class KeyLayout:
    """Where a position's boxes and player go in the ``uint64`` key.

    Box cell ``box_cells[i]`` is bit ``i`` (word ``i // 64``); the player's
    index among ``region`` is stored in the top ``player_bits`` bits of the
    last word.  Cells a box can never stand on (dead squares, when they are
    pruned) get no bit, which keeps most Microban keys to one word.
    """

    region: tuple[int, ...]       #: sorted region cells; player index -> cell
    box_cells: tuple[int, ...]    #: bit -> cell
    player_bits: int
    words: int

    @classmethod
    def build(cls, region: list[int], box_cells: list[int]) -> KeyLayout:
        """The layout for these region and box cells."""
        player_bits = max(1, (len(region) - 1).bit_length())
        words = (len(box_cells) + player_bits + 63) // 64
        return cls(tuple(region), tuple(sorted(box_cells)), player_bits, words)

    @property
    def player_shift(self) -> int:
        """Bit position of the player field inside the last word."""
        return 64 - self.player_bits

    def encode(self, boxes, player_index: int) -> np.ndarray:
        """The key of a position (plain Python, used for the start and tests)."""
        bit_of = {c: i for i, c in enumerate(self.box_cells)}
        key = np.zeros(self.words, dtype=np.uint64)
        for cell in boxes:
            if cell not in bit_of:
                raise ValueError(f"cell {cell} cannot hold a box in this layout")
            i = bit_of[cell]
            key[i >> 6] |= np.uint64(1 << (i & 63))
        key[-1] |= np.uint64(player_index << self.player_shift)
        return key

    def decode(self, key: np.ndarray) -> tuple[frozenset[int], int]:
        """``(box cells, player cell)`` of a key."""
        boxes = frozenset(c for i, c in enumerate(self.box_cells)
                          if (int(key[i >> 6]) >> (i & 63)) & 1)
        player = self.region[int(key[-1]) >> self.player_shift]
        return boxes, player
