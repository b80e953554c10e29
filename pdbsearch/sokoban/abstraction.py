"""The relaxed Sokoban problem behind the pattern databases: k boxes alone.

Keep ``k`` of the boxes and remove the others.  An abstract state is *the
cells of the k boxes, as a set* (boxes are interchangeable) and *the
player's area* among them; it is a goal when every one of the k boxes
stands on a goal -- any k of the level's goals.  Every real push moves one
box, and removing boxes never blocks a push or a walk, so the pushes of the
k kept boxes in a real solution solve the abstract problem: the abstract
distance (in pushes) is a lower bound on the pushes those boxes need, and
the bounds of *disjoint* groups of boxes add up (see :mod:`.kernels`).  A
state from which no abstract goal can be reached proves every real state
holding those k boxes and that player area dead.

The distances come from the generic builder (:mod:`pdbsearch.pdb.builder`):
a breadth-first search from every abstract goal whose "neighbours" are the
*pulls* (the predecessors under a push), so the BFS depth is the number of
pushes to a goal.

**The index.**  ``player index × C(B, k) + rank(box cells)``: the k box cells are
ranked (combinatorial number system) among the ``B`` *live* region cells
(cells from which a lone box can reach a goal: a box never stands anywhere
else once dead squares are pruned, and a box on a dead square is dead
anyway), and the player is its index among the ``R`` region cells (the
same index as in the search keys).  The BFS stores each area once, at its
smallest cell; a last pass (:func:`fill_areas`) copies the value to every
cell of the area, so a lookup is one multiply-add with the player's cell as
it is in the key -- no flood fill per pattern in the search, which asks
for dozens of patterns per state.  The player comes first because the
patterns asked for one state (and for its siblings, whose normalised
player is mostly the same cell) then lie in one slice of ``C(B, k)``
bytes, which stays in the cache: the other order made the search with
4-box tables about twice slower.  One byte per entry, ``C(B, k) × R``
entries; entries whose player cell is one of the boxes are never used
(they stay 255).
"""

from __future__ import annotations

import time
from math import comb
from typing import NamedTuple

import numba as nb
import numpy as np

from ..pdb.builder import build_table, register_abstraction
from ..pdb.ranking import binomial_table, unrank_subset
from .model import Level
from .tables import UNREACHABLE as NO_PATH
from .tables import flood_smallest, grid_deltas, pull_distances, region_cells

#: Largest pattern size.
MAX_K = 4


class PatternParams(NamedTuple):
    """What the k-box abstraction's kernels need."""

    k: int
    n_cells: int              #: B: live region cells (where the k boxes may stand)
    n_player: int             #: R: region cells (where the player may stand)
    binom: np.ndarray         #: int64[B + 1, k + 1] binomial table
    pat_cell: np.ndarray      #: int64[B]: pattern index -> grid cell
    pat_index: np.ndarray     #: int64[grid]: grid cell -> pattern index, -1 if none
    player_index: np.ndarray  #: int64[grid]: grid cell -> region index, -1 if none
    player_cell: np.ndarray   #: int64[R]: region index -> grid cell
    inside: np.ndarray        #: uint8[grid]: 1 on region cells
    goal: np.ndarray          #: uint8[grid]
    deltas: np.ndarray        #: int64[4]: LURD offsets


def live_cells(level: Level, region: list[int] | None = None) -> list[int]:
    """The region cells from which a lone box can reach some goal."""
    region = region_cells(level) if region is None else region
    dist = pull_distances(level, region)
    live = dist.min(axis=0) < NO_PATH
    return [c for c in region if live[c]]


def pattern_params(level: Level, k: int) -> PatternParams:
    """The params of the ``k``-box abstraction of a level."""
    region = region_cells(level)
    cells = live_cells(level, region)
    n_grid = level.width * level.height
    pat_index = np.full(n_grid, -1, dtype=np.int64)
    pat_index[cells] = np.arange(len(cells))
    player_index = np.full(n_grid, -1, dtype=np.int64)
    player_index[region] = np.arange(len(region))
    inside = np.zeros(n_grid, dtype=np.uint8)
    inside[region] = 1
    goal = np.zeros(n_grid, dtype=np.uint8)
    goal[sorted(level.goals)] = 1
    return PatternParams(k=k, n_cells=len(cells), n_player=len(region),
                         binom=binomial_table(len(cells), k),
                         pat_cell=np.array(cells, dtype=np.int64), pat_index=pat_index,
                         player_index=player_index,
                         player_cell=np.array(region, dtype=np.int64),
                         inside=inside, goal=goal, deltas=grid_deltas(level.width))


def table_entries(n_cells: int, n_player: int, k: int) -> int:
    """Entries of a k-box table: ``C(B, k) × R``."""
    return comb(n_cells, k) * n_player


def workspace_size(params: PatternParams) -> int:
    """Length of the int64 scratch array of :func:`pattern_neighbours`."""
    return 2 * params.k + 4 * params.inside.shape[0] + 1


@nb.njit(cache=True)
def pattern_is_goal(params, rank):
    """True when every kept box is on a goal (and the player is not on one
    of them: such entries are unused).  Every area of a goal set is a goal;
    the entries that are not an area's smallest cell are harmless seeds
    (their pulls are those of the area)."""
    n_sets = params.binom[params.n_cells, params.k]
    s = rank % n_sets
    player = params.player_cell[rank // n_sets]
    c = params.n_cells - 1
    for i in range(params.k, 0, -1):
        while params.binom[c, i] > s:
            c -= 1
        cell = params.pat_cell[c]
        if params.goal[cell] == 0 or cell == player:
            return False
        s -= params.binom[c, i]
        c -= 1
    return True


@nb.njit(cache=True)
def pattern_neighbours(params, rank, out, work):
    """The abstract states one *pull* away from ``rank`` (its predecessors
    under a push), each with its player normalised to the smallest cell of
    its area.  A pull of the box at ``b`` towards side ``d``: the player
    stands at ``b + d`` (in its area), steps back to ``b + 2d`` (a free
    region cell), and the box follows to ``b + d``."""
    k = params.k
    n_sets = params.binom[params.n_cells, k]
    G = params.inside.shape[0]
    inside, deltas = params.inside, params.deltas
    idx = work[0:k]
    tmp = work[k:2 * k]
    occ = work[2 * k:2 * k + G]
    area = work[2 * k + G:2 * k + 2 * G]
    seen = work[2 * k + 2 * G:2 * k + 3 * G]
    stack = work[2 * k + 3 * G:2 * k + 4 * G]
    stamp = 2 * k + 4 * G
    unrank_subset(params.binom, params.n_cells, rank % n_sets, idx)
    player = params.player_cell[rank // n_sets]
    for i in range(k):
        occ[params.pat_cell[idx[i]]] = 1
    n = 0
    if occ[player] == 0:
        work[stamp] += 1
        tag = work[stamp]
        flood_smallest(player, occ, inside, deltas, area, tag, stack)
        for i in range(k):
            b = params.pat_cell[idx[i]]
            for d in range(4):
                a = b + deltas[d]
                c = a + deltas[d]
                if area[a] != tag or inside[c] == 0 or occ[c] != 0:
                    continue
                na = params.pat_index[a]
                if na < 0:
                    continue  # cannot happen: a cell a live box is pulled to is live
                occ[b] = 0
                occ[a] = 1
                work[stamp] += 1
                m = flood_smallest(c, occ, inside, deltas, seen, work[stamp], stack)
                occ[a] = 0
                occ[b] = 1
                # the new set, sorted: idx without idx[i], plus na
                j = 0
                placed = False
                for t in range(k):
                    if t == i:
                        continue
                    v = idx[t]
                    if not placed and na < v:
                        tmp[j] = na
                        j += 1
                        placed = True
                    tmp[j] = v
                    j += 1
                if not placed:
                    tmp[j] = na
                r = 0
                for t in range(k):
                    r += params.binom[tmp[t], t + 1]
                out[n] = params.player_index[m] * n_sets + r
                n += 1
    for i in range(k):
        occ[params.pat_cell[idx[i]]] = 0
    return n


register_abstraction(PatternParams, is_goal=pattern_is_goal, neighbours=pattern_neighbours)


@nb.njit(cache=True)
def fill_areas(params, table):
    """Give every player cell of an area the value the BFS stored at the
    area's smallest cell (the first cell of the area met in cell order)."""
    k = params.k
    R = params.n_player
    G = params.inside.shape[0]
    idx = np.empty(k, dtype=np.int64)
    occ = np.zeros(G, dtype=np.int64)
    mark = np.zeros(G, dtype=np.int64)
    stack = np.empty(G, dtype=np.int64)
    inside, deltas = params.inside, params.deltas
    n_sets = params.binom[params.n_cells, k]
    tag = 0
    for s in range(n_sets):
        unrank_subset(params.binom, params.n_cells, s, idx)
        for i in range(k):
            occ[params.pat_cell[idx[i]]] = 1
        tag += 1
        for pi in range(R):
            x = params.player_cell[pi]
            if occ[x] != 0 or mark[x] == tag:
                continue
            value = table[pi * n_sets + s]
            # flood the area, writing the value as it goes
            mark[x] = tag
            stack[0] = x
            n = 1
            while n > 0:
                n -= 1
                c = stack[n]
                table[params.player_index[c] * n_sets + s] = value
                for d in range(4):
                    y = c + deltas[d]
                    if inside[y] != 0 and occ[y] == 0 and mark[y] != tag:
                        mark[y] = tag
                        stack[n] = y
                        n += 1
        for i in range(k):
            occ[params.pat_cell[idx[i]]] = 0


def build_pattern_table(level: Level, k: int, progress: bool = False,
                        deadline: float | None = None) -> tuple[np.ndarray, float]:
    """The k-box table of a level; returns (table, build seconds).  Past
    ``deadline`` it stops with :class:`~pdbsearch.errors.ResourceLimit`."""
    params = pattern_params(level, k)
    size = table_entries(params.n_cells, params.n_player, k)
    table, seconds, _ = build_table(params, size, 4 * k, workspace_size(params),
                                    progress=progress, label=f"{k}-box pattern table",
                                    deadline=deadline)
    start = time.perf_counter()
    fill_areas(params, table)
    return table, seconds + time.perf_counter() - start


def pattern_rank(params: PatternParams, boxes, player: int) -> int:
    """The table index of ``k`` box cells and a player cell (plain Python)."""
    idx = sorted(int(params.pat_index[c]) for c in boxes)
    if min(idx) < 0:
        raise ValueError("a box on a dead square has no pattern entry")
    rank = sum(comb(c, i + 1) for i, c in enumerate(idx))
    return int(params.player_index[player]) * comb(params.n_cells, params.k) + rank
