"""Goal rooms and the goal-room macro (:mod:`pdbsearch.sokoban.goalrooms`):
the rooms found and their packing orders against plain-Python oracles (a
flood, the macro closure of single pushes) on drawn levels of a chamber
and a room behind a door; the FESS kernel's children against the oracle's
minus exactly the moves the macro forbids; an exhausted search with goal
rooms proves nothing."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pdbsearch
from pdbsearch.search import Status
from pdbsearch.search.result import Limits
from pdbsearch.sokoban.fess import SokobanFessDomain
from pdbsearch.sokoban.goalrooms import goal_rooms, packing_order
from pdbsearch.sokoban.model import Level
from pdbsearch.sokoban.puzzle import Rules, SokobanPuzzle
from pdbsearch.testing.fess import macro_children
from pdbsearch.testing.sokoban import bfs_min_pushes, dead_squares

from .helpers import random_position, script_module, xsb
from .test_fess_macros import DEAD_ONLY, fess_children

#: A chamber with two boxes frozen against its top wall (dead at the start),
#: a third box free to move, and a room of three goals behind the door at
#: row 2, column 5: the macro drops the third box's moves into the room
#: but to its next goal, and then the search runs out of moves.
STUCK_BEFORE_ROOM = """\
##########
# $$ #   #
#@ $   ..#
#    #  .#
##########
"""

#: The same with only the frozen pair and two goals: no move at all, so
#: none dropped, and the exhausted search is a proof.
STUCK_AT_START = """\
##########
# $$ #   #
#@     ..#
#    #   #
##########
"""

#: A chamber of three boxes and a room of three goals in a row behind the
#: door (row 2, column 5).  The room's entrance is the cell before the door
#: (the largest part cut off holds the door); it fills from the far end.
ROW_ROOM = xsb("""\
##########
# $  #   #
#@ $  ...#
#  $ #   #
##########
""")


@st.composite
def chamber_and_room(draw):
    """A chamber (boxes, player, maybe one goal) and, through a one-cell
    door in the wall between, a room with 2-3 goals and a few inner walls."""
    h = draw(st.integers(2, 4))
    a = draw(st.integers(2, 4))
    b = draw(st.integers(2, 4))
    n_room = draw(st.integers(2, 3))
    n_out = draw(st.integers(0, 1))
    n = n_room + n_out
    assume(a * h >= n + 1 and b * h >= n_room + 1)
    width = a + b + 3
    walls = np.ones((h + 2, width), dtype=bool)
    walls[1:-1, 1:a + 1] = False
    walls[1:-1, a + 2:a + 2 + b] = False
    door_row = draw(st.integers(1, h))
    walls[door_row, a + 1] = False
    chamber = [r * width + c for r in range(1, h + 1) for c in range(1, a + 1)]
    room = [r * width + c for r in range(1, h + 1) for c in range(a + 2, a + 2 + b)]
    inner = [c for c in room if c != door_row * width + a + 2]
    for cell in draw(st.lists(st.sampled_from(inner), max_size=2, unique=True)):
        walls.flat[cell] = True
    room = [c for c in room if not walls.flat[c]]
    assume(len(room) >= n_room)
    goals = draw(st.permutations(room))[:n_room]
    goals += draw(st.permutations(chamber))[:n_out]
    player = draw(st.sampled_from(chamber))
    # Boxes off the dead squares (most draws are unsolvable otherwise).
    probe = Level.from_parts(walls, goals, goals, [player]) if player not in goals else None
    dead = dead_squares(probe) if probe is not None else np.zeros(walls.shape, bool)
    live = [c for c in chamber if c != player and not dead.flat[c]]
    assume(len(live) >= n)
    boxes = draw(st.permutations(live))[:n]
    return Level.from_parts(walls, goals, boxes, [player])


def _flood(level: Level, start: int, wall: int) -> set[int]:
    seen, todo = {start}, [start]
    while todo:
        for x in level.neighbors(todo.pop()):
            if x != wall and x not in seen:
                seen.add(x)
                todo.append(x)
    return seen


def _fills(level: Level, entrance: int, filled, goal: int, dead) -> bool:
    """Oracle: with ``filled`` holding boxes, can a box on the entrance,
    the player just outside it, be pushed to ``goal``?"""
    outside = set(level.floor_cells()) - _flood(level, goal, entrance)
    for d in (-1, 1, -level.width, level.width):
        if entrance - d in outside and entrance + d not in outside and \
                level.is_floor(entrance + d):
            boxes = frozenset(filled) | {entrance}
            children = macro_children(level, boxes, entrance - d, dead)
            if any(b == frozenset(filled) | {goal} for b, _ in children):
                return True
    return False


def _valid(level: Level, entrance: int, order, dead) -> bool:
    return all(_fills(level, entrance, order[:k], g, dead) for k, g in enumerate(order))


def _rooms(level: Level):
    puzzle = SokobanPuzzle(level, "pushes", "matching", DEAD_ONLY)
    p = puzzle.params
    return puzzle, goal_rooms(level, p.inside, p.dead, p.deltas)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chamber_and_room())
def test_each_room_is_cut_off_by_its_entrance_and_its_order_fills_it(level):
    puzzle, rooms = _rooms(level)
    dead = puzzle.dead_squares
    for room in rooms:
        assert room.entrance not in level.goals | level.boxes
        assert not room.cells & level.boxes and len(room.cells & level.goals) >= 2
        assert set(room.order) == room.cells & level.goals
        assert _flood(level, next(iter(room.cells)), room.entrance) == room.cells
        assert _valid(level, room.entrance, room.order, dead)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chamber_and_room())
def test_the_greedy_retrograde_analysis_finds_an_order_whenever_one_exists(level):
    puzzle, _ = _rooms(level)
    p = puzzle.params
    dead = puzzle.dead_squares
    floor = set(level.floor_cells())
    door = None
    # The door: the one floor cell of the wall column between the two parts.
    for c in sorted(floor):
        if c - 1 in floor and c + 1 in floor and \
                not _flood(level, c - 1, c) & _flood(level, c + 1, c):
            right = _flood(level, c + 1, c)
            if right & level.goals and not right & level.boxes:
                door = c
                break
    assume(door is not None)
    cells = frozenset(_flood(level, door + 1, door))
    goals = cells & level.goals
    assume(len(goals) >= 2)
    order = packing_order(door, cells, level.goals, p.inside, p.dead, p.deltas)
    if order is None:
        assert not any(_valid(level, door, list(o), dead) for o in permutations(goals))
    else:
        assert _valid(level, door, list(order), dead)


def _allowed(room, boxes, moved_from, moved_to) -> bool:
    """The macro's rule, restated: a box coming into a clean room goes to
    its next goal; a full clean room takes no box; else anything goes."""
    if moved_to not in room.cells or moved_from in room.cells:
        return True
    k = 0
    while k < len(room.order) and room.order[k] in boxes:
        k += 1
    if len(boxes & room.cells) != k:
        return True
    return k < len(room.order) and moved_to == room.order[k]


def _check_children(level: Level, rng, trials: int) -> int:
    """The kernel's children of random positions are the oracle's minus
    those the macro forbids; returns how many were forbidden."""
    puzzle, rooms = _rooms(level)
    domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False)
    assert domain.goal_rooms == rooms
    dead = puzzle.dead_squares
    dropped = 0
    for _ in range(trials):
        boxes, player = random_position(level, rng, avoid=dead)
        got, _ = fess_children(domain, puzzle.key_of(boxes, player))
        want = macro_children(level, boxes, player, dead)
        kept = set()
        for new_boxes, new_player in want:
            moved = [(s, c) for s in boxes - new_boxes for c in new_boxes - boxes]
            if all(_allowed(room, boxes, s, c) for s, c in moved for room in rooms):
                kept.add((new_boxes, new_player))
        assert set(got) == kept
        dropped += len(want) - len(kept)
    return dropped


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chamber_and_room(), st.integers(0, 2**16))
def test_expand_drops_exactly_the_moves_the_goal_room_macro_forbids(level, seed):
    # A level whose live cells cannot hold its boxes (its start already
    # has one on a dead square) has no position to draw.
    puzzle, _ = _rooms(level)
    assume(len(set(level.playable_cells()) - set(puzzle.dead_squares)) >= len(level.boxes))
    _check_children(level, np.random.default_rng(seed), 6)


def test_a_box_entering_the_row_room_goes_to_the_far_end_first():
    puzzle, rooms = _rooms(ROW_ROOM)
    assert [(ROW_ROOM.row_col(r.entrance), [ROW_ROOM.row_col(g) for g in r.order])
            for r in rooms] == [((2, 4), [(2, 8), (2, 7), (2, 6)])]
    # From the start, the oracle has moves into the room that the macro
    # drops (so the comparison above can fail), and the kernel has none.
    domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False)
    got, _ = fess_children(domain, puzzle.initial_key())
    want = macro_children(ROW_ROOM, ROW_ROOM.boxes, ROW_ROOM.player, puzzle.dead_squares)
    def into_room(children):
        return {b - ROW_ROOM.boxes for b, _ in children
                if b != ROW_ROOM.boxes and b - ROW_ROOM.boxes <= rooms[0].cells}

    assert len(into_room(want)) > 1
    assert into_room(got) == {frozenset({ROW_ROOM.cell(2, 8)})}
    assert _check_children(ROW_ROOM, np.random.default_rng(5), 20) > 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chamber_and_room())
def test_fess_with_goal_rooms_never_claims_more_than_the_bfs_knows(level):
    """Solved means solvable (and the replay checked it); a level the BFS
    solves is never called unsolvable; a search that stops short of both
    has dropped moves into a goal room."""
    known = bfs_min_pushes(level, max_states=200_000)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    result = pdbsearch.solve(puzzle, algo="fess-only", time_limit=20, threads=1)
    if result.status is Status.SOLVED:
        assert known is not None and result.cost >= known
    elif result.status is Status.UNSOLVABLE:
        assert known is None
    else:
        assert result.stop_reason == "incomplete" and result.extra["fess"]["goal_rooms"]


@pytest.mark.parametrize("goal_rooms", [True, False])
def test_an_exhausted_search_with_goal_rooms_proves_nothing(goal_rooms, tmp_path, capsys):
    path = tmp_path / "stuck.xsb"
    path.write_text(STUCK_BEFORE_ROOM)
    puzzle = pdbsearch.load(path, rules=Rules(goal_rooms=goal_rooms))
    result = pdbsearch.solve(puzzle, algo="fess-only", time_limit=20, threads=1)
    assert result.extra["fess"]["goal_rooms"] == int(goal_rooms)
    if goal_rooms:
        assert result.status is Status.LIMIT and result.stop_reason == "incomplete"
    else:
        assert result.status is Status.UNSOLVABLE
    # No move dropped: a proof, goal rooms or not.
    stuck = tmp_path / "stuck_at_start.xsb"
    stuck.write_text(STUCK_AT_START)
    puzzle_at_start = pdbsearch.load(stuck, rules=Rules(goal_rooms=goal_rooms))
    assert puzzle_at_start.fess_domain(None).goal_rooms or not goal_rooms
    at_start = pdbsearch.solve(puzzle_at_start, algo="fess-only", time_limit=20, threads=1)
    assert at_start.status is Status.UNSOLVABLE
    # The portfolio: the engine with goal rooms retires; another proves it.
    portfolio = pdbsearch.solve(puzzle, algo="fess", time_limit=20, threads=1)
    assert portfolio.status is Status.UNSOLVABLE
    from pdbsearch.cli import main
    flags = [] if goal_rooms else ["--no-goal-rooms"]
    code = main(["solve", str(path), "--algo", "fess-only", "--time-limit", "20", *flags])
    out = capsys.readouterr().out
    if goal_rooms:
        assert code == 3 and "proves nothing" in out
    else:
        assert code == 4 and "proved unsolvable" in out


def test_the_generated_goal_room_levels_are_solvable_and_have_their_room(tmp_path):
    """``scripts/gen_goalroom_levels.py``: each level has one goal room,
    its corridor and room holding every goal, and FESS solves it (the
    solution replayed by the checker)."""
    generate = script_module("gen_goalroom_levels").main
    out = tmp_path / "rooms.xsb"
    assert generate(["--count", "3", "--boxes", "4", "6", "--seed", "5", "--out",
                     str(out)]) == 0
    from pdbsearch.sokoban.formats import load_levels
    levels = load_levels(out)
    assert len(levels) == 3
    for level in levels:
        _, rooms = _rooms(level)
        assert len(rooms) == 1 and rooms[0].cells >= level.goals
        puzzle = SokobanPuzzle(level, "pushes", "matching")
        assert pdbsearch.solve(puzzle, algo="fess-only", time_limit=20,
                               threads=1).status is Status.SOLVED


def test_the_warm_up_sample_has_one_room_filled_from_the_far_end():
    """:func:`~pdbsearch.sokoban.goalrooms.load_kernels` runs the analysis
    on a sample level, which must have a room (else it loads nothing): its
    entrance the cell above the gap in the wall, the gap its first cell,
    its goals filled deepest first."""
    from pdbsearch.sokoban import goalrooms
    goalrooms.load_kernels(SokobanPuzzle)
    level = pdbsearch.sokoban.formats.parse_xsb_collection(goalrooms._SAMPLE_LEVEL)[0]
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    puzzle.prepare()
    p = puzzle.params
    (room,) = goal_rooms(level, p.inside, p.dead, p.deltas)
    assert room.entrance == level.cell(2, 7) and level.cell(3, 7) in room.cells
    assert room.order == tuple(level.cell(5, c) for c in (1, 2, 3, 4))
