"""The relay (:mod:`pdbsearch.search.relay`): its legs aimed as the module
doc says (a fake leader and fake legs), and on Sokoban its solutions,
the leader's path then a backward leg's, replayed by the checker."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.search import solve
from pdbsearch.search.common import EXHAUSTED, EXPANDED, GROW_LEG, RUNNING, SOLVED, STALLED
from pdbsearch.search.fess import FessSearch
from pdbsearch.search.relay import BACK_OFF, LEG_SECONDS, MeetingPaths, RelaySearch
from pdbsearch.search.result import Limits, Status
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.sokoban import bfs_min_pushes, bfs_min_pushes_solution

from ..sokoban.helpers import SMALL_MICROBAN, microban


class FakeLeg:
    """A leg that ends with ``code`` at once (its target kept for the test;
    a solved one reached ``reached``, then the goal ``GOAL``)."""

    def __init__(self, target, code, reached=None):
        self.target = target
        self.code = code
        self.reached = target if reached is None else reached
        self.stats = np.zeros(10, np.int64)
        self.fstats = np.zeros(4)

    def solution_keys(self):
        return [self.reached, GOAL]

    def run(self, budget):
        self.stats[EXPANDED] += 1
        return self.code

    def nbytes(self):
        return 1000


class FakeLeader:
    """A leader whose best position is whatever the test publishes."""

    followed = False

    def __init__(self, path, node=None):
        self.published_best = (1000 + len(path) if node is None else node, path)


GOAL = np.array([500], np.uint64)


def _path(depth):
    return [np.array([i], np.uint64) for i in range(depth + 1)]


def _aim_at_once(relay):
    """The first run asks for room for a leg aimed at the leader's best,
    which is then made (as the portfolio does)."""
    assert relay.leg is None and relay.nbytes() == 0
    assert relay.run(1) == GROW_LEG
    relay.grow(GROW_LEG)


@given(st.integers(0, 40), st.sampled_from([EXHAUSTED, STALLED]), st.integers(1, 30))
@settings(max_examples=60, deadline=None)
def test_legs_that_run_out_of_moves_back_off_along_the_path(depth, code, chunks):
    """Each leg that runs out of moves asks for the next, aimed a quarter
    of the way back (at least one move, the start at the end), with twice
    the budget; the relay itself never ends the search, and each new leg
    is asked for as room of a fresh leg's size."""
    legs = []

    def make_leg(key, meet):
        legs.append(FakeLeg(key, code))
        return legs[-1]
    relay = RelaySearch(make_leg, ("lead",), np.array([999], np.uint64))
    assert len(legs) == 1 and int(legs[0].target[0]) == 999   # made to learn a leg's size
    leader = FakeLeader(_path(depth))
    relay.follow({"lead": leader, "other": object()})
    assert leader.followed
    _aim_at_once(relay)
    want, budget = depth, LEG_SECONDS
    assert int(legs[-1].target[0]) == want and relay.budget == budget
    for _ in range(chunks):
        assert relay.run(10) == GROW_LEG
        assert relay.grow_nbytes(GROW_LEG) == 1000
        relay.grow(GROW_LEG)
        want = want - max(1, want // BACK_OFF) if want > 0 else 0
        budget *= 2
        assert int(legs[-1].target[0]) == want and relay.budget == budget
    assert relay.ended_legs == chunks == relay.back_offs
    assert relay.stats[EXPANDED] == chunks   # each leg's expansion counted once
    assert relay.legs == len(legs) - 1 == chunks + 1


def test_a_newer_best_is_aimed_at_once_the_leg_has_had_its_budget():
    legs = []

    def make_leg(key, meet):
        legs.append(FakeLeg(key, RUNNING))
        return legs[-1]
    relay = RelaySearch(make_leg, ("lead",), np.array([999], np.uint64))
    leader = FakeLeader(_path(5))
    relay.follow({"lead": leader})
    _aim_at_once(relay)
    assert int(legs[-1].target[0]) == 5
    leader.published_best = (9, _path(9))
    assert relay.run(1) == RUNNING   # the budget not yet spent
    assert len(legs) == 2
    relay.leg_seconds = relay.budget
    assert relay.run(1) == GROW_LEG
    relay.grow(GROW_LEG)
    assert len(legs) == 3 and int(legs[-1].target[0]) == 9 and relay.budget == LEG_SECONDS
    relay.leg_seconds = relay.budget   # no newer best: back off
    assert relay.run(1) == GROW_LEG
    relay.grow(GROW_LEG)
    assert int(legs[-1].target[0]) == 9 - 9 // BACK_OFF and relay.budget == 2 * LEG_SECONDS


def test_the_legs_aim_at_each_leaders_best_in_turn():
    """Two leaders: a leg whose budget is spent hands over to the other
    leader, at its newer best or backed off along its own path, with its
    own budget; a leg that runs out of moves backs off along its own
    leader's path."""
    legs, codes = [], [RUNNING]

    def make_leg(key, meet):
        legs.append(FakeLeg(key, codes[0]))
        return legs[-1]
    relay = RelaySearch(make_leg, ("a", "b", "absent"), np.array([999], np.uint64))
    a, b = FakeLeader(_path(8)), FakeLeader(_path(12))
    relay.follow({"b": b, "a": a})
    assert a.followed and b.followed and relay.report()["leaders"] == ["a", "b"]

    def next_target():
        relay.leg_seconds = relay.budget
        assert relay.run(1) == GROW_LEG
        relay.grow(GROW_LEG)
        return int(legs[-1].target[0])
    _aim_at_once(relay)
    assert int(legs[-1].target[0]) == 8
    assert next_target() == 12 and relay.budget == LEG_SECONDS          # b's best
    assert next_target() == 8 - 8 // BACK_OFF and relay.budget == 2 * LEG_SECONDS  # a: no newer
    b.published_best = (77, _path(20))
    assert next_target() == 20 and relay.budget == LEG_SECONDS          # b's newer best
    codes[0] = EXHAUSTED
    assert next_target() == 6 - 6 // BACK_OFF                           # a again, backed off
    assert relay.run(1) == GROW_LEG                                     # ran out of moves
    relay.grow(GROW_LEG)
    assert int(legs[-1].target[0]) == 5 - 5 // BACK_OFF and relay.budget == 8 * LEG_SECONDS
    assert relay.back_offs == 3 and relay.ended_legs == 1


@pytest.mark.parametrize("reached, want", [
    (8, list(range(9))),                          # a's best, its target
    (5, list(range(6))),                          # on a's path, before its best
    (105, [0, 101, 102, 103, 104, 105]),           # on b's path
    (0, [0])])                                    # the start, on both
def test_a_leg_may_meet_any_position_of_the_leaders_paths(reached, want):
    """Each leg is given every position of both leaders' paths, once; its
    solution starts with the shortest leader's path to the position it
    reached, whether its target or one it met."""
    legs = []

    def make_leg(key, meet):
        legs.append(FakeLeg(key, SOLVED, np.array([reached], np.uint64)))
        legs[-1].meet = sorted(int(k[0]) for k in meet)
        return legs[-1]
    relay = RelaySearch(make_leg, ("a", "b"), np.array([0], np.uint64))
    a = FakeLeader(_path(8))
    b = FakeLeader([np.array([0], np.uint64)] + [np.array([100 + i], np.uint64)
                                                 for i in range(1, 13)])
    relay.follow({"a": a, "b": b})
    _aim_at_once(relay)
    assert int(legs[-1].target[0]) == 8
    assert legs[-1].meet == list(range(9)) + list(range(101, 113))
    assert relay.run(1) == SOLVED
    assert [int(k[0]) for k in relay.solution_keys()] == want + [500]
    assert relay.report()["met"] == int(reached != 8)


def test_a_leg_meets_the_other_leaders_path_to_the_goal_at_once():
    """Leader a stands half way along an optimal solution (our push BFS),
    leader b has reached the goal: the leg aimed at a's best meets b's
    path on its first expansion, and the solution, b's path, replays at
    the optimum."""
    from pdbsearch.sokoban.pullsolve import PullSolveSearch
    level = microban(2)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    puzzle.prepare()
    optimum = bfs_min_pushes(level)
    a = _leader_on_the_optimal_path(puzzle, optimum // 2)
    b = _leader_on_the_optimal_path(puzzle, optimum)
    relay = RelaySearch(lambda key, meet: PullSolveSearch(
        puzzle, Limits(), puzzle.position_of(key), [puzzle.position_of(k) for k in meet]),
        ("a", "b"), puzzle.initial_key())
    relay.follow({"a": a, "b": b})
    _aim_at_once(relay)
    assert relay.run(1) == SOLVED
    keys = relay.solution_keys()
    assert relay.report()["met"] == 1 and relay.stats[EXPANDED] == 1
    _, pushes = puzzle.check_solution(relay.solution_codes(keys))
    assert pushes == optimum


def test_meeting_paths_keep_the_shortest_way_to_each_position():
    meeting = MeetingPaths()
    long = [np.array([k], np.uint64) for k in (0, 1, 2, 3, 4)]
    short = [np.array([k], np.uint64) for k in (0, 3, 9)]
    assert [int(k[0]) for k in meeting.add(long)] == [0, 1, 2, 3, 4]
    assert [int(k[0]) for k in meeting.add(short)] == [9]   # only what is new
    assert [int(k[0]) for k in meeting.path_to(np.array([3], np.uint64))] == [0, 3]
    # 4 is reached through 3, which the short path reaches sooner
    assert [int(k[0]) for k in meeting.path_to(np.array([4], np.uint64))] == [0, 3, 4]
    assert meeting.path_to(np.array([7], np.uint64)) is None and len(meeting) == 6


def test_the_backward_solver_meets_its_leaders_path():
    """``fess-backward`` following a leader that has reached the goal
    meets its path on the first expansion; with a leader half way, it
    solves and its solution replays.  Either way no shorter than the
    optimum (our push BFS)."""
    from pdbsearch.sokoban.pullsolve import PullSolveSearch
    level = microban(2)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    puzzle.prepare()
    optimum = bfs_min_pushes(level)
    for depth, at_once in ((optimum, True), (optimum // 2, False)):
        engine = PullSolveSearch(puzzle, Limits(), leaders=("lead",))
        engine.follow({"lead": _leader_on_the_optimal_path(puzzle, depth)})
        code = engine.run(1)
        for _ in range(2_000):
            if code == SOLVED:
                break
            code = engine.run(100)
        assert code == SOLVED
        keys = engine.solution_keys()
        assert engine.report()["meetable"] == depth + 1
        if at_once:
            assert engine.report()["met"] == 1 and int(engine.stats[EXPANDED]) == 1
        _, pushes = puzzle.check_solution(engine.solution_codes(keys))
        assert pushes >= optimum and (pushes == optimum or not at_once)


def test_the_positions_to_meet_stop_at_the_room_left():
    from pdbsearch.sokoban.pullgame import PullDomain
    puzzle = SokobanPuzzle(microban(2), "pushes", "matching")
    puzzle.prepare()
    start = puzzle.position_of(puzzle.initial_key())
    domain = PullDomain(puzzle, to_start=True, meet=[start], meet_room=2)
    assert domain.add_meet([start, start, start]) == 2 and domain.meet_count == 3
    assert domain.add_meet([start]) == 0


def test_the_table_to_meet_counts_in_the_backward_solvers_bytes():
    from pdbsearch.sokoban.pullsolve import MEET_ROOM, PullSolveSearch
    puzzle = SokobanPuzzle(microban(2), "pushes", "matching")
    puzzle.prepare()
    alone = PullSolveSearch(puzzle, Limits())
    following = PullSolveSearch(puzzle, Limits(), leaders=("lead",))
    words = following.domain.key_words
    assert following.nbytes() - alone.nbytes() >= MEET_ROOM * (8 * words + 4)


def test_without_its_leader_the_relay_aims_at_the_start():
    seen = []
    relay = RelaySearch(lambda key, meet: seen.append(key) or FakeLeg(key, SOLVED), ("lead",),
                        np.array([7], np.uint64))
    relay.follow({"someone else": object()})
    _aim_at_once(relay)
    assert relay.run(1) == SOLVED and len(seen) == 2 and int(seen[1][0]) == 7


def test_a_followed_fess_engine_publishes_its_best_position():
    puzzle = SokobanPuzzle(microban(93), "pushes", "matching")
    puzzle.prepare()
    engine = FessSearch(puzzle, Limits())
    engine.followed = True
    for _ in range(20):
        engine.run(50)
    node, path = engine.published_best
    assert node > 0 and len(path) > 1
    assert all(np.array_equal(a, b) for a, b in zip(path, engine.best_keys()))
    assert np.array_equal(path[0], puzzle.initial_key())


def _leader_on_the_optimal_path(puzzle, depth):
    """A leader whose best position is ``depth`` pushes along an optimal
    solution (from our push BFS), its path the positions after each push."""
    level = puzzle.level
    step = {"l": -1, "r": 1, "u": -level.width, "d": level.width}
    boxes, man = set(level.boxes), level.player
    path = [puzzle.key_of(boxes, man)]
    for move in bfs_min_pushes_solution(level):
        man += step[move.lower()]
        if move.isupper():
            boxes.remove(man)
            boxes.add(man + step[move.lower()])
            path.append(puzzle.key_of(boxes, man))
    return FakeLeader(path[:depth + 1])


@pytest.mark.parametrize("number", SMALL_MICROBAN[:8])
def test_the_leaders_path_and_a_leg_make_a_solution_that_replays(number):
    """The leader stands some way along an optimal solution; the relay's
    legs (the backward solver) finish it: the solution starts with the
    leader's path and replays, no shorter than the optimum."""
    from pdbsearch.sokoban.pullsolve import PullSolveSearch
    level = microban(number)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    puzzle.prepare()
    optimum = bfs_min_pushes(level)
    for depth in sorted({0, optimum // 2, max(optimum - 1, 0)}):
        leader = _leader_on_the_optimal_path(puzzle, depth)
        relay = RelaySearch(lambda key, meet: PullSolveSearch(puzzle, Limits(),
                                                              puzzle.position_of(key)),
                            ("lead",), puzzle.initial_key())
        relay.follow({"lead": leader})
        _aim_at_once(relay)
        code = RUNNING
        for _ in range(2_000):
            code = relay.run(100)
            if code == GROW_LEG:
                relay.grow(code)
            if code == SOLVED:
                break
        assert code == SOLVED, (number, depth)
        keys = relay.solution_keys()
        path = leader.published_best[1]
        assert all(np.array_equal(a, b) for a, b in zip(keys, path))
        _, pushes = puzzle.check_solution(relay.solution_codes(keys))
        assert pushes >= optimum


def test_the_relay_solves_in_the_fess_portfolio_and_alone():
    """Beside its leader, or alone (aimed at the start: the backward
    solver), the relay's solutions come through the driver's replay."""
    for members in (("fess-only", "fess-relay"), ("fess-relay",)):
        puzzle = SokobanPuzzle(microban(144), "pushes", "matching", members=members)
        result = solve(puzzle, "fess", limits=Limits(time_seconds=60, threads=1))
        assert result.status is Status.SOLVED, members
        report = result.extra["fess"]["members"]["fess-relay"]
        assert report["legs"] >= 1
        puzzle.check_solution([s.code for s in result.steps])
