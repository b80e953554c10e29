"""The perimeter (pdbsearch.sokoban.perimeter): the backward search by pulls
whose positions the ``--algo fess`` portfolio takes as goals.

Second opinions: the plain-Python push BFS of ``pdbsearch.testing.sokoban``
(optimal push counts, solvability) and the independent replay checker."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from pdbsearch.search import Limits, solve
from pdbsearch.search.common import (EXHAUSTED, GROW_NODES, RUNNING, SOLVED, evaluate_heuristic,
                                     evaluate_is_goal, move_between)
from pdbsearch.sokoban.kernels import SLOT_MASK, in_perimeter
from pdbsearch.sokoban.perimeter import (FIRST_SLOTS, FOUND, STORED, PerimeterSearch,
                                         bytes_per_position)
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.sokoban import (bfs_min_pushes, dead_squares, start_reachable,
                                       stuck_off_start)

from .helpers import SMALL_MICROBAN, microban, xsb

MEMORY = 1 << 28


def _perimeter(level, heuristic="simple", greedy=True):
    """A puzzle tuned for fess and its perimeter engine (breadth-first
    alone when not ``greedy``)."""
    puzzle = SokobanPuzzle(level, heuristic=heuristic)
    puzzle.prepare()
    puzzle.tune("fess", 1.0)
    engine = puzzle.portfolio_engine("perimeter", Limits(memory_mb=MEMORY >> 20))
    if not greedy:
        engine = PerimeterSearch(puzzle, puzzle.perimeter, greedy=False)
    return puzzle, engine


def _run_out(engine: PerimeterSearch) -> int:
    code = RUNNING
    while code == RUNNING:
        code = engine.run(1 << 16)
    return code


@pytest.mark.parametrize("greedy", [False, True])
@pytest.mark.parametrize("number", SMALL_MICROBAN)
def test_the_backward_search_alone_solves_small_levels(number, greedy):
    """Breadth-first by pulls from the solved positions, the start is met at
    its optimal push count (the plain-Python forward BFS's); with the greedy
    order too, the pushes read back from the table replay, never fewer."""
    level = microban(number)
    puzzle, engine = _perimeter(level, greedy=greedy)
    assert _run_out(engine) == SOLVED
    keys = engine.solution_keys()
    codes = engine.solution_codes(keys)
    _, cost = puzzle.check_solution(codes)
    assert cost == len(codes) == len(keys) - 1
    if greedy:
        assert cost >= bfs_min_pushes(level)
    else:
        assert cost == bfs_min_pushes(level)


@pytest.mark.parametrize("greedy", [False, True])
def test_every_stored_position_reaches_the_goal_by_its_stored_pushes(greedy):
    """Positions drawn from a partly grown table, each set up as a level of
    its own: the table's pushes solve it (independent replay), in as many
    pushes as its depth, which the heuristic returns."""
    level = microban(153)
    puzzle, engine = _perimeter(level, greedy=greedy)
    assert engine.run(3000) == RUNNING
    table = puzzle.perimeter.table
    stored = int(table.counters[STORED])
    assert stored > 3000
    rng = np.random.default_rng(7)
    for index in rng.choice(stored, size=40, replace=False):
        boxes, player = puzzle.position_of(table.keys[index])
        assert evaluate_is_goal(puzzle.params, table.keys[index])   # the goal test accepts it
        _, codes = puzzle.perimeter.way_to_goal(int(index))
        there = SokobanPuzzle(level.with_state(boxes, player), heuristic="simple")
        there.check_solution(codes)
        assert len(codes) == table.depth[index]
        assert evaluate_heuristic(puzzle.params, table.keys[index]) == len(codes)
        if not greedy:   # breadth-first alone, the depth is the optimum
            assert len(codes) == bfs_min_pushes(there.level)


def test_a_level_no_push_solves_is_proved_unsolvable_backwards():
    level = xsb("######\n#@ $.#\n#   .#\n#$   #\n######\n")   # a box in a corner
    assert bfs_min_pushes(level) is None
    _, engine = _perimeter(level)
    assert _run_out(engine) == EXHAUSTED
    assert engine.perimeter.table.counters[FOUND] == -1


def _stored_after_optimal_bfs(level):
    """Run the backward search breadth-first to the start, check that it
    meets it at the optimal push count (the plain-Python forward BFS's),
    and yield every stored position: ``(box cells, its picture)``."""
    puzzle, engine = _perimeter(level, greedy=False)
    assert _run_out(engine) == SOLVED
    keys = engine.solution_keys()
    _, cost = puzzle.check_solution(engine.solution_codes(keys))
    assert cost == bfs_min_pushes(level)
    table = puzzle.perimeter.table
    for index in range(int(table.counters[STORED])):
        boxes, _ = puzzle.position_of(table.keys[index])
        yield boxes, puzzle.render(table.keys[index])


#: Microban levels with cells a box can be pulled to from the goals but
#: pushed to from no start square (found by :func:`start_reachable`).
BACKWARD_ONLY_CELLS = (8, 10, 27)


@pytest.mark.parametrize("number", BACKWARD_ONLY_CELLS)
def test_the_backward_search_stores_no_box_where_no_start_box_goes(number):
    """A pull onto a cell no start square's box reaches is not stored: the
    start is never met that way.  Breadth-first, the table is otherwise as
    complete as before: the start is met at its optimal push count."""
    level = microban(number)
    dead = set(np.flatnonzero(dead_squares(level)).tolist())
    out_of_reach = set(level.floor_cells()) - dead - start_reachable(level)
    assert out_of_reach, "the level has no cell to test on"
    for boxes, picture in _stored_after_optimal_bfs(level):
        assert not boxes & out_of_reach, picture


#: Microban levels whose backward search met positions with a box off the
#: start squares that can never be pulled again (before they were pruned).
STUCK_BACKWARDS = (2, 7, 16, 37)


@pytest.mark.parametrize("number", STUCK_BACKWARDS)
def test_the_backward_search_stores_no_box_that_can_never_be_pulled_again(number):
    """The backward game's freeze deadlock (the plain-Python
    :func:`stuck_off_start` decides it) is never stored, and breadth-first
    the start is still met at its optimal push count."""
    level = microban(number)
    for boxes, picture in _stored_after_optimal_bfs(level):
        assert not stuck_off_start(level, boxes), picture


def test_a_forward_path_ending_on_the_perimeter_is_carried_to_the_goal():
    """What the driver does when a forward member stops on a perimeter
    position: the stored pushes are appended and the whole replays."""
    level = microban(25)
    puzzle, engine = _perimeter(level, greedy=False)
    engine.run(50)    # a perimeter that does not reach the start
    assert int(puzzle.perimeter.table.counters[FOUND]) == -1
    keys = solve(SokobanPuzzle(level, heuristic="simple"), "astar").path_keys
    # The first position of an optimal forward path that the perimeter
    # holds, and the pushes up to it: a path a forward member may return.
    cut = next(i for i, k in enumerate(keys) if puzzle.perimeter.index_of(k) >= 0)
    assert not level.is_solved(puzzle.position_of(keys[cut])[0])
    head = [move_between(puzzle, a, b)[0] for a, b in pairwise(keys[:cut + 1])]
    full_keys, full_codes = puzzle.complete_solution(keys[:cut + 1], head)
    assert level.is_solved(puzzle.position_of(full_keys[-1])[0])
    assert len(full_keys) == len(full_codes) + 1
    _, cost = puzzle.check_solution(full_codes)
    assert cost == len(full_codes) == bfs_min_pushes(level)


def test_other_algorithms_run_without_the_perimeter():
    """The portfolio's perimeter (greedy order: its depths are not the
    optimum) ends only ``--algo fess`` searches: tuning the puzzle for any
    other algorithm takes it away (A* builds its own, breadth-first)."""
    level = microban(153)
    puzzle, engine = _perimeter(level)
    engine.run(500)
    last = int(puzzle.perimeter.table.counters[STORED]) - 1
    key = puzzle.perimeter.table.keys[last]
    depth = int(puzzle.perimeter.table.depth[last])
    assert evaluate_is_goal(puzzle.params, key) and depth > 0
    puzzle.tune("astar", 1.0)
    assert puzzle.perimeter is None and puzzle.params.perimeter.on == 0
    assert not evaluate_is_goal(puzzle.params, key)
    assert evaluate_heuristic(puzzle.params, key) <= depth    # the admissible bound again


def test_the_fess_portfolio_solutions_replay_and_name_the_perimeter():
    level = microban(4)
    result = solve(SokobanPuzzle(level), "fess", limits=Limits(time_seconds=30))
    assert result.status.name == "SOLVED"
    assert "perimeter" in result.extra["fess"]["members"]
    assert result.extra["fess"]["perimeter_positions"] > 0


def test_a_stored_position_costs_what_the_docs_say():
    assert bytes_per_position(3) == 8 * 3 + 20
    puzzle, engine = _perimeter(microban(1))
    t = puzzle.perimeter.table
    capacity = t.keys.shape[0]
    # Reserved: 12 bytes a position for depth, parent, code; 17 for the
    # greedy order's flag and heap entry; the slots, at most four a position.
    assert engine.reserved_nbytes() == t.keys.nbytes + t.slots.nbytes + (12 + 17) * capacity
    assert t.slots.shape[0] <= 4 * capacity
    # In use: what the stored positions take, with the slots in use.
    _run_out(engine)
    n = puzzle.perimeter.stored()
    slots_in_use = int(t.counters[SLOT_MASK]) + 1
    assert 2 * n <= slots_in_use <= max(FIRST_SLOTS, 4 * n)
    assert engine.nbytes() == n * (8 * puzzle.key_words + 12 + 17) + 4 * slots_in_use
    assert engine.nbytes() <= engine.reserved_nbytes()


def test_the_slots_double_and_every_stored_position_is_still_found():
    # A level whose perimeter outgrows the first slots several times.
    puzzle, engine = _perimeter(microban(36), greedy=False)
    t = puzzle.perimeter.table
    _run_out(engine)
    n = puzzle.perimeter.stored()
    assert n > 2 * FIRST_SLOTS
    assert int(t.counters[SLOT_MASK]) + 1 >= 2 * n
    for i in range(n):
        assert puzzle.perimeter.index_of(t.keys[i]) == i
        assert in_perimeter(puzzle.params, t.keys[i])
    absent = t.keys[0].copy()
    absent[0] ^= np.uint64(1 << 62)    # a key no position has
    assert puzzle.perimeter.index_of(absent) == -1


def test_a_small_memory_limit_fills_the_perimeter_and_retires_it():
    puzzle = SokobanPuzzle(microban(36), heuristic="simple")
    puzzle.prepare()
    puzzle.tune("fess", 1.0)
    puzzle.portfolio_engine("perimeter", Limits(memory_mb=1))
    # Breadth-first alone needs 11,968 positions on this level.
    engine = PerimeterSearch(puzzle, puzzle.perimeter, greedy=False)
    capacity = puzzle.perimeter.table.keys.shape[0]
    assert capacity <= (1 << 20) // 8 // bytes_per_position(puzzle.key_words) + 16
    assert _run_out(engine) == GROW_NODES    # full: the portfolio retires it
    assert puzzle.perimeter.stored() <= capacity


def _acyclic_path(parent: np.ndarray, node: int) -> list[int]:
    """The stored way from the root to ``node``; fails on a cycle instead
    of looping for ever."""
    path = [node]
    while parent[node] >= 0:
        node = int(parent[node])
        assert node not in path, "the stored parents form a cycle"
        path.append(node)
    return path[::-1]


#: Levels whose first expanded child has the start among its own children.
MEETS_THE_START_AGAIN = (1, 2, 14, 21)


@pytest.mark.parametrize("number", MEETS_THE_START_AGAIN)
def test_fess_meets_a_position_it_stored_before_it_joined_the_perimeter(number):
    """The perimeter grows while FESS runs (between its chunks, or in
    another thread): a position FESS stored, even an ancestor of the one it
    expands, may become a goal.  It must end the search by its own stored
    way, not take the expanded node as its parent (a cycle: the solution
    never came back; seen in a levels run as a killed child)."""
    from pdbsearch.search.common import GOAL
    from pdbsearch.search.fess import FessSearch
    from pdbsearch.sokoban.perimeter import _store
    puzzle, _ = _perimeter(microban(number))
    fess = FessSearch(puzzle, Limits(memory_mb=MEMORY >> 20))
    fess.load_kernels()
    while not fess.prepared:
        fess.run(1)
    assert fess.run(1) == RUNNING          # the root expanded, the perimeter empty
    # The start joins the perimeter (a stand-in: its way on is not stored,
    # so only the engine's answer is checked here); on these levels the
    # next expansion meets it again.
    per = puzzle.perimeter
    assert _store(per.table, per.parent, per.code, puzzle.initial_key(), -1, 0) == 0
    code = fess.run(1)
    assert code == SOLVED
    assert int(fess.stats[GOAL]) == 0      # the start itself, met again
    assert _acyclic_path(fess.store.parent, 0) == [0]
