"""Shortening found solutions (:mod:`pdbsearch.search.shorten`).

* The kernel against the plain-Python reference
  (:mod:`pdbsearch.testing.shorten`), from every position of random walks
  (full of loops and detours) in random Sokoban rooms, both metrics, and on
  random Hakoiri boards, every metric.
* Whole shortenings: never longer, replayed by the independent checker, never
  below the plain-Python BFS's optimum, a weighted search's bound kept.
* A loop or a detour put into a solution is taken out again.
* The time limit: a shortening cut short keeps a valid solution.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.hakoiri import HakoiriPuzzle
from pdbsearch.search import Limits, Status, solve
from pdbsearch.search.common import expand_into, successor_buffers
from pdbsearch.search.shorten import (WINDOW_WIDTHS, _Workspace, index_path, shorten,
                                      shorten_result)
from pdbsearch.search.store import empty_slots
from pdbsearch.sokoban import check_solution
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.shorten import shortcut_reference
from pdbsearch.testing.sokoban import bfs_min_moves, bfs_min_pushes

from ..hakoiri.test_against_reference import CASES, random_case
from ..sokoban.test_engines_random_rooms import rooms
from ..sokoban.test_reference import scrambled_rooms


def random_walk(puzzle, rng: np.random.Generator, length: int):
    """Keys and move costs of ``length`` random moves from the start (fewer
    if a position has no move)."""
    buffers = successor_buffers(puzzle)
    keys, costs = [puzzle.initial_key()], []
    for _ in range(length):
        count = expand_into(puzzle.params, keys[-1], *buffers)
        if count == 0:
            break
        k = int(rng.integers(count))
        keys.append(buffers[0][k].copy())
        costs.append(int(buffers[1][k]))
    return np.array(keys), costs


def assert_kernel_matches_reference(puzzle, keys, costs, depth):
    """From every position of the path: the same (landing, saving), and a
    shortcut whose moves are the domain's, land where it says and cost
    what it saves; when the kernel says a deeper search sees no more, the
    reference one move deeper finds the same."""
    work = _Workspace(puzzle, depth + 1, 1 << 14)
    cum = np.concatenate([[0], np.cumsum(costs)]).astype(np.int64)
    slots = empty_slots(keys.shape[0])
    index_path(keys, slots)
    buffers = successor_buffers(puzzle)
    for i in range(len(keys) - 1):
        j, steps, deeper = work.search(puzzle.params, keys, cum, slots, i, depth)
        want_j, want_save = shortcut_reference(puzzle, keys, costs, i, depth)
        assert j == want_j, (i, j, want_j)
        if not deeper:
            assert shortcut_reference(puzzle, keys, costs, i, depth + 1) == (want_j, want_save)
        if j < 0:
            continue
        spent = int(work.out_costs[:steps].sum())
        assert cum[j] - cum[i] - spent == want_save > 0
        here = keys[i]
        for k in range(steps):     # each move of the shortcut is a move of the domain
            count = expand_into(puzzle.params, here, *buffers)
            hits = [s for s in range(count) if buffers[2][s] == work.out_codes[k]
                    and np.array_equal(buffers[0][s], work.out_keys[k])]
            assert hits and buffers[1][hits[0]] == work.out_costs[k]
            here = work.out_keys[k]
        assert np.array_equal(here, keys[j])


@settings(max_examples=40, deadline=None)
@given(rooms(width=6, height=5, boxes=3), st.sampled_from(("pushes", "moves")),
       st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_the_kernel_finds_the_references_shortcuts_in_sokoban_rooms(level, metric, depth, seed):
    puzzle = SokobanPuzzle(level, metric, "matching")
    puzzle.prepare()
    keys, costs = random_walk(puzzle, np.random.default_rng(seed), 40)
    assert_kernel_matches_reference(puzzle, keys, costs, depth)


@pytest.mark.parametrize("case", CASES[::7], ids=lambda c: f"{c[0]}x{c[1]}-exit{c[2]},{c[3]}")
@pytest.mark.parametrize("metric", ("unit", "straight", "free"))
def test_the_kernel_finds_the_references_shortcuts_on_hakoiri_boards(case, metric):
    board, _ = random_case(*case)
    puzzle = HakoiriPuzzle(board, metric, "simple")
    puzzle.prepare()
    keys, costs = random_walk(puzzle, np.random.default_rng(sum(case)), 60)
    assert_kernel_matches_reference(puzzle, keys, costs, 3)


def _sokoban_optimum(level, metric):
    return bfs_min_pushes(level) if metric == "pushes" else bfs_min_moves(level)


@settings(max_examples=40, deadline=None)
@given(scrambled_rooms(rooms=rooms).map(lambda case: case[0]), st.sampled_from(("pushes", "moves")),
       st.sampled_from(("greedy", "wastar")), st.integers(1, 6))
def test_a_shortened_solution_replays_and_stays_between_the_optimum_and_the_found(
        level, metric, algo, depth):
    puzzle = SokobanPuzzle(level, metric, "matching")
    weight = 3.0 if algo == "wastar" else None
    found = solve(puzzle, algo, weight, Limits(time_seconds=20, threads=1), shorten=0)
    assert found.status is Status.SOLVED
    result = solve(puzzle, algo, weight, Limits(time_seconds=20, threads=1), shorten=depth)
    report = result.extra.get("shortened")
    if found.cost == 0:
        assert report is None and result.cost == 0   # solved at the start: nothing to do
        return
    assert report["before"] == found.cost and report["after"] == result.cost
    pushes, moves = check_solution(level, "".join(s.text for s in result.steps))
    assert result.cost == (pushes if metric == "pushes" else moves)
    optimum = _sokoban_optimum(level, metric)
    assert optimum <= result.cost <= found.cost
    # A proof of optimality (A* over the whole solution) is the BFS's optimum.
    assert result.optimal == report["proved_optimal"]
    if result.optimal:
        assert result.cost == optimum and result.lower_bound == optimum
    if algo == "wastar":    # the bound holds, and becomes 1 once proved
        assert result.cost <= 3.0 * optimum
        assert result.bound == (1.0 if result.optimal else 3.0)
    if result.cost < found.cost:    # the path is then one position a step
        assert len(result.path_keys) == len(result.steps) + 1
        assert np.array_equal(result.path_keys[-1],
                              puzzle.solution_states(result.steps)[-1])


@settings(max_examples=40, deadline=None)
@given(scrambled_rooms(rooms=rooms).map(lambda case: case[0]), st.sampled_from(("pushes", "moves")))
def test_a_sokoban_solution_a_window_spans_becomes_optimal(level, metric):
    """A window as long as the whole solution is the level solved again by
    A* (its goals: the boxes of the last position, the level's goals): the
    optimum of the plain-Python BFS."""
    puzzle = SokobanPuzzle(level, metric, "matching")
    found = solve(puzzle, "greedy", None, Limits(time_seconds=20, threads=1), shorten=0)
    assert found.status is Status.SOLVED
    if not found.steps:
        return                           # solved at the start
    assert len(found.steps) <= WINDOW_WIDTHS[0]
    codes, report = shorten(puzzle, found.steps, 1)
    assert report.finished and report.window_moves == WINDOW_WIDTHS[0]
    steps, cost = puzzle.check_solution(codes)
    assert cost == report.after == _sokoban_optimum(level, metric)
    assert report.windows == (1 if cost < found.cost else 0)
    # The window settled the whole solution, which proves it optimal: no
    # shortcut pass after it.
    assert report.proved_optimal and report.passes == report.depth == 0


def _hakoiri_detoured(board, metric, rng):
    """A solution of ``board`` with a move and its way back put in at
    random places, replayed: (puzzle, steps of the detoured solution, cost
    of the solution without detours)."""
    puzzle = HakoiriPuzzle(board, metric, "simple")
    result = solve(puzzle, "astar", None, Limits(time_seconds=20), shorten=0)
    codes = [s.code for s in result.steps]
    keys = [puzzle.initial_key()] + puzzle.solution_states(result.steps)
    buffers = successor_buffers(puzzle)
    for _ in range(3):
        at = int(rng.integers(len(codes) + 1))
        count = expand_into(puzzle.params, keys[at], *buffers)
        k = int(rng.integers(count))
        there, out = buffers[0][k].copy(), int(buffers[2][k])
        count = expand_into(puzzle.params, there, *buffers)
        back = [int(buffers[2][s]) for s in range(count) if np.array_equal(buffers[0][s], keys[at])]
        if not back:
            continue
        codes[at:at] = [out, back[0]]
        keys[at + 1:at + 1] = [there, keys[at]]
    steps, _ = puzzle.check_solution(codes)
    return puzzle, steps, result.cost


def test_detours_put_into_an_optimal_solution_are_taken_out():
    done = 0
    for case in CASES[::5]:
        board, answers = random_case(*case)
        if answers["unit"] is None:
            continue                     # an unsolvable board: no solution to detour
        puzzle, steps, optimum = _hakoiri_detoured(board, "unit",
                                                   np.random.default_rng(sum(case)))
        assert optimum == answers["unit"] and len(steps) > optimum
        codes, report = shorten(puzzle, steps, 1)
        assert report.before == len(steps) and report.after == optimum, case
        assert puzzle.check_solution(codes)[1] == optimum
        done += 1
    assert done >= 5


def test_a_shortening_past_its_deadline_keeps_the_solution_it_had():
    board, _ = random_case(*CASES[40])
    puzzle, steps, _ = _hakoiri_detoured(board, "unit", np.random.default_rng(3))
    codes, report = shorten(puzzle, steps, 2, deadline=time.perf_counter() - 1)
    assert not report.finished and report.after == report.before == len(steps)
    assert codes == [s.code for s in steps]


def test_an_optimal_result_is_not_shortened_and_a_depth_below_zero_is_refused():
    board, answers = random_case(*CASES[40])
    puzzle = HakoiriPuzzle(board, "unit", "simple")
    result = solve(puzzle, "astar", None, Limits(time_seconds=20))
    assert result.optimal and "shortened" not in result.extra
    with pytest.raises(Exception, match="shortcut depth"):
        solve(puzzle, "greedy", None, Limits(time_seconds=20), shorten=-1)
    with pytest.raises(ValueError):
        shorten(puzzle, result.steps, 0)
    report = shorten_result(puzzle, result, 2)
    assert report.after == report.before == result.cost


@pytest.mark.parametrize("algo, shorten_depth, loads", [
    ("greedy", 8, True), ("greedy", 0, False), ("astar", 8, False)])
def test_a_warm_up_loads_the_shortening_kernels_when_solutions_would_be_shortened(
        monkeypatch, algo, shorten_depth, loads):
    """A run of levels warms up before its children fork: the shortening's
    kernels with the rest, when its solutions would be shortened."""
    import pdbsearch.search as search
    calls = []
    monkeypatch.setattr(search, "load_shortening_kernels",
                        lambda puzzle, depth: calls.append(depth) or 0.0)
    board, _ = random_case(*CASES[40])
    result = search.warm_up(HakoiriPuzzle(board, "unit", "simple"), algo, None, shorten_depth)
    assert result.status is Status.LIMIT and result.stop_reason == "nodes"
    assert calls == ([shorten_depth] if loads else [])
