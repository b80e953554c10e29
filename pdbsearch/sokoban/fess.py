"""Sokoban on the FESS protocol (:mod:`pdbsearch.search.fess_protocol`).

* **Moves**: macro moves of one box (:mod:`.macros`), limited to one
  PI-corral when there is one; a child on a freeze deadlock or on a
  learned pattern (the portfolio's or this search's own) is dropped at
  generation (cheap); the expensive tests run lazily on the chosen move:
  the bipartite matching of the lower bound (with the puzzle's pattern
  databases when it uses them), which proves a position dead when the
  boxes cannot all be matched to goals, and the stranded-goal test
  (:func:`.deadlocks.stranded_goal_deadlock`: boxes the player can never
  push, off their goals or walling in an empty goal).  In a goal room
  (:mod:`.goalrooms`) a box coming in goes straight to the next goal of
  the room's packing order (the goal-room macro).
* **Features** (:mod:`.features`): unpacked boxes (by the plan's
  order, whole or goal area by goal area, :mod:`.plan`; a packed prefix
  the other boxes cannot finish around does not count, :mod:`.planreach`),
  player regions, obstructed room links (:mod:`.rooms`), out-of-plan
  boxes, which name the cell, and hotspots (:mod:`.hotspots`), which only
  rank, and whose feature advisor is Festival's hotspot advisor.
* **Stuck patterns** (Festival's): when the engine has spent
  :data:`..search.fess_protocol.SUBTREE_CHECK` expansions under a position, the
  position is dead when boxes frozen on goals cut the others off the
  free goals (:mod:`.frozencut`); then it gets the xy test of
  :func:`.learning.learn_stuck` (the boxes
  no xy-free box holds, then each cluster of touching boxes); a dead
  verdict is stored as a pattern in this search's own store (it runs in a
  thread of its own, so it writes nothing the other engines read), which
  the late check then applies to every position, beside the patterns the
  other engines of the portfolio learn.  When the xy test concludes
  nothing, a *dead-end probe* (:mod:`.probe`) searches every position
  reachable from it, if they are few; a dead verdict drops its subtree,
  and the positions the probe met are dropped when generated.
* **A child's descriptor**: ``from_bit << 40 | to_bit << 20 | player
  index`` (key bits of the box's old and new cell, the normalised player).
* **Replay**: :func:`.macros.macro_path` turns an edge into pushes.

FESS solves for pushes (walking is free); the moves metric is refused.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numba as nb
import numpy as np

from ..byref import by_reference, to_ref
from ..puzzle import DEAD, kernel_jit
from ..search.fess_protocol import (ADVISED, GOAL_CHILD, PROVED_DEAD, FessDomain,
                                    register_fess_kernels)
from ..pdb.builder import UNREACHABLE as NO_ENTRY
from ..pdb.learned import LearnedPatterns, learned_match
from .bounds import _pattern_value, heuristic
from .deadlocks import DEADLOCK, RESTRICT, corral_restriction, freeze_deadlock, may_freeze
from .advisors import (FAR, AdvisorTables, advise, advisor_tables, lone_reach, push_distances,
                       gained_sides, may_gain_sides, open_sides, pushable_sides,
                       walk_distances)
from .frozencut import (CUT_DEAD, CUT_LEARNED, CUT_TABLES, CUT_TESTS, FrozenCutWork,
                        frozen_cut_deadlock, frozen_cut_work)
from .features import (CONNECTIVITY, HOTSPOTS, N_CELL_FEATURES, N_FEATURES, OUT_OF_PLAN, ROOMS,
                       UNPACKED, FeatureWork, components, components_freeing, feature_work,
                       out_of_plan, pack_rank, packed_by_area, packed_count)
from .hotspots import (HotspotBuilder, HotspotTables, child_hotspots, hotspot_tables,
                       position_hotspots)
from .kernels import (AREA, FROZEN, LABEL, SokobanParams, decode_boxes, in_perimeter,
                      player_of, strands_goal, work_arrays)
from .learning import EXPANDS, learn_stuck, learn_work, pattern_store
from .goalrooms import GoalRoomTables, goal_room_tables, goal_rooms, room_allows, room_targets
from .goalrooms import load_kernels as load_goal_room_kernels
from .macros import (MacroWork, apply_macro, box_macros, macro_descriptor, macro_path, macro_work,
                     prepare_splits, split_at)
from .matching import mask_matching_work
from .packing import PackingSearch, oop_zones
from .plan import (PlanParams, goal_areas, naive_plan, parking_arrays, parking_base,
                   split_by_area)
from .plancuts import blockers, cutoff_tables, empty_cutoffs, goal_cutoffs
from .planreach import (empty_tables, feasible_packed, parking_credit, plan_reach, plan_tables,
                        table_fits)
from .probe import (HITS, KEPT, PROBES, PROVED, REACHED, SPENT, ProbeWork, known_dead,
                    probe_dead, probe_work)
from .pullgame import reach_from_starts
from .rooms import RoomTables, obstructed_after_move, obstructed_links, room_tables
from .tables import UNREACHABLE
from .vocabulary import MATCHING, SIMPLE, ZERO

#: Most children of one expansion (Festival caps at 11,500).
MAX_CHILDREN = 1 << 14
#: Most boxes for which the generation filter looks up every triple.
TRIPLE_BOXES = 12
#: Share of the time limit the packing-order search may use, and its cap.
PACKING_SHARE = 0.2
PACKING_SECONDS = 5.0
#: Share of the time limit the hotspot table may take, and its cap (a level
#: whose table takes longer keeps the feature at 0, as Festival does).
HOTSPOT_SHARE = 0.1
HOTSPOT_SECONDS = 3.0


@by_reference
class SokobanFessParams(NamedTuple):
    """What the Sokoban FESS kernels need, as seen inside numba."""

    base: SokobanParams     #: the push-level tables and scratch (own copy)
    h_rank: int             #: 1: the lower bound breaks ties (else the nearest goals)
    rank_base: SokobanParams  #: the tables of that bound (the matching; own scratch)
    plan: PlanParams
    adv: AdvisorTables
    mw: MacroWork
    fw: FeatureWork
    rooms: RoomTables
    hot: HotspotTables
    shared: LearnedPatterns   #: the patterns the portfolio's other engines learn
    stuck: int                #: 1: learn stuck patterns (into ``base.learned``)
    probe: ProbeWork          #: dead-end probes of stuck positions (:mod:`.probe`)
    goal_rooms: GoalRoomTables  #: the goal-room macro (:mod:`.goalrooms`; no rooms: off)
    frozen: FrozenCutWork     #: boxes cut off by frozen ones (:mod:`.frozencut`)


@kernel_jit
def child_key(fp, parent_key, desc, out):
    """The child key of a descriptor."""
    apply_macro(parent_key, desc, fp.base.player_shift, out)


@kernel_jit
def late_check(fp, key):
    """True when the bound proves the position dead (no perfect matching of
    boxes to goals, or a dead pattern), or boxes the player can never push
    strand a goal or stand off theirs (:func:`.kernels.strands_goal`)."""
    p = fp.base
    if p.heuristic != ZERO and heuristic(p, key) >= DEAD:
        return True
    if learned_match(fp.shared, key, p.box_mask, p.player_index[player_of(p, key)]):
        return True
    if p.freeze == 0:
        return False
    w = p.work
    n = decode_boxes(p, key, w.boxes)
    for i in range(n):
        w.occ[w.boxes[i]] = 1
    dead = strands_goal(p, w.boxes, n, player_of(p, key))
    for i in range(n):
        w.occ[w.boxes[i]] = 0
    return dead


@nb.njit(cache=True, inline="always")
def _learned_dead(fp, key, pi):
    """True when ``key`` (player index ``pi``) matches a learned pattern:
    the portfolio's, or this search's own stuck patterns."""
    p = fp.base
    return learned_match(fp.shared, key, p.box_mask, pi) or \
        learned_match(p.learned, key, p.box_mask, pi)


@nb.njit(cache=True, inline="always")
def _distance(p, cell):
    d = p.nearest[cell]
    return d if d < UNREACHABLE else 1 << 16


@nb.njit(cache=True, inline="always")
def _pattern_dead(p, c, s, boxes, n, pi):
    """True when the pattern tables call the box moved from ``s`` to ``c``
    dead together with one other box (or two, with 3-box tables and few
    boxes): an O(n) (or O(n²)) cheap filter at generation."""
    pt = p.patterns
    if pt.k < 2:
        return False
    a = pt.index[c]
    if a < 0:
        return True
    binom = pt.binom
    for i in range(n):
        x = boxes[i]
        if x == s:
            continue
        b = pt.index[x]
        if b < 0:
            return True
        lo, hi = min(a, b), max(a, b)
        if _pattern_value(pt, 2, binom[lo, 1] + binom[hi, 2], pi) == NO_ENTRY:
            return True
    if pt.k < 3 or n > TRIPLE_BOXES:
        return False
    for i in range(n):
        x = boxes[i]
        if x == s:
            continue
        for j in range(i + 1, n):
            y = boxes[j]
            if y == s:
                continue
            u, v, w = a, pt.index[x], pt.index[y]
            if u > v:
                u, v = v, u
            if v > w:
                v, w = w, v
            if u > v:
                u, v = v, u
            if _pattern_value(pt, 3, binom[u, 1] + binom[v, 2] + binom[w, 3], pi) == NO_ENTRY:
                return True
    return False


@nb.njit(cache=True, inline="always")
def _counted_hotspots(p, plan, boxes, n, player, packed, moved_from, moved_to, hot):
    """The hotspot feature of a position (the box of ``moved_from`` on
    ``moved_to``; -1, -1: as it is) whose plan prefix ``packed`` holds
    boxes: ``hot``, the boxes in another box's way to its goals
    (:mod:`.hotspots`), and the boxes on later goals of the plan that cut
    off its next goal (:mod:`.plancuts`)."""
    return hot + blockers(plan.cut_sources, plan.reach, plan.parts, plan.order, plan.rank_of,
                          p.player_index, boxes, n, player, packed, moved_from, moved_to)


@nb.njit(cache=True, inline="always")
def _counted_packed(p, plan, occ, on_goals, boxes, n, player, packed, moved_from, moved_to):
    """The packed feature's count of a position (``occ``, ``boxes``, the box
    of ``moved_from`` on ``moved_to``; -1, -1: as it is) whose plan prefix
    ``packed`` holds boxes.  It counts each goal area's part of the plan
    apart (a plan read whole is one area, whose count is that prefix;
    ``packed`` still names the OOP step and the next goal), loses the part
    of the prefix the other boxes could not finish around, and adds the
    boxes the plan parks (:mod:`.planreach`)."""
    count = packed if plan.area_end.shape[0] == 1 else packed_by_area(
        plan.split, plan.area_end, plan.naive, occ, on_goals)
    feasible = feasible_packed(plan.reach, plan.parts, plan.rank_of, p.player_index, boxes, n,
                               player, packed, moved_from, moved_to, plan.free_masks,
                               plan.match_work, plan.park_start, plan.park_cells, occ)
    return count - packed + feasible + parking_credit(plan.park_start, plan.park_cells,
                                                      plan.park_base, occ, feasible)


@kernel_jit
def expand(fp, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank, out_flags):
    """The macro moves of ``key`` with their features (the FESS protocol)."""
    p = fp.base
    w = p.work
    plan = fp.plan
    occ, boxes = w.occ, w.boxes
    p.learn.counters[EXPANDS] += 1   # the stuck tests' budgets (xy, probes) count expansions
    n = decode_boxes(p, key, boxes)
    on_goals = 0
    dist = 0
    for i in range(n):
        occ[boxes[i]] = 1
        on_goals += p.goal[boxes[i]]
        dist += _distance(p, boxes[i])
    player = player_of(p, key)
    region = p.index_cell
    # The position's own features.
    conn = components(region, p.inside, occ, p.deltas, fp.fw)
    packed = packed_count(plan.order, plan.naive, occ, on_goals)
    oop = out_of_plan(plan.zone, packed, boxes, n, -1, -1)
    # Boxes the plan parks count as progress too (:func:`_counted_packed`):
    # ``top`` is the count of the solved position.
    apacked = _counted_packed(p, plan, occ, on_goals, boxes, n, player, packed, -1, -1)
    top = n + plan.park_base[plan.park_base.shape[0] - 1]
    rooms = obstructed_links(fp.rooms, boxes, n)
    room_targets(fp.goal_rooms, boxes, n, occ)
    hot = _counted_hotspots(p, plan, boxes, n, player, packed, -1, -1,
                            position_hotspots(fp.hot, p.player_index, boxes, n))
    if fp.h_rank != 0:
        dist = heuristic(fp.rank_base, key)
        if dist >= DEAD:
            dist = 1 << 30
    self_info[0] = pack_rank(top - apacked, conn, rooms, oop, hot, dist)
    self_info[1 + UNPACKED] = top - apacked
    self_info[1 + CONNECTIVITY] = conn
    self_info[1 + ROOMS] = rooms
    self_info[1 + OUT_OF_PLAN] = oop
    self_info[1 + HOTSPOTS] = hot
    self_info[1 + N_FEATURES] = dist
    # The player's area, and the PI-corral rule.
    w.counters[AREA] += 1
    tag = w.counters[AREA]
    fw = fp.fw
    lab_player = fw.lab[player]
    for i in range(region.shape[0]):
        c = region[i]
        if occ[c] == 0 and fw.lab[c] == lab_player and fw.mark[c] == fw.counters[0]:
            w.area[c] = tag
    adv = fp.adv
    if adv.on != 0:
        for i in range(n):
            adv.side_mask[i] = pushable_sides(boxes[i], fw.lab, lab_player, occ, p.inside,
                                              p.dead, p.deltas)
            adv.open_mask[i] = open_sides(boxes[i], occ, p.inside, p.dead, p.deltas) & \
                ~adv.side_mask[i]
    lo = -1
    hi = -1
    if p.corral != 0:
        verdict, lo, hi = corral_restriction(
            boxes, n, occ, p.inside, p.goal, p.dead, p.width, w.area, tag,
            w.label, w.counters, LABEL, w.barmark, w.queue, w.bars, w.all_bars)
        if verdict == DEADLOCK:
            for i in range(n):
                occ[boxes[i]] = 0
            return 0
        if verdict != RESTRICT:
            lo = -1
    most = out_keys.shape[0]
    mw = fp.mw
    m = 0
    for i in range(n):
        s = boxes[i]
        ne = box_macros(s, player, w.area, tag, p.inside, occ, p.dead, p.deltas, w.label,
                        lo, hi, mw, most - m)
        if ne > 0:
            # Each child's regions and player part from the macro search's
            # DFS (O(1) a child, :func:`.macros.split_at`), not a flood.
            prepare_splits(mw)
            lifted = components_freeing(conn, s, p.inside, occ, p.deltas, fw.lab)
        for e in range(ne):
            st = mw.emit[e]
            c = st >> 2
            k = st & 3
            if not room_allows(fp.goal_rooms, s, c):
                continue
            occ[s] = 0
            occ[c] = 1
            ok = True
            if p.freeze != 0 and c != s and may_freeze(c, occ, p.inside, p.dead, p.width):
                w.counters[FROZEN] += 1
                ok = not freeze_deadlock(c, occ, p.inside, p.goal, p.dead, p.width, w.frozen,
                                         w.counters[FROZEN], w.stack)
            if ok:
                parts, q = split_at(c, c + p.deltas[k], p.deltas, mw)
                c_conn = lifted - 1 + parts
                ok = c == s or not _pattern_dead(p, c, s, boxes, n, p.player_index[q])
            if ok:
                c_goals = on_goals - p.goal[s] + p.goal[c]
                c_packed = packed_count(plan.order, plan.naive, occ, c_goals)
                c_oop = out_of_plan(plan.zone, c_packed, boxes, n, s, c)
                c_apacked = _counted_packed(p, plan, occ, c_goals, boxes, n, q, c_packed, s, c)
                c_dist = dist - _distance(p, s) + _distance(p, c)
                desc = macro_descriptor(p.box_bit[s], p.box_bit[c], p.player_index[q])
                apply_macro(key, desc, p.player_shift, out_keys[m])
                if _learned_dead(fp, out_keys[m], p.player_index[q]) or \
                        known_dead(fp.probe, out_keys[m]):
                    # Dropped now, so no advisor spends its move on it.
                    occ[c] = 0
                    occ[s] = 1
                    continue
                if fp.h_rank != 0:
                    # The lower bound as the tie-break (and a dead child dropped now).
                    c_dist = heuristic(fp.rank_base, out_keys[m])
                    if c_dist >= DEAD:
                        occ[c] = 0
                        occ[s] = 1
                        continue
                out_desc[m] = desc
                out_cost[m] = mw.depth[st]
                c_rooms = obstructed_after_move(fp.rooms, rooms, s, c)
                c_hot = _counted_hotspots(p, plan, boxes, n, q, c_packed, s, c,
                                          child_hotspots(fp.hot, p.player_index, boxes, n, s, c))
                out_feat[m, UNPACKED] = top - c_apacked
                out_feat[m, CONNECTIVITY] = c_conn
                out_feat[m, ROOMS] = c_rooms
                out_feat[m, OUT_OF_PLAN] = c_oop
                out_feat[m, HOTSPOTS] = c_hot
                out_feat[m, N_FEATURES] = min(c_dist, 1 << 30)
                out_rank[m] = pack_rank(top - c_apacked, c_conn, c_rooms, c_oop, c_hot, c_dist)
                # A perimeter position (:mod:`.perimeter`) is as good as solved.
                out_flags[m] = GOAL_CHILD if c_goals == n or in_perimeter(p, out_keys[m]) else 0
                if adv.on != 0:
                    adv.ch_from[m] = s
                    adv.ch_to[m] = c
                    gain = 0
                    for j in range(n):
                        b = boxes[j]
                        if b != s and may_gain_sides(b, s, adv.open_mask[j], p.deltas) and \
                                gained_sides(b, c, q, adv.side_mask[j], occ, p.inside, p.dead,
                                             p.deltas, mw) != 0:
                            gain += 1
                    adv.ch_gain[m] = gain
                m += 1
            occ[c] = 0
            occ[s] = 1
    for i in range(n):
        occ[boxes[i]] = 0
    if adv.on != 0 and m > 0:
        nxt = packed if plan.naive == 0 and packed < n else -1
        advise(adv, p.player_index, m, out_feat, out_rank, out_flags, top - apacked, conn, oop,
               packed, nxt, ADVISED)
    return m


@kernel_jit
def stuck_check(fp, key, again):
    """``PROVED_DEAD`` when boxes frozen on goals cut the others off
    (:mod:`.frozencut`) or the xy test proves the position dead (with the
    stuck patterns on, either verdict is learned as a pattern then), or a
    probe does (see the module doc);
    ``ASK_LATER`` when the probe's budget is spent.  Asked ``again``, only
    the probe runs (the others ran the first time)."""
    if again == 0:
        p = fp.base
        n = decode_boxes(p, key, p.work.boxes)
        if frozen_cut_deadlock(p, fp.frozen, p.work.boxes, n, player_of(p, key), p.learned,
                               fp.stuck):
            return PROVED_DEAD
        if fp.stuck != 0 and learn_stuck(p, key):
            return PROVED_DEAD
    return probe_dead(fp.base, fp.probe, key)


register_fess_kernels(SokobanFessParams, expand=expand, child_key=child_key,
                      late_check=late_check, stuck_check=stuck_check)


class SokobanFessDomain(FessDomain):
    """The Python half of Sokoban's FESS support (see the module doc).

    ``h_rank``: the lower bound breaks ties between equal features (else
    the distances to the nearest goals); ``block_goal_starts``: the
    packing plan's reading of start squares on goals (:mod:`.packing`);
    ``by_goal_area``: the packed feature counts each goal area's part of
    the plan apart (:mod:`.plan`), so that an area filled in its order
    counts while another waits, whatever order the pull game interleaved
    them in; ``park_boxes``: a packed prefix counts only with the boxes
    the plan parks by then in place, and each box parked counts
    (:mod:`.planreach`);
    the ``use_*`` switches turn a part off (the plan, room links,
    hotspots, stuck patterns, dead-end probes, the goal-room macro, the
    stuck test's frozen-box cut, :mod:`.frozencut`, which the freeze rule's
    switch turns off too).
    """

    n_features = N_FEATURES + 1
    cell_features = N_CELL_FEATURES
    #: The last feature is a lower bound on the pushes left: the matching,
    #: or (``h_rank`` off) the sum of each box's pushes to its nearest goal.
    bound_feature = N_FEATURES

    def __init__(self, puzzle, limits, use_packing: bool = True, h_rank: bool = True,
                 use_rooms: bool = True, use_hotspots: bool = True, use_stuck: bool = True,
                 use_probes: bool = True, block_goal_starts: bool = False,
                 use_goal_rooms: bool = True, by_goal_area: bool = False,
                 park_boxes: bool = True, use_frozen_cut: bool = True):
        puzzle.check_algorithm("fess-only")
        self.puzzle = puzzle
        self.limits = limits
        self.by_goal_area = by_goal_area
        self.park_boxes = park_boxes
        level = puzzle.level
        n_grid = level.width * level.height
        base = puzzle.params
        # Own scratch (a portfolio may run the push-level engine alongside),
        # and at least the matching for the late deadlock check.
        h = base.heuristic if base.heuristic not in (ZERO, SIMPLE) else MATCHING
        base = base._replace(heuristic=h, work=work_arrays(
            n_grid, base.n_boxes, base.work.pat_gain.shape[0]))
        # Stuck patterns go to a store of this search's own, and the
        # portfolio's store is read beside it (see the module doc).
        shared = base.learned
        stuck = use_stuck and puzzle.rules.learning is not False
        n_region = len(puzzle.layout.region)
        base = base._replace(learning=int(stuck),
                             learned=pattern_store(puzzle.key_words, n_region, stuck),
                             learn=learn_work(n_grid, base.n_boxes, puzzle.key_words, n_region,
                                              stuck))
        self.key_words = puzzle.key_words
        self.max_children = min(MAX_CHILDREN, 4 * len(level.boxes) * len(puzzle.layout.region))
        # The ranks' bound term is the matching, whatever the puzzle's own
        # heuristic: cheaper than the pattern tables, and what every FESS
        # figure in docs/benchmarks.md was measured with.  It skips the
        # learned patterns: :func:`expand` has just looked the child up in
        # the same store (and the late check looks up every position
        # before it is expanded), so a second look could only say no.
        rank_base = base._replace(heuristic=MATCHING, learning=0, work=work_arrays(
            n_grid, base.n_boxes, base.work.pat_gain.shape[0]))
        self.goal_rooms = goal_rooms(level, base.inside, base.dead, base.deltas) \
            if use_goal_rooms and puzzle.rules.goal_rooms else []
        adv = advisor_tables(True, n_region, len(level.goals), n_grid,
                             self.max_children, len(level.boxes))
        if adv.on:
            lone_reach(base.inside, base.deltas, base.index_cell, adv.reach)
        self.params = to_ref(SokobanFessParams(base, int(h_rank), rank_base,
                                        naive_plan(len(level.goals), n_grid), adv,
                                        macro_work(n_grid), feature_work(n_grid),
                                        room_tables(level, n_grid, use_rooms),
                                        hotspot_tables(n_region, len(level.boxes)),
                                        shared, int(stuck),
                                        probe_work(puzzle.key_words, puzzle.max_successors,
                                                   use_probes and puzzle.rules.probes),
                                        goal_room_tables(self.goal_rooms, n_grid),
                                        frozen_cut_work(base.goal_cells, n_grid, n_region,
                                                        len(level.boxes),
                                                        use_frozen_cut and puzzle.rules.freeze,
                                                        puzzle.key_words)))
        self._replay_work = macro_work(n_grid)
        self._occ = np.zeros(n_grid, np.uint8)
        self.plan_info: dict = {"plan": "naive"}
        self._packing = None
        if use_packing:
            budget = PACKING_SHARE * limits.time_seconds if (
                limits is not None and limits.time_seconds is not None) else PACKING_SECONDS
            memory = (limits.memory_bytes() if limits is not None else 1 << 31) // 4
            self._packing = PackingSearch(puzzle, min(budget, PACKING_SECONDS), memory,
                                          block_goal_starts)
        self._hotspots = HotspotBuilder(base) if use_hotspots else None
        self._hotspot_budget = min(HOTSPOT_SECONDS, HOTSPOT_SHARE * limits.time_seconds) if (
            limits is not None and limits.time_seconds is not None) else HOTSPOT_SECONDS
        self._hotspot_spent = 0.0
        self._hotspot_state = "building" if use_hotspots else "off"

    def prepare(self, seconds: float) -> bool:
        """The packing-order search, in slices, then the plan and its zones;
        then the hotspot table, in slices."""
        if self._packing is not None:
            if not self._packing.step(seconds):
                return False
            self._set_plan()
            return self._hotspots is None
        if self._hotspots is None:
            return True
        t0 = time.perf_counter()
        done = self._hotspots.step(min(seconds, self._hotspot_budget - self._hotspot_spent))
        self._hotspot_spent += time.perf_counter() - t0
        if done:
            self.params = self.params._replace(hot=self._hotspots.tables)
            self._hotspot_state = f"on ({self._hotspot_spent:.3f} s)"
        elif self._hotspot_spent < self._hotspot_budget:
            return False
        else:
            self._hotspot_state = "skipped (the table took too long)"
        self._hotspots = None
        return True

    def _set_plan(self) -> None:
        """The plan (and its OOP zones) from the finished packing search."""
        order, removed = self._packing.order()
        self.plan_info = {"plan": "naive", **self._packing.describe(),
                          "packing_removed": removed}
        if removed > 0:
            p = self.params.base
            order = np.array(self._rooms_in_order(order), np.int32)
            zone = oop_zones(p.inside, p.dead, p.deltas, p.index_cell, order)
            adv = self.params.adv
            if adv.on:
                walk = np.full((len(order), zone.shape[1]), FAR, np.int32)
                walk_distances(p.inside, p.deltas, order, walk)
                oop_dist = np.zeros(zone.shape, np.int32)
                push_distances(p.inside, p.deltas, zone, oop_dist)
                adv = adv._replace(walk=walk, oop_dist=oop_dist)
            area_of = goal_areas(order, p.deltas) if self.by_goal_area else {}
            split, area_end = split_by_area(order, area_of)
            starts = sorted(self.puzzle.level.boxes)

            def reachable(k):
                return reach_from_starts(p.inside, p.deltas, order[:k], starts)

            rank_of = np.full(p.inside.shape[0], -1, np.int32)
            rank_of[order] = np.arange(len(order), dtype=np.int32)
            reach, parts = empty_tables()
            cut_sources = empty_cutoffs()
            if table_fits(len(order), len(p.index_cell)):
                reach, parts = plan_tables(len(order), len(p.index_cell))
                plan_reach(p.inside, p.deltas, p.index_cell, p.player_index, order,
                           self.params.fw, reach, parts)
                cut_sources = cutoff_tables(len(order), len(p.index_cell))
                goal_cutoffs(p.inside, p.deltas, p.index_cell, order, cut_sources)
            parking = self._packing.parking() if self.park_boxes else {}
            park_start, park_cells = parking_arrays(order, parking, reachable)
            self.params = self.params._replace(
                plan=PlanParams(0, order, zone, split, area_end, rank_of, reach, parts,
                                np.zeros(len(order), np.uint64), mask_matching_work(),
                                park_start, park_cells, parking_base(park_start),
                                cut_sources), adv=adv)
            self.plan_info["plan"] = "packing order"
            self.plan_info["parking_steps"] = int(np.count_nonzero(np.diff(park_start)))
            self.plan_info["plan_reach"] = bool(reach.shape[0])
        self._packing = None

    def _rooms_in_order(self, order: list[int]) -> list[int]:
        """The plan's ``order`` with each goal room's goals, in the places
        the plan gives them, put in the room's own packing order (so that
        the packed feature follows the goal-room macro)."""
        order = list(order)
        for room in self.goal_rooms:
            places = [i for i, g in enumerate(order) if g in room.cells]
            for i, g in zip(places, room.order):
                order[i] = g
        return order

    @property
    def complete(self) -> bool:
        """False once the goal-room macro has dropped a move (:mod:`.goalrooms`)."""
        return int(self.params.goal_rooms.dropped[0]) == 0

    def detach(self) -> bool:
        """True: a portfolio may run this search in a thread of its own.
        Its scratch is its own; it writes nothing the other engines read,
        and of what they write it reads only the perimeter and the learned
        deadlock patterns, tables with one writer that publishes an entry
        after writing it in full (:mod:`pdbsearch.fences`): a read at worst
        misses an entry being added."""
        return True

    def describe(self) -> dict:
        """The plan found (and whether it has its :mod:`.planreach` table),
        whether the hotspot feature is on, the goal rooms and the moves
        their macro dropped, what the dead-end probes did and what the
        frozen-box test did (:mod:`.frozencut`)."""
        counters = self.params.probe.counters
        frozen = self.params.frozen.counters
        return {**self.plan_info, "hotspots": self._hotspot_state,
                "goal_rooms": len(self.goal_rooms),
                "goal_room_dropped": int(self.params.goal_rooms.dropped[0]),
                "probes": int(counters[PROBES]), "probes_dead": int(counters[PROVED]),
                "probe_expanded": int(counters[SPENT]), "probe_kept": int(counters[KEPT]),
                "probe_hits": int(counters[HITS]), "probe_reached": int(counters[REACHED]),
                "frozen_cut_tests": int(frozen[CUT_TESTS]),
                "frozen_cut_tables": int(frozen[CUT_TABLES]),
                "frozen_cut_dead": int(frozen[CUT_DEAD]),
                "frozen_cut_learned": int(frozen[CUT_LEARNED])}

    def load_kernels(self) -> None:
        """Compile (or load) the replay and preparation kernels."""
        load_macro_edge_kernels(self.puzzle, self._replay_work, self._occ)
        load_goal_room_kernels(type(self.puzzle))
        if self._hotspots is not None:
            self._hotspots.load_kernels()
        if self._packing is not None:
            self._packing.load_kernels()
            p = self.params.base
            oop_zones(p.inside, p.dead, p.deltas, p.index_cell, np.zeros(0, np.int32))
            # the plan's goals are int32, as _set_plan passes them
            walk_distances(p.inside, p.deltas, np.zeros(0, np.int32),
                           np.zeros((0, 1), np.int32))
            push_distances(p.inside, p.deltas, np.zeros((0, 1), np.uint8),
                           np.zeros((0, 1), np.int32))
            plan_reach(p.inside, p.deltas, p.index_cell, p.player_index,
                       np.zeros(0, np.int32), self.params.fw,
                       *plan_tables(0, len(p.index_cell)))
            goal_cutoffs(p.inside, p.deltas, p.index_cell, np.zeros(0, np.int32),
                         cutoff_tables(0, len(p.index_cell)))

    def codes_between(self, parent_key, child_key) -> list[int]:
        """The pushes of one macro edge (``cell * 4 + direction``)."""
        return macro_edge_codes(self.puzzle, parent_key, child_key, self._replay_work, self._occ)


def load_macro_edge_kernels(puzzle, work: MacroWork, occ: np.ndarray) -> None:
    """Compile (or load) the kernels of :func:`macro_edge_codes`."""
    macro_path(0, 0, 0, 0, occ, occ, occ, puzzle.params.deltas, work, np.zeros(1, np.int32))


def macro_edge_codes(puzzle, parent_key, child_key, work: MacroWork, occ: np.ndarray) -> list[int]:
    """The pushes (``cell * 4 + direction``) of a macro edge between two
    forward keys of ``puzzle``: one box pushed, or one box gone round and
    back with the player on another side (``work``, ``occ``: scratch)."""
    boxes, player = puzzle.position_of(parent_key)
    new_boxes, new_player = puzzle.position_of(child_key)
    if boxes != new_boxes:
        (s,) = boxes - new_boxes
        (c,) = new_boxes - boxes
        moves = [(s, c)]
    else:  # a box went round and back: the player changed sides of it
        moves = [(b, b) for b in sorted(boxes)]
    occ[:] = 0
    occ[list(boxes)] = 1
    p = puzzle.params
    out = np.zeros(4 * occ.shape[0], np.int32)
    for s, c in moves:
        n = macro_path(s, c, new_player, player, p.inside, occ, p.dead, p.deltas, work, out)
        if n > 0:
            return [int(x) for x in out[:n]]
    raise AssertionError("a macro edge with no pushes")
