"""Tests of the plain-Python Sokoban oracles (replay, dead squares, BFS)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.errors import IllegalMoveError
from pdbsearch.sokoban import (Level, check_solution, load_levels, parse_push,
                               parse_xsb_collection, replay_lurd)
from pdbsearch.testing.sokoban import (StateLimitError, bfs_min_moves, bfs_min_moves_solution,
                                       bfs_min_pushes, bfs_min_pushes_solution, dead_squares)

LEVELS = Path(__file__).resolve().parents[2] / "puzzles"
PUSH = LEVELS / "push"
MICROBAN = LEVELS / "sokoban" / "microban.txt"


def xsb(text: str) -> Level:
    return parse_xsb_collection(text)[0]




# -- Push!! -------------------------------------------------------------------


def test_push_sample_needs_five_pushes():
    # The worked example of seed 000 (the first map of the Push!! sample
    # input): the article gives 5 as its minimum number of pushes.
    level = load_levels(PUSH / "sample_map1_only.in")[0]
    expected = int((PUSH / "sample_map1_only.out").read_text().split()[0])
    assert expected == 5
    assert bfs_min_pushes(level) == 5
    solution = bfs_min_pushes_solution(level)
    assert check_solution(level, solution)[0] == 5


@pytest.mark.parametrize("text", [
    # The box sits in a corner that is not the goal.
    "3 3\n2 0 0\n0 4 0\n0 0 3\n0 0\n",
    # The player is walled off from the box.
    "5 3\n4 1 0 0 0\n1 1 2 0 3\n0 0 0 0 0\n0 0\n",
    # The box can only slide along the top wall, the goal is below it.
    "4 3\n0 2 0 0\n0 4 0 0\n0 0 3 0\n0 0\n",
])
def test_unsolvable_push_maps(text):
    level = parse_push(text)[0]
    assert bfs_min_pushes(level) is None
    assert bfs_min_pushes(level, prune_dead=False) is None
    assert bfs_min_pushes_solution(level) is None
    assert bfs_min_moves(level) is None


# -- replay -------------------------------------------------------------------


CORRIDOR = """\
#######
#@ $ .#
#######
"""


def test_replay_and_check_solution():
    level = xsb(CORRIDOR)
    boxes, player, pushes, steps = replay_lurd(level, "rRR")
    assert boxes == level.goals and player == level.cell(1, 4)
    assert (pushes, steps) == (2, 3)
    assert check_solution(level, "r R\nR") == (2, 3)   # blanks are skipped
    start = level.cell(1, 3)
    assert replay_lurd(level, "R", player=level.cell(1, 2),
                       boxes={start})[2] == 1


@pytest.mark.parametrize("lurd, number, why", [
    ("l", 1, "walks into a wall"),
    ("u", 1, "walks into a wall"),
    ("rr", 2, "runs into a box"),
    ("R", 1, "no box to push"),
    ("rRRR", 4, "into a wall"),
    ("rx", 2, "not a LURD move"),
])
def test_replay_rejects_illegal_moves(lurd, number, why):
    with pytest.raises(IllegalMoveError, match=why) as info:
        replay_lurd(xsb(CORRIDOR), lurd)
    assert info.value.move_number == number


def test_replay_rejects_pushing_two_boxes():
    level = xsb("########\n#@$$ ..#\n########\n")
    with pytest.raises(IllegalMoveError, match="into another box") as info:
        replay_lurd(level, "R")
    assert info.value.index == 0


def test_check_solution_rejects_unsolved_end():
    with pytest.raises(IllegalMoveError, match="1 box off the goals"):
        check_solution(xsb(CORRIDOR), "rR")


# -- dead squares -------------------------------------------------------------


def cells(level: Level, mask: np.ndarray) -> set[tuple[int, int]]:
    return {tuple(map(int, rc)) for rc in np.argwhere(mask)}


def test_dead_squares_of_a_low_room():
    # Three rows high: a box on the top or bottom row can never leave it,
    # and in the middle row it cannot be pulled to the side cells.
    level = xsb("#######\n#@    #\n# $.  #\n#     #\n#######\n")
    dead = dead_squares(level)
    assert dead.shape == (level.height, level.width)
    live = {(2, 2), (2, 3), (2, 4)}
    floor = {(r, c) for r in (1, 2, 3) for c in range(1, 6)}
    assert cells(level, dead) == floor - live


def test_corner_with_goal_is_not_dead():
    level = xsb("######\n#.   #\n#    #\n#  $ #\n#   @#\n######\n")
    dead = dead_squares(level)
    assert not dead[1, 1]            # a corner, but it holds the goal
    assert dead[1, 4] and dead[4, 1] and dead[4, 4]
    expected = {(4, c) for c in range(1, 5)} | {(r, 4) for r in range(1, 5)}
    assert cells(level, dead) == expected
    # Walls and outside cells are never marked.
    assert not dead[0].any() and not dead[:, 0].any()


def test_dead_squares_in_a_dead_end():
    level = xsb("  #####\n  #@$.#\n  ## ##\n   # #\n   ###\n")
    dead = dead_squares(level)
    # A box can be pulled one cell into the dead end below (the puller
    # backs into its last cell) and pushed out again; not two cells.
    assert cells(level, dead) == {(1, 3), (3, 4)}


# -- BFS ----------------------------------------------------------------------


def test_trivial_levels():
    level = xsb(CORRIDOR)
    assert bfs_min_pushes(level) == 2
    assert bfs_min_pushes_solution(level) == "rRR"
    assert bfs_min_moves(level) == 3
    solved = level.with_state(boxes=level.goals)
    assert bfs_min_pushes(solved) == 0 and bfs_min_moves(solved) == 0
    assert bfs_min_pushes_solution(solved) == ""


def test_state_limit():
    level = load_levels(MICROBAN)[5]
    with pytest.raises(StateLimitError):
        bfs_min_pushes(level, max_states=50)
    with pytest.raises(StateLimitError):
        bfs_min_moves(level, max_states=50)


@pytest.mark.parametrize("number", [1, 2, 3, 4, 9, 12, 17, 21, 44])
def test_small_microban_levels(number):
    level = load_levels(MICROBAN)[number - 1]
    pushes = bfs_min_pushes(level)
    assert pushes is not None
    assert bfs_min_pushes(level, prune_dead=False) == pushes

    solution = bfs_min_pushes_solution(level)
    push_count, push_steps = check_solution(level, solution)
    assert push_count == pushes

    moves = bfs_min_moves(level)
    move_solution = bfs_min_moves_solution(level)
    move_pushes, move_steps = check_solution(level, move_solution)
    assert move_steps == moves == len(move_solution)
    assert bfs_min_moves(level, prune_dead=False) == moves
    # Each optimum bounds the other solution's count.
    assert moves <= push_steps
    assert move_pushes >= pushes


@st.composite
def small_rooms(draw):
    """Walled rooms up to 5 x 4 inside, some inner walls, 1 or 2 boxes."""
    width, height = draw(st.integers(2, 5)), draw(st.integers(2, 4))
    walls = np.ones((height + 2, width + 2), dtype=bool)
    walls[1:-1, 1:-1] = False
    inside = [r * (width + 2) + c for r in range(1, height + 1)
              for c in range(1, width + 1)]
    n = draw(st.integers(1, 2))
    order = draw(st.permutations(inside))
    pieces, rest = order[:n + 1], order[n + 1:]
    for cell in draw(st.lists(st.sampled_from(rest), max_size=3)
                     if rest else st.just([])):
        walls.flat[cell] = True
    goals = draw(st.permutations(inside))
    goals = [g for g in goals if not walls.flat[g]][:n]
    if len(goals) < n:
        goals = pieces[1:]
    return Level.from_parts(walls, goals, pieces[1:], [pieces[0]])


@st.composite
def scrambled_rooms(draw, rooms=small_rooms, pull_range=(4, 20)):
    """Solvable rooms (drawn from ``rooms()``): start solved, then make
    random pulls (the reverse of pushes), as many as ``pull_range`` says (least,
    most) while one can be made.  Returns the level and the number of pulls
    made."""
    base = draw(rooms())
    boxes = set(base.goals)
    free = [c for c in base.floor_cells() if c not in boxes]
    if not free:
        return base, None
    player = draw(st.sampled_from(free))
    pulls = 0
    choices = st.lists(st.integers(0, 10_000), min_size=pull_range[0], max_size=pull_range[1])
    for choice in draw(choices):
        reach = base.reachable(player, boxes)
        options = [(b, d) for b in sorted(boxes)
                   for d in (-1, -base.width, 1, base.width)
                   if b + d in reach and base.is_floor(b + 2 * d)
                   and b + 2 * d not in boxes]
        if not options:
            break
        box, d = options[choice % len(options)]
        boxes = (boxes - {box}) | {box + d}
        player = box + 2 * d
        pulls += 1
    return base.with_state(boxes=boxes, player=player), pulls


def check_agreement(level: Level) -> int | None:
    """Both BFS, with and without pruning, and their solutions agree."""
    pushes = bfs_min_pushes(level)
    moves = bfs_min_moves(level)
    assert bfs_min_pushes(level, prune_dead=False) == pushes
    assert bfs_min_moves(level, prune_dead=False) == moves
    assert (pushes is None) == (moves is None)
    if pushes is None:
        return None
    # A solvable level has no box on a dead square (dead squares are sure).
    dead = dead_squares(level)
    assert not any(dead.flat[b] for b in level.boxes)
    assert check_solution(level, bfs_min_pushes_solution(level))[0] == pushes
    move_pushes, _ = check_solution(level, bfs_min_moves_solution(level))
    assert move_pushes >= pushes
    assert len(bfs_min_moves_solution(level)) == moves
    return pushes


@settings(max_examples=40, deadline=None)
@given(small_rooms())
def test_bfs_agree_on_random_rooms(level):
    check_agreement(level)


@settings(max_examples=60, deadline=None)
@given(scrambled_rooms())
def test_bfs_solve_scrambled_rooms(case):
    level, pulls = case
    pushes = check_agreement(level)
    if pulls is not None:
        # The pulls, replayed backwards, are a solution.
        assert pushes is not None and pushes <= pulls
