"""Goals stranded behind boxes the player cannot push
(:func:`pdbsearch.sokoban.deadlocks.stranded_goal_deadlock`): a drawn case
that the frozen-box test misses, the player's place deciding, the kernel
against its plain-Python reference on random positions, soundness (every
position it calls dead has no solution by our own push BFS), that it is
at least as strong as the sealed-goal test, and FESS's lazy check using it."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.byref import to_ref
from pdbsearch.puzzle import DEAD
from pdbsearch.search.common import evaluate_heuristic
from pdbsearch.search.fess_protocol import late_check_once
from pdbsearch.search.result import Limits
from pdbsearch.sokoban.deadlocks import cut_work
from pdbsearch.sokoban.fess import SokobanFessDomain
from pdbsearch.sokoban.puzzle import Rules, SokobanPuzzle
from pdbsearch.testing.sokoban import (bfs_min_pushes, frozen_boxes, goal_cut_off,
                                       sealed_goals_dead, stranded_goals_dead, unpushable_boxes)

from .helpers import (ONLY_FREEZE, SMALL_MICROBAN, goal_heavy_boxes, kernel_successors, microban,
                      sealed_kernel, stranded_kernel, xsb)

#: A two-wide goal column (columns 1 and 2, rows 1 to 6) packed out of
#: order, as FESS packed one on holland 5: the goals at (2, 1) and (4, 1)
#: are empty.  The box at (3, 1) between them is not frozen (both of its
#: column neighbours are free), so a lone box could still be pulled out of
#: either hole onto it, and the sealed-goal test calls the position alive.
#: But it could only be pushed by a player standing in a hole, and the
#: player can never get there: every other box of the column is frozen.
STRANDED = """\
######
#**###
#.*###
#**###
#.*###
#**###
#**###
#    #
# $$ #
#  @ #
######
"""


def _kernels(puzzle, boxes, player) -> tuple[bool, bool]:
    """The sealed-goal and the stranded-goal kernels on one position."""
    return sealed_kernel(puzzle, boxes), stranded_kernel(puzzle, boxes, player)


def test_a_goal_column_packed_out_of_order_strands_its_holes():
    level = xsb(STRANDED)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    between = level.cell(3, 1)
    assert between not in frozen_boxes(level, level.boxes)
    assert between in unpushable_boxes(level, level.boxes, level.player)
    assert _kernels(puzzle, level.boxes, level.player) == (False, True)
    assert not sealed_goals_dead(level, level.boxes)
    assert stranded_goals_dead(level, level.boxes, level.player)
    assert bfs_min_pushes(level) is None


def test_the_player_s_place_decides_which_boxes_are_walls():
    """The same boxes with the player in a hole: the box between the holes
    can now be pushed (into the other hole), but the player is shut in the
    column for good, so the two loose boxes below are the ones it can never
    push, off their goals: dead for another reason, which the BFS confirms."""
    level = xsb(STRANDED)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    in_hole = level.cell(2, 1)
    walls = unpushable_boxes(level, level.boxes, in_hole)
    assert level.cell(3, 1) not in walls
    assert {level.cell(8, 2), level.cell(8, 3)} <= walls
    assert _kernels(puzzle, level.boxes, in_hole) == (False, True)
    assert stranded_goals_dead(level, level.boxes, in_hole)
    assert bfs_min_pushes(level.with_state(boxes=level.boxes, player=in_hole)) is None


def _check_level(number: int) -> tuple[int, int, int]:
    """Kernel against reference, soundness, and strength against the
    sealed-goal test and the pull that ignores the player, on random
    positions of Microban ``number``; returns how many positions it called
    dead, how many of those the sealed-goal test missed, and how many the
    pull missed when the player may stand anywhere."""
    level = microban(number)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    dead = puzzle.dead_squares
    rng = np.random.default_rng(1000 + number)
    shared = to_ref(cut_work(puzzle.params.inside.shape[0]))
    fired = missed = unfollowed = 0
    for _ in range(40):
        boxes = goal_heavy_boxes(level, rng, dead)
        free = sorted(level.playable_cells() - boxes)
        player = free[int(rng.integers(len(free)))]
        sealed, stranded = _kernels(puzzle, boxes, player)
        assert stranded == stranded_goals_dead(level, boxes, player, dead)
        # Scratch left by the last position, then by this one (its walls
        # numbered already): the same verdict.
        for _ in range(2):
            assert stranded_kernel(puzzle, boxes, player, shared) == stranded
        assert sealed == sealed_goals_dead(level, boxes, dead)
        assert stranded or not sealed, "a frozen set is never pushable"
        anywhere = goal_cut_off(level, boxes, unpushable_boxes(level, boxes, player, dead))
        assert stranded or not anywhere, "following the player only takes pulls away"
        if stranded:
            fired += 1
            missed += not sealed
            unfollowed += not anywhere
            assert bfs_min_pushes(level.with_state(boxes=boxes, player=player)) is None
    return fired, missed, unfollowed


@pytest.mark.parametrize("number", SMALL_MICROBAN)
def test_the_kernel_matches_its_reference_and_is_sound(number):
    _check_level(number)


def test_the_kernel_fires_where_the_sealed_goal_test_does_not():
    """The properties above are not vacuous: some random positions are
    stranded, some of them are not sealed, and some are stranded only
    because the pull follows the player (Microban 9 has six)."""
    counts = [_check_level(n) for n in SMALL_MICROBAN]
    assert sum(f for f, _, _ in counts) > 0
    assert sum(m for _, m, _ in counts) > 0
    assert sum(u for _, _, u in counts) > 0


def test_fess_drops_a_stranded_position_when_it_keeps_it():
    """FESS's lazy check (on every position it keeps) sees the stranded
    column; the matching alone does not."""
    level = xsb(STRANDED)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False,
                               use_hotspots=False, use_stuck=False, use_probes=False)
    key = puzzle.key_of(level.boxes, level.player)
    assert evaluate_heuristic(puzzle.params, key) < DEAD
    assert late_check_once(domain.params, key)


def test_the_push_expansion_drops_a_push_that_strands_a_goal():
    """Every algorithm meets the test in the push expansion, when a push
    freezes its box on a goal.  On Microban 98, pushing the box at (3, 8)
    right onto the goal at (3, 9) freezes it there and leaves the goal at
    (5, 9) empty between boxes.  The box below the hole, at (6, 9), is not
    frozen (it could be pushed up from (7, 9)), so the sealed-goal test
    keeps the child; but the player, shut in the left part of the level,
    can never get below it.  (Found by the plain-Python references among
    random positions of Microban levels.  The parent is dead too, but no
    test runs on it: the expansion tests a position only when a push
    freezes a box.)"""
    level = microban(98)
    cell = level.cell
    boxes = frozenset(cell(*rc) for rc in ((2, 9), (3, 8), (4, 9), (5, 2), (6, 9)))
    player = cell(6, 2)
    stranding = boxes - {cell(3, 8)} | {cell(3, 9)}
    with_rule = {s[0] for s in kernel_successors(
        SokobanPuzzle(level, "pushes", "zero", ONLY_FREEZE), boxes, player)}
    without = {s[0] for s in kernel_successors(
        SokobanPuzzle(level, "pushes", "zero", Rules.none()), boxes, player)}
    assert stranding in without - with_rule
    for other in without - with_rule - {stranding}:   # the freeze test's own
        (moved,) = other - boxes
        assert moved in frozen_boxes(level, other) and moved not in level.goals
    assert not sealed_goals_dead(level, stranding)
    assert stranded_goals_dead(level, stranding, cell(3, 8))
    assert bfs_min_pushes(level.with_state(boxes=stranding, player=cell(3, 8))) is None
