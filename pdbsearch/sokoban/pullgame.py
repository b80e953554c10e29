"""The pull game: Sokoban played backwards from the solved position, on
the FESS protocol (:mod:`pdbsearch.search.fess_protocol`).  It gives a
level its packing order (:mod:`.packing`) and, as a solver of its own,
searches from the goals towards the start (:mod:`.pullsolve`).

Start from the solved position (a box on every goal) and *pull* boxes away
(macro pulls, :mod:`.macros`).  A box pulled onto a free *start square*
(where a box starts in the level) is taken off the board and the square
marked used: the sink assumption, that there is room near the goals to
park the boxes, and that each goal's box can come from some start square.
When a box can be taken off, that is the only move generated (JSoko),
unless the boxes left could then not be matched to the unused start
squares (the late check below): the pulls are the moves then, so that
one bad extraction does not end the search.

**Start squares on goals** (``block_goal_starts``, off by default).  The
sink assumption parks there too: a box that starts on its goal is taken
off where it stands at once, and its goal is free for the rest of the
backward search, so the plan may pull other boxes through it although,
forward, its box is in the way until pushed off.  With the switch on, a
box taken off on a goal's start square (where it stands, or after a pull)
blocks that square for the rest of the backward search, and the
extraction is one move among the others, not the only one (pulling the
box away instead is what lets the goals behind it empty).  Neither plan
is better on every level (``docs/benchmarks.md``): the two FESS engines
of the portfolio take one each.

**Pruning.**  The late check of the pull game asks for a perfect matching
of the boxes left to the unused start squares, a box at ``x`` matching a
start square from which a lone box can be pushed to ``x``.

**The same game as a solver** (``to_start``, :mod:`.pullsolve`): no box
is taken off, and the goal is the level's start position, every start
square holding a box and the player in the start's area (or another
position's, ``start``: the relay, :mod:`pdbsearch.search.relay`).  The
relay also gives the positions it may *meet* (``meet``): the positions
along its leaders' paths, each of which ends the search as well, since
the leader's path to it and the pulls from it make a solution.  They are
only more goals: the search moves and prunes as it would without them.

**Key of the pull game.**  One bit per region cell (a box), one bit per
start square (used; on a goal, also blocked when they block), and the
player's region index in the top bits of the last word; index
``n_region`` stands for the *virtual root*, whose children are the solved
position with the player in each area of the board (goals as walls) from
which a pull is possible.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numba as nb
import numpy as np

from ..byref import by_reference, to_ref
from ..puzzle import kernel_jit
from ..search.fess_protocol import GOAL_CHILD, FessDomain, register_fess_kernels
from ..search.store import empty_slots, find_slot, rehash
from .advisors import push_reach, start_push_distances
from .features import (DIST_MAX, FeatureWork, components, components_freeing, feature_work,
                       pack_rank)
from .macros import (MacroWork, apply_macro, box_macros, macro_descriptor, macro_work,
                     prepare_splits, split_at)
from .perimeter import stuck_off_start
from .tables import UNREACHABLE

_ONE = np.uint64(1)
N_FEATURES = 3
MAX_CHILDREN = 1 << 14


@by_reference
class PullParams(NamedTuple):
    """The pull game's tables and scratch, as seen inside numba."""

    width: int
    n_region: int
    n_starts: int
    player_shift: int
    inside: np.ndarray       #: uint8[cell]
    goal: np.ndarray         #: uint8[cell]
    deltas: np.ndarray       #: int64[4]
    region: np.ndarray       #: int32[index] -> cell, increasing
    index: np.ndarray        #: int32[cell] -> region index, -1 outside
    start_index: np.ndarray  #: int32[cell] -> start square number, -1 if none
    start_cells: np.ndarray  #: int32[start]
    nearest: np.ndarray      #: int32[cell]: pushes to the nearest goal
    fwd: np.ndarray          #: uint8[start, cell]: a lone box from the start gets there
    nodead: np.ndarray       #: uint8[cell]: zeros (pulls have no dead squares)
    block: int               #: 1: a used start square on a goal stays blocked
    to_start: int            #: 1: no box taken off; the goal is the level's start (:mod:`.pullsolve`)
    start_dist: np.ndarray   #: int32[cell]: lone-box pushes from the nearest start square
    start_player: int        #: region index of the start's normalised player
    meet_keys: np.ndarray    #: uint64[position, word]: more goals (``meet``), keys as here
    meet_slots: np.ndarray   #: int32: their hash slots (:mod:`pdbsearch.search.store`)
    occ: np.ndarray          #: uint8[cell] scratch
    boxes: np.ndarray        #: int32[box] scratch
    area: np.ndarray         #: int64[cell] scratch
    label: np.ndarray        #: int64[cell] scratch (the stuck test's marks)
    used: np.ndarray         #: uint8[start] scratch
    match_box: np.ndarray    #: int32[start] scratch: matched box, -1
    seen: np.ndarray         #: int64[start] scratch stamps
    prev: np.ndarray         #: int32[box + start] scratch of the matching
    queue: np.ndarray        #: int32[box + start] scratch of the matching
    counters: np.ndarray     #: int64[2]: area and matching stamps
    mw: MacroWork
    fw: FeatureWork


@nb.njit(cache=True, inline="always")
def _player_index(pp, key):
    last = key.shape[0] - 1
    return np.int64(key[last] >> np.uint64(pp.player_shift))


@nb.njit(cache=True, inline="always")
def _bit(key, b):
    return (key[b >> 6] >> np.uint64(b & 63)) & _ONE


@nb.njit(cache=True, inline="always")
def _decode(pp, key):
    """Fill ``pp.occ``/``pp.boxes``/``pp.used``; returns the box count."""
    n = 0
    for i in range(pp.n_region):
        if _bit(key, i):
            c = pp.region[i]
            pp.boxes[n] = c
            pp.occ[c] = 1
            n += 1
    for j in range(pp.n_starts):
        pp.used[j] = _bit(key, pp.n_region + j)
        if pp.used[j] != 0 and pp.block != 0 and pp.goal[pp.start_cells[j]] != 0:
            pp.occ[pp.start_cells[j]] = 1   # its start box, still there
    return n


@nb.njit(cache=True, inline="always")
def _clear(pp, n):
    for i in range(n):
        pp.occ[pp.boxes[i]] = 0
    if pp.block != 0:
        for j in range(pp.n_starts):
            pp.occ[pp.start_cells[j]] = 0


@kernel_jit
def pull_child_key(pp, parent_key, desc, out):
    """The child key of a descriptor (clear the from-bit, set the to-bit,
    set the player)."""
    apply_macro(parent_key, desc, pp.player_shift, out)


@nb.njit(cache=True, inline="always")
def _emit(pp, key, desc, first, conn, on_goals, rank_dist, goal, cost, m, out_keys, out_desc,
          out_cost, out_feat, out_rank, out_flags):
    """Write child ``m`` (features ``first``, ``conn``, ``on_goals``; the
    rank's last term ``rank_dist``); returns ``m + 1``."""
    apply_macro(key, desc, pp.player_shift, out_keys[m])
    if not goal and pp.meet_keys.shape[0] > 0:
        goal = pp.meet_slots[find_slot(pp.meet_keys, pp.meet_slots, out_keys[m])] >= 0
    out_desc[m] = desc
    out_cost[m] = cost
    out_feat[m, 0] = first
    out_feat[m, 1] = conn
    out_feat[m, 2] = on_goals
    out_rank[m] = pack_rank(first, conn, 0, on_goals, 0, rank_dist)
    out_flags[m] = GOAL_CHILD if goal else 0
    return m + 1


@nb.njit(cache=True, inline="always")
def _emit_pull(pp, key, desc, n_boxes, conn, on_goals, dist, cost, m, out_keys, out_desc,
               out_cost, out_feat, out_rank, out_flags):
    """A child of the packing game: boxes left first, far from the goals
    best; the goal is an empty board."""
    return _emit(pp, key, desc, n_boxes, conn, on_goals, DIST_MAX - min(dist, DIST_MAX),
                 n_boxes == 0, cost, m, out_keys, out_desc, out_cost, out_feat, out_rank,
                 out_flags)


@nb.njit(cache=True, inline="always")
def _emit_extraction(pp, key, s, c, player, blocks, n, on_goals, dist, cost, m, out_keys,
                     out_desc, out_cost, out_feat, out_rank, out_flags):
    """Emit the extraction of the box of ``s`` on the start square ``c``
    (``c == s``: where it stands), the player then on ``player``; with
    ``blocks``, the square stays occupied (a goal's start square)."""
    pp.occ[s] = 0
    was = pp.occ[c]
    if blocks:
        pp.occ[c] = 1
    c_conn = components(pp.region, pp.inside, pp.occ, pp.deltas, pp.fw)
    q = pp.index[pp.fw.lab[player]]
    pp.occ[c] = was
    pp.occ[s] = 1
    desc = macro_descriptor(pp.index[s], pp.n_region + pp.start_index[c], q)
    return _emit_pull(pp, key, desc, n - 1, c_conn, on_goals - pp.goal[s], dist - _dist(pp, s),
                      cost, m, out_keys, out_desc, out_cost, out_feat, out_rank, out_flags)


@nb.njit(cache=True, inline="always")
def _dist(pp, c):
    d = pp.nearest[c]
    return d if d < UNREACHABLE else 0


@nb.njit(cache=True, inline="always")
def _own_features(self_info, first, conn, on_goals, rank_dist):
    """The position's own rank and features (the FESS protocol's ``self_info``)."""
    self_info[0] = pack_rank(first, conn, 0, on_goals, 0, rank_dist)
    self_info[1] = first
    self_info[2] = conn
    self_info[3] = on_goals


@nb.njit(cache=True, inline="always")
def _stamp_player_area(pp, player):
    """Stamp (in ``pp.area``) the free cells of the player's part of the
    labelling ``components`` just made; returns the stamp."""
    pp.counters[0] += 1
    tag = pp.counters[0]
    home = pp.fw.lab[player]
    for i in range(pp.region.shape[0]):
        c = pp.region[i]
        if pp.occ[c] == 0 and pp.fw.lab[c] == home:
            pp.area[c] = tag
    return tag


@nb.njit(cache=True, inline="always")
def _off_start(pp, n):
    """Boxes (of ``pp.boxes[:n]``) not on a start square."""
    off = 0
    for i in range(n):
        if pp.start_index[pp.boxes[i]] < 0:
            off += 1
    return off


@nb.njit(cache=True, inline="always")
def _start_dist_sum(pp, n):
    total = 0
    for i in range(n):
        total += pp.start_dist[pp.boxes[i]]
    return min(total, DIST_MAX)


@nb.njit(cache=True, inline="always")
def _pulls_to_start(pp, key, n, player, self_info, out_keys, out_desc, out_cost, out_feat,
                    out_rank, out_flags):
    """The pull moves of the backward solver (``pp.to_start``): no box is
    taken off; features: boxes off the start squares, player regions,
    boxes on goals; ties to the boxes nearest the start squares; the goal
    is the level's start (every start square holds a box, the player in the
    start's area).  A box is never pulled where no start square's box could
    have been pushed (``start_dist``), nor where it or another box off the
    start squares can never be pulled again (the perimeter's
    :func:`.perimeter.stuck_off_start`)."""
    deltas = pp.deltas
    most = out_keys.shape[0]
    fw = pp.fw
    off = _off_start(pp, n)
    dist = _start_dist_sum(pp, n)
    on_goals = 0
    for i in range(n):
        on_goals += pp.goal[pp.boxes[i]]
    conn = components(pp.region, pp.inside, pp.occ, deltas, fw)
    _own_features(self_info, off, conn, on_goals, dist)
    tag = _stamp_player_area(pp, player)
    m = 0
    for i in range(n):
        s = pp.boxes[i]
        if m >= most:
            break
        ne = box_macros(s, player, pp.area, tag, pp.inside, pp.occ, pp.nodead, deltas,
                        pp.label, -1, -1, pp.mw, most - m, True)
        if ne > 0:
            # The child's connectivity and player part from the macro search's
            # DFS (O(1) a child) rather than a flood of the board each.
            prepare_splits(pp.mw)
            lifted = components_freeing(conn, s, pp.inside, pp.occ, deltas, fw.lab)
        for e in range(ne):
            st = pp.mw.emit[e]
            c = st >> 2
            k = st & 3
            if pp.start_dist[c] >= UNREACHABLE:
                continue
            pp.counters[0] += 1
            if stuck_off_start(pp, pp.boxes, n, i, c, pp.occ, pp.label, pp.counters[0],
                                pp.start_dist):
                continue
            pp.occ[s] = 0
            pp.occ[c] = 1
            parts, smallest = split_at(c, c + deltas[k], deltas, pp.mw)
            c_conn = lifted - 1 + parts
            q = pp.index[smallest]
            c_off = off - (pp.start_index[s] < 0) + (pp.start_index[c] < 0)
            c_dist = min(dist - pp.start_dist[s] + pp.start_dist[c], DIST_MAX)
            desc = macro_descriptor(pp.index[s], pp.index[c], q)
            m = _emit(pp, key, desc, c_off, c_conn, on_goals - pp.goal[s] + pp.goal[c], c_dist,
                      c_off == 0 and q == pp.start_player, pp.mw.depth[st], m, out_keys,
                      out_desc, out_cost, out_feat, out_rank, out_flags)
            pp.occ[c] = 0
            pp.occ[s] = 1
    return m


@kernel_jit
def pull_expand(pp, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank,
                out_flags):
    """The pull moves of ``key`` (the FESS protocol; see the module doc)."""
    deltas = pp.deltas
    most = out_keys.shape[0]
    if _player_index(pp, key) == pp.n_region:
        # The virtual root: the solved position, the player in each area
        # (goals are boxes) from which some pull is possible.
        n = _decode(pp, key)
        conn = components(pp.region, pp.inside, pp.occ, deltas, pp.fw)
        _own_features(self_info, n, conn + 1, n, DIST_MAX)
        first_bit = np.int64(pp.index[pp.boxes[0]])
        # Mark (in ``area``, by the smallest cell) the areas with a pull.
        pp.counters[0] += 1
        tag = pp.counters[0]
        for r in range(pp.region.shape[0]):
            y = pp.region[r]
            if pp.occ[y] != 0:
                continue
            for k in range(4):
                # a box on y - deltas[k], the player on y: it pulls to y + deltas[k]
                if pp.occ[y - deltas[k]] != 0 and pp.inside[y + deltas[k]] != 0 and \
                        pp.occ[y + deltas[k]] == 0:
                    pp.area[pp.fw.lab[y]] = tag
        m = 0
        for i in range(pp.region.shape[0]):
            z = pp.region[i]
            if pp.occ[z] != 0 or pp.fw.lab[z] != z:
                continue  # not the smallest cell of its area
            if pp.area[z] == tag and m < most:
                desc = macro_descriptor(first_bit, first_bit, pp.index[z])
                if pp.to_start != 0:
                    m = _emit(pp, key, desc, _off_start(pp, n), conn, n, _start_dist_sum(pp, n),
                              False, 0, m, out_keys, out_desc, out_cost, out_feat, out_rank,
                              out_flags)
                else:
                    m = _emit_pull(pp, key, desc, n, conn, n, 0, 0, m, out_keys, out_desc,
                                   out_cost, out_feat, out_rank, out_flags)
        _clear(pp, n)
        return m
    n = _decode(pp, key)
    player = pp.region[_player_index(pp, key)]
    if pp.to_start != 0:
        m = _pulls_to_start(pp, key, n, player, self_info, out_keys, out_desc, out_cost,
                            out_feat, out_rank, out_flags)
        _clear(pp, n)
        return m
    m, extracted = _pull_moves(pp, key, n, player, True, self_info, out_keys, out_desc,
                               out_cost, out_feat, out_rank, out_flags)
    _clear(pp, n)
    if extracted and pull_late_check(pp, out_keys[0]):
        # The extraction, JSoko's only move, leaves boxes that no unused
        # start square can match (MasterHead 32: the first one ended the
        # search, and FESS got no plan): the pulls are the moves instead.
        n = _decode(pp, key)
        m, _ = _pull_moves(pp, key, n, player, False, self_info, out_keys, out_desc,
                           out_cost, out_feat, out_rank, out_flags)
        _clear(pp, n)
    return m


@nb.njit(cache=True, inline="always")
def _pull_moves(pp, key, n, player, extract, self_info, out_keys, out_desc, out_cost, out_feat,
                out_rank, out_flags):
    """The moves of :func:`pull_expand` off the root (``pp`` decoded):
    the best extraction alone when there is one and ``extract`` allows
    it, else every pull (a box pulled onto a start square stays on the
    board).  Returns the count and whether it is the extraction."""
    deltas = pp.deltas
    most = out_keys.shape[0]
    on_goals = 0
    dist = 0
    for i in range(n):
        on_goals += pp.goal[pp.boxes[i]]
        dist += _dist(pp, pp.boxes[i])
    conn = components(pp.region, pp.inside, pp.occ, deltas, pp.fw)
    _own_features(self_info, n, conn, on_goals, DIST_MAX - min(dist, DIST_MAX))
    tag = _stamp_player_area(pp, player)
    fw = pp.fw
    # The best extraction: a box on (or pulled onto) an unused start square
    # (off the goals, when goal start squares block: extractions there are
    # moves like the others, below, and the square stays blocked).
    ext_box = -1
    ext_cell = -1
    ext_side = -1
    ext_cost = 1 << 30
    m = 0
    for i in range(n):
        s = pp.boxes[i]
        j = pp.start_index[s]
        if extract and j >= 0 and pp.used[j] == 0:
            if pp.block == 0 or pp.goal[s] == 0:
                ext_box, ext_cell, ext_side, ext_cost = s, s, -1, 0
                break
            if ext_box < 0 and m < most:
                # The box that starts here stays: taken off where it stands.
                m = _emit_extraction(pp, key, s, s, player, True, n, on_goals, dist, 0, m,
                                     out_keys, out_desc, out_cost, out_feat, out_rank, out_flags)
        ne = box_macros(s, player, pp.area, tag, pp.inside, pp.occ, pp.nodead, deltas,
                        pp.label, -1, -1, pp.mw, most, True)
        for e in range(ne):
            st = pp.mw.emit[e]
            c = st >> 2
            k = st & 3
            d = pp.mw.depth[st]
            jc = pp.start_index[c]
            if extract and jc >= 0 and pp.used[jc] == 0:
                if pp.block == 0 or pp.goal[c] == 0:
                    if d < ext_cost:
                        ext_box, ext_cell, ext_side, ext_cost = s, c, k, d
                elif ext_box < 0 and m < most:
                    m = _emit_extraction(pp, key, s, c, c + deltas[k], True, n, on_goals, dist,
                                         d, m, out_keys, out_desc, out_cost, out_feat, out_rank,
                                         out_flags)
                continue
            if ext_box >= 0 or m >= most:
                continue
            pp.occ[s] = 0
            pp.occ[c] = 1
            c_conn = components(pp.region, pp.inside, pp.occ, deltas, fw)
            q = fw.lab[c + deltas[k]]
            desc = macro_descriptor(pp.index[s], pp.index[c], pp.index[q])
            m = _emit_pull(pp, key, desc, n, c_conn, on_goals - pp.goal[s] + pp.goal[c],
                           dist - _dist(pp, s) + _dist(pp, c), d, m, out_keys, out_desc,
                           out_cost, out_feat, out_rank, out_flags)
            pp.occ[c] = 0
            pp.occ[s] = 1
    if ext_box >= 0:
        # The only move: it takes slot 0, whatever was emitted before.
        c = ext_cell
        m = _emit_extraction(pp, key, ext_box, c, player if ext_side < 0 else
                             c + deltas[ext_side], False, n, on_goals, dist, ext_cost, 0,
                             out_keys, out_desc, out_cost, out_feat, out_rank, out_flags)
    return m, ext_box >= 0


@kernel_jit
def pull_late_check(pp, key):
    """True when the boxes left cannot all be matched to unused start
    squares they could have come from (augmenting paths, Kuhn)."""
    if _player_index(pp, key) == pp.n_region:
        return False
    n = _decode(pp, key)
    _clear(pp, n)
    ns = pp.n_starts
    for j in range(ns):
        pp.match_box[j] = -1
    for i in range(n):
        # Breadth-first search for an augmenting path from box i; nodes are
        # boxes (0..n-1) and starts (n + j).
        pp.counters[1] += 1
        tag = pp.counters[1]
        pp.queue[0] = i
        pp.prev[i] = -1
        head, tail = 0, 1
        found = -1
        while head < tail and found < 0:
            b = pp.queue[head]
            head += 1
            cell = pp.boxes[b]
            for j in range(ns):
                if pp.used[j] != 0 or pp.fwd[j, cell] == 0 or pp.seen[j] == tag:
                    continue
                pp.seen[j] = tag
                pp.prev[n + j] = b
                if pp.match_box[j] < 0:
                    found = j
                    break
                pp.prev[pp.match_box[j]] = n + j
                pp.queue[tail] = pp.match_box[j]
                tail += 1
        if found < 0:
            return True
        j = found
        while True:
            b = pp.prev[n + j]
            pp.match_box[j] = b
            up = pp.prev[b]
            if up < 0:
                break
            j = up - n
    return False


register_fess_kernels(PullParams, expand=pull_expand, child_key=pull_child_key,
                      late_check=pull_late_check)


def reach_from_starts(inside, deltas, walls, starts) -> np.ndarray:
    """Where a lone box from any of the ``starts`` can be pushed
    (:func:`push_reach`) with the ``walls`` cells walled up too."""
    open_cells = inside.copy()
    open_cells[np.asarray(walls, np.int64)] = 0
    out = np.zeros(inside.shape[0], np.uint8)
    for s in starts:
        if open_cells[s] != 0 and out[s] == 0:
            push_reach(open_cells, deltas, s, out)
    return out


class PullDomain(FessDomain):
    """The backward (pull) game of a level on the FESS protocol."""

    n_features = N_FEATURES
    cell_features = N_FEATURES

    def __init__(self, puzzle, block_goal_starts: bool = False, to_start: bool = False,
                 start: tuple[frozenset[int], int] | None = None,
                 meet: Sequence[tuple[frozenset[int], int]] = (), meet_room: int = 0):
        """The pull game of ``puzzle``'s level; with ``to_start``, towards
        its start position, or towards ``start`` (boxes, player) if given,
        and ending too on any position of ``meet`` (boxes, player: the
        smallest cell of his area, as in the puzzle's keys under pushes),
        with room for ``meet_room`` more (:meth:`add_meet`)."""
        level = puzzle.level
        self.puzzle = puzzle
        base = puzzle.params
        n_grid = level.width * level.height
        region = np.array(puzzle.layout.region, np.int32)
        index = np.full(n_grid, -1, np.int32)
        index[region] = np.arange(len(region), dtype=np.int32)
        boxes, player = start if start is not None else (level.boxes, level.player)
        starts = np.array(sorted(boxes), np.int32)
        start_index = np.full(n_grid, -1, np.int32)
        start_index[starts] = np.arange(len(starts), dtype=np.int32)
        n_region, n_starts = len(region), len(starts)
        player_bits = max(1, n_region.bit_length())
        self.key_words = (n_region + n_starts + player_bits + 63) // 64
        meet_keys = np.zeros((len(meet) + meet_room, self.key_words), np.uint64)
        for row, (cells, man) in zip(meet_keys, meet):
            _encode_position(row, cells, man, index, 64 - player_bits)
        meet_slots = empty_slots(meet_keys.shape[0])
        rehash(meet_keys, meet_slots, len(meet))
        self.meet_count = len(meet)
        inside = base.inside
        fwd = np.zeros((n_starts, n_grid), np.uint8)
        for j, s in enumerate(starts):
            push_reach(inside, base.deltas, int(s), fwd[j])
        n_box = len(starts)
        self.params = to_ref(PullParams(
            level.width, n_region, n_starts, 64 - player_bits, inside, base.goal, base.deltas,
            region, index, start_index, starts, base.nearest, fwd, np.zeros(n_grid, np.uint8),
            int(block_goal_starts), int(to_start), start_push_distances(puzzle, boxes),
            int(index[level.normalized_player(player, boxes)]), meet_keys, meet_slots,
            np.zeros(n_grid, np.uint8), np.zeros(n_box, np.int32),
            np.zeros(n_grid, np.int64), np.zeros(n_grid, np.int64), np.zeros(n_starts, np.uint8),
            np.full(n_starts, -1, np.int32), np.zeros(n_starts, np.int64),
            np.zeros(n_box + n_starts, np.int32), np.zeros(n_box + n_starts, np.int32),
            np.zeros(2, np.int64), macro_work(n_grid), feature_work(n_grid)))
        self.max_children = min(MAX_CHILDREN, 4 * n_box * n_region)
        self.region = region
        self.starts = starts

    def add_meet(self, positions: Sequence[tuple[frozenset[int], int]]) -> int:
        """Add ``positions`` (as ``meet``) while there is room; returns how
        many were added.  Not while a kernel runs on these params (the
        search that owns them calls it between its chunks)."""
        pp = self.params
        first = self.meet_count
        positions = positions[:pp.meet_keys.shape[0] - first]
        for i, (cells, man) in enumerate(positions, first):
            _encode_position(pp.meet_keys[i], cells, man, pp.index, pp.player_shift)
        self.meet_count += len(positions)
        rehash(pp.meet_keys, pp.meet_slots, self.meet_count, first)
        return len(positions)

    def initial_key(self) -> np.ndarray:
        """The virtual root: a box on every goal, the player nowhere yet."""
        pp = self.params
        key = np.zeros(self.key_words, np.uint64)
        for g in sorted(self.puzzle.level.goals):
            b = int(pp.index[g])
            key[b >> 6] |= np.uint64(1 << (b & 63))
        key[-1] |= np.uint64(pp.n_region << pp.player_shift)
        return key

    def boxes_of(self, key: np.ndarray) -> set[int]:
        """The box cells of a pull-game key."""
        return _cells_with_bits(key, 0, self.region)

    def player_of(self, key: np.ndarray) -> int:
        """The player's cell of a pull-game key (not the virtual root's)."""
        return int(self.region[int(key[-1]) >> self.params.player_shift])

    def used_starts_of(self, key: np.ndarray) -> set[int]:
        """The start squares a pull-game key marks used (a box taken off)."""
        return _cells_with_bits(key, len(self.region), self.starts)


def _encode_position(row: np.ndarray, boxes, player: int, index: np.ndarray,
                     player_shift: int) -> None:
    """Write into ``row`` the pull-game key of a position of the level (no
    start square used), whose ``player`` is normalised already (the
    smallest cell of his area, as in the puzzle's keys under pushes)."""
    for b in boxes:
        i = int(index[b])
        row[i >> 6] |= np.uint64(1 << (i & 63))
    row[-1] |= np.uint64(int(index[player]) << player_shift)


def _cells_with_bits(key: np.ndarray, first: int, cells) -> set[int]:
    """The ``cells[i]`` whose key bit ``first + i`` is set (see the module
    doc: region cells, then start squares)."""
    return {int(c) for i, c in enumerate(cells)
            if (int(key[(first + i) >> 6]) >> ((first + i) & 63)) & 1}


class PullProblem:
    """What :class:`FessSearch` asks of a puzzle, for the pull game."""

    domain = "sokoban-pull"

    def __init__(self, domain: PullDomain):
        self.key_words = domain.key_words
        self._domain = domain

    def fess_domain(self, limits):
        return self._domain
