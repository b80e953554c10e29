"""A* beside the perimeter filled breadth-first
(:mod:`pdbsearch.search.bidirectional`): the floor it sets is a bound, its
depths are exact, and the costs stay optimal (within α for weighted A*,
which the engine supports though the registry runs A* only) however the
two searches take turns, against the plain-Python push BFS."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from pdbsearch.search import Limits, Status, solve
from pdbsearch.search.bestfirst import BestFirstSearch
from pdbsearch.search.common import (EXHAUSTED, RUNNING, SOLVED, evaluate_heuristic,
                                     move_between)
from pdbsearch.sokoban import perimeter as perimeter_module
from pdbsearch.sokoban.kernels import FLOOR, GENERATION
from pdbsearch.sokoban.perimeter import STORED
from pdbsearch.sokoban.puzzle import Rules, SokobanPuzzle
from pdbsearch.testing.sokoban import bfs_min_pushes, dead_squares

from .helpers import SMALL_MICROBAN, microban, python_successors

LIMITS = Limits(memory_mb=256)


def _beside(level, heuristic: str, weight: float = 1.0):
    """A puzzle tuned for A* (or weighted A*), its breadth-first perimeter
    and the forward engine, not yet interleaved."""
    puzzle = SokobanPuzzle(level, heuristic=heuristic)
    puzzle.prepare()
    puzzle.tune("astar", weight)
    forward = BestFirstSearch(puzzle, weight)
    backward = puzzle.backward_search(LIMITS)
    forward.requeue_goals = True
    return puzzle, backward, forward


def _pushes_left(level, boxes, player) -> int | None:
    return bfs_min_pushes(level.with_state(boxes, player))


def _random_reachable(level, rng, dead, steps: int):
    """The end of a random walk of up to ``steps`` pushes from the start
    (a position the forward search may meet: the perimeter's pruning and
    floor hold for those only)."""
    boxes, player = level.boxes, level.player
    for _ in range(int(rng.integers(0, steps + 1))):
        nexts = sorted(python_successors(level, boxes, player, "pushes", dead),
                       key=lambda s: s[3])
        if not nexts:
            break
        boxes, player = nexts[int(rng.integers(len(nexts)))][:2]
    return boxes, player


@pytest.mark.parametrize("number", (2, 4, 7, 12, 25))
def test_the_floor_and_the_depths_bound_every_position(number):
    """After a part of the backward search, for positions on an optimal
    path and at the end of random walks from the start: the heuristic
    never exceeds the plain-Python BFS distance; a position nearer than the
    floor is stored; a stored one has its exact distance."""
    level = microban(number)
    rng = np.random.default_rng(number)
    dead = frozenset(np.flatnonzero(dead_squares(level)).tolist())
    optimal_path = solve(SokobanPuzzle(level, heuristic="simple",
                                       rules=Rules(tunnel_macros=False)), "bfs").path_keys
    for budget in (1, 20, 200):
        puzzle, backward, _ = _beside(level, "pdb")
        assert backward.run(budget) in (RUNNING, SOLVED)
        table = puzzle.perimeter.table
        floor = int(table.counters[FLOOR])
        assert floor >= 1 and int(table.counters[STORED]) > 0
        positions = [puzzle.position_of(k) for k in optimal_path]
        positions += [_random_reachable(level, rng, dead, 12) for _ in range(15)]
        for boxes, player in positions:
            truth = _pushes_left(level, boxes, player)
            key = puzzle.key_of(boxes, player)
            index = puzzle.perimeter.index_of(key)
            picture = puzzle.render(key)
            if truth is None:
                assert index < 0, picture
                continue
            assert evaluate_heuristic(puzzle.params, key) <= truth, picture
            if truth < floor:
                assert index >= 0, picture
            if index >= 0:
                assert int(table.depth[index]) == truth, picture


def _positions_and_distances(level, number: int, walks: int):
    """Keys of the positions on an optimal path and at the ends of random
    walks from the start, with their plain-Python BFS distance (None: dead)."""
    rng = np.random.default_rng(number)
    dead = frozenset(np.flatnonzero(dead_squares(level)).tolist())
    puzzle = SokobanPuzzle(level, heuristic="simple", rules=Rules(tunnel_macros=False))
    positions = [puzzle.position_of(k) for k in solve(puzzle, "bfs").path_keys]
    positions += [_random_reachable(level, rng, dead, 12) for _ in range(walks)]
    return [(puzzle.key_of(b, pl), _pushes_left(level, b, pl)) for b, pl in positions]


@pytest.mark.parametrize("number", (2, 4, 7))
def test_a_lookup_during_a_rebuild_of_the_slots_takes_no_floor(number):
    """While the generation count is odd (the slots being rebuilt in
    another thread), a position the table does not hold gets its own bound,
    not the floor, which that miss no longer proves; a stored one keeps its
    exact depth.  The floor raises some bound (of the weak ``simple``
    heuristic), or the check would hold vacuously."""
    level = microban(number)
    puzzle, backward, _ = _beside(level, "simple")
    assert backward.run(200) in (RUNNING, SOLVED)
    counters = puzzle.perimeter.table.counters
    floor = int(counters[FLOOR])
    raised = 0
    for key, truth in _positions_and_distances(level, number, 15):
        if truth is None:
            continue
        settled = evaluate_heuristic(puzzle.params, key)
        counters[GENERATION] += 1
        rebuilding = evaluate_heuristic(puzzle.params, key)
        counters[GENERATION] += 1
        assert rebuilding <= settled <= truth, puzzle.render(key)
        if puzzle.perimeter.index_of(key) >= 0:
            assert rebuilding == settled == truth, puzzle.render(key)
        else:
            assert settled >= floor, puzzle.render(key)
            raised += settled > rebuilding
    assert raised > 0


def test_a_rebuild_of_the_slots_leaves_the_generation_even_and_the_keys_found(monkeypatch):
    """Each doubling of the slots (few to start with) counts twice (odd
    while under way), and every stored position is found after it."""
    monkeypatch.setattr(perimeter_module, "FIRST_SLOTS", 16)
    puzzle, backward, _ = _beside(microban(25), "pdb")
    table = puzzle.perimeter.table
    first = int(table.counters[perimeter_module.SLOT_MASK]) + 1
    assert backward.run(100_000) in (RUNNING, SOLVED)
    used = int(table.counters[perimeter_module.SLOT_MASK]) + 1
    assert used > first                       # the slots were rebuilt at least once
    assert int(table.counters[GENERATION]) == 2 * (used.bit_length() - first.bit_length())
    for i in range(int(table.counters[STORED])):
        assert puzzle.perimeter.index_of(table.keys[i]) == i


@pytest.mark.parametrize("number", (7, 12, 25))
def test_bounds_read_while_the_perimeter_fills_in_another_thread_stay_admissible(
        number, monkeypatch):
    r"""The backward search fills its table in a thread of its own (as beside
    A\* on two cores, its slots rebuilt often: few to start with) while this
    thread reads the bounds of positions whose distance is known: none
    exceeds it, and a position nearer than the floor read after is found."""
    monkeypatch.setattr(perimeter_module, "FIRST_SLOTS", 16)
    level = microban(number)
    positions = [(k, t) for k, t in _positions_and_distances(level, number, 30) if t is not None]
    puzzle, backward, _ = _beside(level, "pdb")
    assert int(puzzle.perimeter.table.counters[perimeter_module.SLOT_MASK]) == 15
    done = threading.Event()

    def fill():
        try:
            while backward.run(25) == RUNNING:
                pass
        finally:
            done.set()

    filler = threading.Thread(target=fill)
    filler.start()
    rounds = 0
    try:
        while not done.is_set() or rounds == 0:
            rounds += 1
            for key, truth in positions:
                assert evaluate_heuristic(puzzle.params, key) <= truth, puzzle.render(key)
    finally:
        filler.join()
    floor = int(puzzle.perimeter.table.counters[FLOOR])
    for key, truth in positions:
        if truth < floor:
            assert puzzle.perimeter.index_of(key) >= 0, puzzle.render(key)


def _interleaved(backward, forward, rng):
    """Run the two in random turns, to the end: ``(SOLVED or EXHAUSTED,
    the engine that ended the search)``.  The forward search takes short
    turns, the backward one mostly none and now and then a burst, so that
    positions queued with their bound alone join the perimeter later."""
    while True:
        code = forward.run(int(rng.integers(1, 8)))
        if code in (SOLVED, EXHAUSTED):
            return code, forward
        if code != RUNNING:
            forward.grow(code)
        code = backward.run(int(rng.choice([0, 0, 0, 1, 5, 50])))
        if code in (SOLVED, EXHAUSTED):
            return code, backward


#: Small Microban levels, and three (6, 11, 13) where a goal queued before
#: it joined the perimeter, if accepted at once, ended the search with a
#: longer solution than the optimum.
TAKING_TURNS = SMALL_MICROBAN + (6, 11, 13)


@pytest.mark.parametrize("weight", [1.0, 2.0])
@pytest.mark.parametrize("number", TAKING_TURNS)
def test_optimal_within_alpha_however_the_two_take_turns(number, weight):
    """Random schedules of the two searches: the cost the forward search
    (or the perimeter) ends with is the plain-Python optimum (A*), at most
    α times it (weighted A*), and the solution replays."""
    level = microban(number)
    optimum = bfs_min_pushes(level)
    rng = np.random.default_rng(1000 * number + int(weight))
    for _ in range(12):
        puzzle, backward, forward = _beside(level, "simple", weight)
        code, winner = _interleaved(backward, forward, rng)
        assert code == SOLVED
        keys = winner.solution_keys()
        if winner is backward:
            codes = backward.solution_codes(keys)
        else:
            codes = [move_between(puzzle, a, b)[0] for a, b in zip(keys, keys[1:])]
            keys, codes = puzzle.complete_solution(keys, codes)
        _, cost = puzzle.check_solution(codes)
        assert optimum <= cost <= weight * optimum


@pytest.mark.parametrize("number", TAKING_TURNS)
def test_on_two_threads_the_perimeter_fills_beside_astar_which_stays_optimal(number):
    r"""``solve`` with A\* on two threads runs the perimeter in a helper
    lane of its own (one thread: both in the caller's), and the cost is
    the plain-Python optimum either way."""
    level = microban(number)
    optimum = bfs_min_pushes(level)
    for threads, lanes in ((2, {"perimeter": 1, "astar": 0}), (1, {"perimeter": 0, "astar": 0})):
        result = solve(SokobanPuzzle(level), "astar",
                       limits=Limits(time_seconds=60, threads=threads))
        assert result.status is Status.SOLVED and result.optimal
        assert result.cost == optimum
        members = result.extra["astar"]["members"]
        assert {label: m["lane"] for label, m in members.items()} == lanes


@pytest.mark.parametrize("number", (5, 12, 25))
def test_the_solve_command_runs_astar_beside_the_perimeter(number):
    """``solve`` with A* (pushes, a heuristic): the perimeter is a member,
    the solution optimal; under the moves metric, with the zero heuristic,
    with ``--no-perimeter`` and for weighted A* there is none."""
    level = microban(number)
    result = solve(SokobanPuzzle(level), "astar", limits=Limits(time_seconds=60))
    assert result.status is Status.SOLVED and result.optimal
    assert result.cost == bfs_min_pushes(level)
    assert set(result.extra["astar"]["members"]) == {"perimeter", "astar"}
    assert 0 < result.extra["astar"]["perimeter_share"] <= 0.5
    for other in (SokobanPuzzle(level, metric="moves", heuristic="matching"),
                  SokobanPuzzle(level, heuristic="zero"),
                  SokobanPuzzle(level, rules=Rules(perimeter=False))):
        result = solve(other, "astar", limits=Limits(time_seconds=60))
        assert result.status is Status.SOLVED
        assert "members" not in result.extra.get("astar", {})
    result = solve(SokobanPuzzle(level), "wastar", 2.0, limits=Limits(time_seconds=60))
    assert result.status is Status.SOLVED and "wastar w=2" not in result.extra


def test_a_limit_reports_the_forward_search_bound():
    """Stopped by a limit, A* beside the perimeter still reports the
    largest f it expanded as the lower bound.  One thread: on two, the
    perimeter grows in a thread of its own while A* takes its three nodes,
    and on a level this small it may reach the start first and solve it."""
    level = microban(9)
    result = solve(SokobanPuzzle(level), "astar", limits=Limits(nodes=3, threads=1))
    assert result.status is Status.LIMIT
    assert result.lower_bound is not None
    assert 0 < result.lower_bound <= bfs_min_pushes(level)


@pytest.mark.parametrize("algo, nodes", [("astar", 3), ("astar", 200), ("fess", 40)])
def test_a_node_limit_holds_with_the_helper_threads(algo, nodes):
    """On two threads the perimeter (A*) or the FESS members run in helper
    threads between the driver's checks: their expansions still stop at
    the limit, all lanes counted."""
    level = microban(153)    # 336 pushes: no member solves it in a few hundred expansions
    result = solve(SokobanPuzzle(level), algo, limits=Limits(nodes=nodes, threads=2))
    assert result.status is Status.LIMIT and result.stop_reason == "nodes"
    assert result.expanded == nodes


class _Engine:
    """A stand-in engine: each chunk generates ``step`` positions, and the
    backward one reports ``raised`` bounds per position generated forward."""

    def __init__(self, step: int = 0):
        from pdbsearch.search.common import N_FSTATS, N_STATS
        self.stats = np.zeros(N_STATS, np.int64)
        self.fstats = np.zeros(N_FSTATS)
        self.step = step
        self.raised = 0

    def run(self, budget: int) -> int:
        from pdbsearch.search.common import GENERATED
        self.stats[GENERATED] += self.step
        return RUNNING

    def nbytes(self) -> int:
        return 0

    def lower_bound(self):
        return 7.0

    def floor_raised(self) -> int:
        return self.raised


@pytest.mark.parametrize("rate", [0.0, 0.2, 0.9])
def test_the_backward_share_follows_the_bounds_its_floor_raises(rate):
    """After its warm-up, the backward search's share is the fraction of the
    forward search's new positions whose bound its floor raised, within
    [MIN_SHARE, MAX_SHARE]; before it, its first share; the bound is the
    forward search's."""
    from pdbsearch.search import bidirectional as bd
    backward, forward = _Engine(), _Engine(step=bd.WINDOW)
    search = bd.BidirectionalSearch(None, backward, forward, "astar", 1 << 30)
    members = {m.label: m for m in search.members}
    for _ in range(4):
        search.run(1)
        backward.raised += int(rate * bd.WINDOW)
    assert members["perimeter"].share == bd.FIRST_SHARE    # not warmed up yet
    members["perimeter"].seconds = bd.WARM_UP_SECONDS
    for _ in range(4):
        search.run(1)
        backward.raised += int(rate * bd.WINDOW)
    expected = min(bd.MAX_SHARE, max(bd.MIN_SHARE, rate))
    assert members["perimeter"].share == pytest.approx(expected)
    assert members["perimeter"].share + members["astar"].share == pytest.approx(1.0)
    assert search.lower_bound() == 7.0
