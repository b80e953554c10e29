"""The packing order (backward search) and the OOP zones against plain
definitions, and the portfolio of ``--algo fess``."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.search import Limits, Status, member_label, solve
from pdbsearch.sokoban.packing import PackingSearch, oop_zones
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.fess import oop_zones as oracle_zones

from .helpers import microban, xsb

CORRIDOR = """\
##########
#@ $$$...#
##########
"""

#: A goal room with one entrance: the far goals must be filled first.
ROOM = """\
########
#      #
# $$$$ #
#   @  #
###..###
  #..#
  ####
"""


def packing_order(level, block_goal_starts=False):
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    search = PackingSearch(puzzle, budget_seconds=10.0, memory_bytes=1 << 28,
                           block_goal_starts=block_goal_starts)
    while not search.step(0.1):
        pass
    return search, *search.order()


def test_a_corridor_is_filled_from_the_far_end():
    level = xsb(CORRIDOR)
    search, order, removed = packing_order(level)
    assert search.outcome == "solved" and removed == 3
    assert order == sorted(level.goals, reverse=True)


def test_a_goal_room_is_filled_from_the_back():
    level = xsb(ROOM)
    search, order, removed = packing_order(level)
    assert search.outcome == "solved" and removed == len(level.goals)
    rows = [g // level.width for g in order]
    assert rows == [5, 5, 4, 4]  # the back row first


#: A corridor whose near goal holds a box that must move to the far end.
CORRIDOR_THROUGH_A_PACKED_BOX = """\
##########
#@ $$*..##
##########
"""


@pytest.mark.parametrize("block", [False, True])
def test_a_box_on_a_goal_in_the_way_moves_and_its_goal_is_filled_last(block):
    # With goal start squares blocking, taking the box off where it stands
    # would wall in the far goals: the box has to be pulled away.
    level = xsb(CORRIDOR_THROUGH_A_PACKED_BOX)
    search, order, removed = packing_order(level, block_goal_starts=block)
    assert search.outcome == "solved" and removed == 3
    assert order == sorted(level.goals, reverse=True)


@pytest.mark.parametrize("number", [15, 52, 101, 107, 144, 155])
def test_a_used_goal_start_square_stays_blocked(number):
    """Microban levels with boxes that start on goals, goal start squares
    blocking: along the backward path no box enters such a square once a
    box was taken off on it, and every one of them is used in the end."""
    level = microban(number)
    search, order, removed = packing_order(level, block_goal_starts=True)
    assert search.outcome == "solved" and removed == len(level.goals)
    domain = search.domain
    keys = search.engine.solution_keys()
    blocked: set[int] = set()
    for before, after in zip(keys, keys[1:]):
        assert not domain.boxes_of(after) & blocked
        blocked |= (domain.used_starts_of(after) - domain.used_starts_of(before)) & level.goals
    assert blocked == level.goals & level.boxes
    assert sorted(order) == sorted(level.goals)


@pytest.mark.parametrize("number", [1, 23])
def test_an_extraction_that_leaves_no_match_gives_way_to_the_pulls(number):
    """Microban 1 and 23, goal start squares blocking: the first box taken
    off leaves the others no start square to match, so with the extraction
    as the only move the backward search ended at once, with no plan.  The
    pulls are the moves then, and the plan is whole."""
    level = microban(number)
    search, order, removed = packing_order(level, block_goal_starts=True)
    assert search.outcome == "solved" and removed == len(level.goals)
    assert sorted(order) == sorted(level.goals)
    keys = search.engine.solution_keys()
    assert search.domain.boxes_of(keys[-1]) == set()


@pytest.mark.parametrize("number", [1, 6, 36, 93])
def test_oop_zones_match_the_definition(number):
    level = microban(number)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    p = puzzle.params
    rng = np.random.default_rng(number)
    order = [int(g) for g in rng.permutation(sorted(level.goals))]
    zone = oop_zones(p.inside, p.dead, p.deltas, p.index_cell, np.array(order, np.int32))
    want = oracle_zones(level, order, puzzle.dead_squares)
    for k, cells in enumerate(want):
        assert set(np.flatnonzero(zone[k]).tolist()) == cells, k


def test_the_portfolio_names_its_winner_and_each_member():
    puzzle = SokobanPuzzle(microban(5), "pushes", "matching")
    members = {member_label(algo, weight) for algo, weight, *_ in puzzle.fess_portfolio()}
    assert len(members) >= 2
    result = solve(puzzle, "fess", limits=Limits(time_seconds=20), shorten=0)
    assert result.status is Status.SOLVED and not result.optimal   # FESS proves nothing
    report = result.extra["fess"]
    assert report["winner"] in members
    assert set(report["members"]) == members
    assert sum(m["share"] for m in report["members"].values()) == pytest.approx(1.0)
    # Weighted A* and greedy run at a smaller share after their openings,
    # the relay at a larger one; the others keep theirs.
    late = {label: m["late_share"] for label, m in report["members"].items()
            if m["late_share"] is not None}
    assert set(late) == {"wastar w=2", "greedy", "fess-relay"}
    first = {label: report["members"][label]["share"] for label in late}
    assert 0 < late["wastar w=2"] < first["wastar w=2"] and 0 < late["greedy"] < first["greedy"]
    assert late["fess-relay"] > first["fess-relay"] > 0


def test_the_portfolio_stops_at_the_memory_limit():
    from pdbsearch.sokoban import load_levels
    from .helpers import LEVELS
    level = load_levels(LEVELS / "sokoban" / "sasquatch5.txt")[46]
    result = solve(SokobanPuzzle(level, "pushes", "matching"), "fess",
                   limits=Limits(memory_mb=8, time_seconds=60))
    assert result.status in (Status.LIMIT, Status.SOLVED)
    if result.status is Status.LIMIT:
        assert result.stop_reason == "memory"
    assert result.memory_bytes <= 8 << 20


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_portfolio_runs_fess_in_threads_of_its_own_when_it_may(threads):
    # More than one thread: the FESS engines, forward and backward, detach
    # (their own scratch; the tables they read while others write them
    # publish entries whole) into the helper threads, one each while
    # threads last, then in turn; the others share the caller's.
    puzzle = SokobanPuzzle(microban(5), "pushes", "matching")
    result = solve(puzzle, "fess", limits=Limits(time_seconds=20, threads=threads))
    assert result.status is Status.SOLVED
    puzzle.check_solution([s.code for s in result.steps])
    lanes = {label: m["lane"] for label, m in result.extra["fess"]["members"].items()}
    want = {1: (0, 0, 0, 0), 2: (1, 1, 1, 1), 3: (1, 2, 1, 2)}[threads]
    assert (lanes.pop("fess-only"), lanes.pop("fess-nearest"), lanes.pop("fess-backward"),
            lanes.pop("fess-relay")) == want
    assert set(lanes.values()) == {0}


def test_the_portfolio_reports_each_members_own_figures():
    """Two FESS engines in one portfolio: each member's report holds its own
    cells and plan; the top level reads as the first FESS engine's."""
    puzzle = SokobanPuzzle(microban(5), "pushes", "matching")
    result = solve(puzzle, "fess", limits=Limits(time_seconds=20, threads=1))
    assert result.status is Status.SOLVED
    report = result.extra["fess"]
    first, second = report["members"]["fess-only"], report["members"]["fess-nearest"]
    for member in (first, second):
        assert {"cells", "plan", "probes"} <= set(member)
    assert all(report[key] == first[key] for key in ("cells", "plan", "probes"))
    assert "cells" not in report["members"]["wastar w=2"]


def test_the_second_fess_engine_breaks_ties_by_the_nearest_goals():
    """``fess-nearest`` is FESS with the other tie-break and the other
    reading of goal start squares; alone in the portfolio it solves a
    level, and the solution replays."""
    puzzle = SokobanPuzzle(microban(5), "pushes", "matching")
    first = puzzle.fess_domain(Limits())
    second = puzzle.portfolio_engine("fess-nearest", Limits()).domain
    assert (first.params.h_rank, second.params.h_rank) == (1, 0)
    assert (first._packing.domain.params.block, second._packing.domain.params.block) == (0, 1)
    with pytest.raises(ValueError, match="no portfolio engine"):
        puzzle.portfolio_engine("fess-farthest", Limits())
    puzzle.fess_portfolio = lambda: [("fess-nearest", 1.0, 1.0)]
    result = solve(puzzle, "fess", limits=Limits(time_seconds=20, threads=1))
    assert result.status is Status.SOLVED
    assert result.extra["fess"]["winner"] == "fess-nearest"
    puzzle.check_solution([s.code for s in result.steps])


# -- the packed feature, whole or by goal area ------------------------------------

#: Two goal areas of two goals and a lone goal, and boxes for them.
THREE_AREAS = """\
############
#          #
# ..  .  ..#
#  $ $@$ $ #
#  $       #
#          #
############
"""


@pytest.mark.parametrize("by_goal_area", [False, True])
@pytest.mark.parametrize("text", [THREE_AREAS, "microban 95", "microban 105", "microban 11",
                                  "microban 98"])
def test_the_packed_feature_counts_the_plan_whole_or_by_goal_area(text, by_goal_area):
    from pdbsearch.search.result import Limits as Limits_
    from pdbsearch.sokoban.features import UNPACKED
    from pdbsearch.sokoban.fess import SokobanFessDomain
    from pdbsearch.testing.fess import (PlanReach, feasible_packed, packed_by_goal_area,
                                        parking_credit)

    from .helpers import random_position
    from .test_fess_macros import fess_children

    level = microban(int(text.split()[1])) if text.startswith("microban") else xsb(text)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    domain = SokobanFessDomain(puzzle, Limits_(), by_goal_area=by_goal_area)
    while not domain.prepare(0.5):
        pass
    assert domain.plan_info["plan"] == "packing order" and domain.plan_info["plan_reach"]
    order = domain.params.plan.order.tolist()
    assert sorted(order) == sorted(level.goals)

    reach = PlanReach(level, order)
    plan = domain.params.plan
    parked = {k: set(plan.park_cells[plan.park_start[k]:plan.park_start[k + 1]].tolist())
              for k in range(1, len(order) + 1)}

    top = len(level.boxes) + parking_credit(parked, len(order), (), len(order))

    def packed(boxes, player):
        # The prefix the other boxes cannot finish around, or packed before
        # the boxes it parks, is not counted (:mod:`pdbsearch.sokoban.planreach`),
        # whole or by area; the boxes parked count.
        prefix = next((k for k, g in enumerate(order) if g not in boxes), len(order))
        feasible = feasible_packed(reach, boxes, player, parked)
        credit = parking_credit(parked, len(order), boxes, feasible)
        if by_goal_area:
            return packed_by_goal_area(level, order, boxes) - prefix + feasible + credit
        return feasible + credit

    rng = np.random.default_rng(len(text))
    n = len(level.boxes)
    for _ in range(25):
        # Boxes on goals often: the feature is about them.
        boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
        if rng.random() < 0.7:
            on = rng.permutation(order)[:rng.integers(1, n + 1)].tolist()
            rest = [b for b in boxes if b not in on][:n - len(on)]
            boxes = frozenset(on + rest)
            if player in boxes:
                player = next(c for c in sorted(level.playable_cells()) if c not in boxes)
        children, info = fess_children(domain, puzzle.key_of(boxes, player))
        assert info[1 + UNPACKED] == top - packed(boxes, player)
        for (child_boxes, child_player), (_, _, feat, _) in children.items():
            assert feat[UNPACKED] == top - packed(child_boxes, child_player)


# -- boxes the plan parks ------------------------------------------------------------


def test_the_backward_path_parks_the_boxes_it_leaves_off_the_final_goals():
    from pdbsearch.sokoban.packing import parked_boxes

    # Goals 1, 2, 3.  Backward: goal 1's box is pulled to cell 5 (step 1),
    # goal 2's box taken off (step 2), goal 3's (step 3), then cell 5's.
    # Forward, the box on 5 came first and waits there while goals 3 and
    # 2 are filled; goal 1 is filled last, by that box.
    boxes_at = [{1, 2, 3}, {2, 3, 5}, {3, 5}, {5}, set()]
    first_empty = {1: 1, 2: 2, 3: 3}
    assert parked_boxes(first_empty, boxes_at, {1, 2, 3}) == {2: {5}, 3: {5}}
    # A goal the path never empties is filled for good from the start.
    assert parked_boxes({1: 1}, [{1, 2}, {2, 5}], {1, 2}) == {}


@pytest.mark.parametrize("shut", [[], [2], [1, 2]])
def test_a_parked_cell_counts_over_its_run_of_steps_only_if_the_run_shuts_it_off(shut):
    from pdbsearch.sokoban.plan import parking_arrays

    order = [3, 2, 1]                       # step 1 fills goal 3, step 2 goal 2, step 3 goal 1
    parking = {3: frozenset({5}), 2: frozenset({5}), 1: frozenset({6})}

    def reachable(k):
        mask = np.ones(8, np.uint8)
        if k in shut:
            mask[5] = 0
        return mask

    start, cells = parking_arrays(order, parking, reachable)
    steps = [sorted(cells[start[k]:start[k + 1]].tolist()) for k in range(1, 4)]
    five = [5] if shut else []
    assert steps == [five, five, []]         # cell 6 is never shut off: not parked
    start, cells = parking_arrays(order, parking)
    assert [sorted(cells[start[k]:start[k + 1]].tolist()) for k in range(1, 4)] == [[5], [5], [6]]


def test_the_packed_count_grows_box_by_box_while_the_plan_parks():
    """Goal 20 first, with boxes parked on 11 and 13 before it, then goal
    12 (the box of 13 moved onto it) with 11 still parked, then goal 10:
    along the plan the count grows by one a box parked or a goal packed,
    from 0 to 3 goals + 2 boxes."""
    from pdbsearch.sokoban.plan import parking_arrays, parking_base
    from pdbsearch.sokoban.planreach import parked_at, parking_credit
    from pdbsearch.testing.fess import parking_credit as reference

    order = [20, 12, 10]
    start, cells = parking_arrays(order, {20: frozenset({11, 13}), 12: frozenset({11})})
    base = parking_base(start)
    parked = {1: {11, 13}, 2: {11}}
    occ = np.zeros(40, np.uint8)
    path = [([], 0), ([13], 0), ([11, 13], 0), ([11, 13, 20], 1), ([11, 12, 20], 2),
            ([10, 12, 20], 3)]
    for step, (boxes, k) in enumerate(path):
        occ[:] = 0
        occ[boxes] = 1
        assert parked_at(start, cells, occ, k)
        assert k + parking_credit(start, cells, base, occ, k) == step, boxes
        assert k + reference(parked, 3, boxes, k) == step, boxes
    assert 3 + reference(parked, 3, (), 3) == len(path) - 1   # the solved position's count
    # Off the parked cells a box adds nothing.
    occ[:] = 0
    occ[[14, 15]] = 1
    assert parking_credit(start, cells, base, occ, 0) == 0 == reference(parked, 3, [14, 15], 0)


@pytest.mark.parametrize("park_boxes", [True, False])
def test_the_plan_parks_boxes_only_when_asked(park_boxes):
    """Microban 98's plan parks boxes (:func:`parked_boxes`); the second
    FESS engine of the portfolio reads its plan without them."""
    from pdbsearch.search.result import Limits as Limits_
    from pdbsearch.sokoban.fess import SokobanFessDomain

    puzzle = SokobanPuzzle(microban(98), "pushes", "matching")
    domain = SokobanFessDomain(puzzle, Limits_(), park_boxes=park_boxes)
    while not domain.prepare(0.5):
        pass
    plan = domain.params.plan
    steps = int(np.count_nonzero(np.diff(plan.park_start)))
    assert domain.plan_info["parking_steps"] == steps
    assert (steps > 0) == park_boxes
