"""The portfolio's lanes: with more than one thread, the members that can
detach run in helper threads; the first member to end the search wins and
stops the others; a helper's exception reaches the caller; limits and
memory accounting still hold."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from pdbsearch.search.common import (EXHAUSTED, EXPANDED, GROW_NODES, N_FSTATS, N_STATS,
                                     RUNNING, SOLVED, STALLED)
from pdbsearch.search.portfolio import OPENING_SECONDS, Member, PortfolioSearch


class FakeEngine:
    """An engine that counts its chunks, notes the threads that ran them,
    and ends with ``code`` after ``chunks`` of them (never, if None)."""

    def __init__(self, chunks: int | None, code: int = SOLVED, detachable: bool = False,
                 fail: bool = False, size: int = 1000, grow_to: int | None = None,
                 wait_for: threading.Event | None = None):
        self.chunks, self.code, self.detachable, self.fail = chunks, code, detachable, fail
        self.wait_for = wait_for      #: run nothing before this is set
        self.ran = threading.Event()  #: set by the first chunk
        self.size, self.grow_to = size, grow_to
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.fstats = np.zeros(N_FSTATS, dtype=np.float64)
        self.threads: set[int] = set()
        self.detach_calls = 0

    def detach(self) -> bool:
        self.detach_calls += 1
        return self.detachable

    def run(self, budget: int) -> int:
        if self.wait_for is not None:
            assert self.wait_for.wait(10)
        self.ran.set()
        self.threads.add(threading.get_ident())
        if self.fail:
            raise RuntimeError("engine failure")
        self.stats[EXPANDED] += 1
        if self.grow_to is not None and self.size < self.grow_to:
            return GROW_NODES
        if self.chunks is not None and self.stats[EXPANDED] >= self.chunks:
            return self.code
        return RUNNING

    def nbytes(self) -> int:
        return self.size

    def grow_nbytes(self, code: int) -> int:
        return 2 * self.size

    def grow(self, code: int) -> None:
        self.size *= 2


def run_until_end(portfolio: PortfolioSearch, rounds: int = 100_000) -> int:
    """Drive the portfolio as the driver does (without limits); stop it."""
    try:
        for _ in range(rounds):
            code = portfolio.run(64)
            if code != RUNNING:
                return code
        return RUNNING
    finally:
        portfolio.stop()


def run_until_each_ran(portfolio: PortfolioSearch, engines, seconds: float = 10) -> None:
    """Drive the portfolio until every engine has run a chunk (or
    ``seconds`` pass); stop it."""
    deadline = time.monotonic() + seconds
    try:
        while not all(e.ran.is_set() for e in engines) and time.monotonic() < deadline:
            assert portfolio.run(64) == RUNNING
    finally:
        portfolio.stop()


def portfolio(engines, threads: int, memory: int = 1 << 40) -> PortfolioSearch:
    members = [Member(f"m{i}", e, 1.0 / len(engines)) for i, e in enumerate(engines)]
    return PortfolioSearch(None, members, memory, "test", threads=threads)


def test_one_thread_runs_every_member_in_the_callers_thread_and_detaches_none():
    a, b = FakeEngine(None, detachable=True), FakeEngine(50)
    p = portfolio([a, b], threads=1)
    assert run_until_end(p) == SOLVED
    assert p.winner.engine is b
    assert a.detach_calls == 0
    assert a.threads == b.threads == {threading.get_ident()}
    assert [m.lane for m in p.members] == [0, 0]


def test_a_detachable_member_runs_in_a_helper_thread_and_can_win():
    shared = FakeEngine(None)
    apart = FakeEngine(200, detachable=True, wait_for=shared.ran)
    p = portfolio([shared, apart], threads=2)
    assert [m.lane for m in p.members] == [0, 1]
    assert run_until_end(p) == SOLVED
    assert p.winner.engine is apart
    assert shared.threads == {threading.get_ident()}
    assert len(apart.threads) == 1 and threading.get_ident() not in apart.threads
    report = p.report()
    assert report["winner"] == "m1" and report["members"]["m1"]["lane"] == 1
    # the figures count the helper's work once the lanes have stopped
    assert p.stats[EXPANDED] == shared.stats[EXPANDED] + apart.stats[EXPANDED]


@pytest.mark.parametrize("threads, want", [(2, [1, 1, 1, 0]), (3, [1, 2, 1, 0])])
def test_detachable_members_beyond_the_threads_share_the_helper_lanes(threads, want):
    engines = [FakeEngine(None, detachable=True) for _ in range(4)]
    engines[3].detachable = False
    p = portfolio(engines, threads=threads)
    assert [m.lane for m in p.members] == want
    assert len(p.lanes) == threads
    run_until_each_ran(p, engines)
    # a lane is one helper thread, and its members take turns in it
    for lane in p.lanes[1:]:
        ran = [m.engine.threads for m in lane]
        assert all(len(t) == 1 for t in ran) and all(t == ran[0] for t in ran)
        assert threading.get_ident() not in ran[0]


def test_the_callers_lane_win_stops_the_helpers():
    forever, quick = FakeEngine(None, detachable=True), FakeEngine(5)
    p = portfolio([forever, quick], threads=2)
    assert run_until_end(p) == SOLVED
    assert p.winner.engine is quick
    assert not any(t.is_alive() for t in threading.enumerate() if t.name.startswith("test-"))


def test_a_portfolio_stopped_before_its_end_starts_its_helpers_again():
    r"""Stopped by the driver with no member done (A\* beside its perimeter,
    paused while the fast solver looks for a solution,
    :mod:`pdbsearch.search.incumbent`), the next run starts the helper lane
    again; a portfolio a member ended starts nothing."""
    shared, apart = FakeEngine(None), FakeEngine(None, detachable=True)
    p = portfolio([shared, apart], threads=2)
    run_until_each_ran(p, [shared, apart])
    before = int(apart.stats[EXPANDED])
    apart.ran.clear()
    run_until_each_ran(p, [apart])
    assert int(apart.stats[EXPANDED]) > before
    assert not any(t.is_alive() for t in threading.enumerate() if t.name.startswith("test-"))
    forever, quick = FakeEngine(None, detachable=True), FakeEngine(5)
    p = portfolio([forever, quick], threads=2)
    assert run_until_end(p) == SOLVED
    ran = int(forever.stats[EXPANDED])
    assert p.run(64) == SOLVED
    assert int(forever.stats[EXPANDED]) == ran
    assert not any(t.is_alive() for t in threading.enumerate() if t.name.startswith("test-"))


def test_a_helper_that_exhausts_its_space_proves_the_puzzle_unsolvable():
    shared, apart = FakeEngine(None), FakeEngine(20, code=EXHAUSTED, detachable=True)
    assert run_until_end(portfolio([shared, apart], threads=2)) == EXHAUSTED


@pytest.mark.parametrize("threads", [1, 2])
def test_a_member_that_stalls_is_retired_and_proves_nothing(threads):
    # An incomplete engine running out of moves (STALLED) leaves the search
    # to the others: here the other solves later, or exhausts its space.
    stalls, solves = FakeEngine(3, code=STALLED, detachable=True), FakeEngine(40)
    p = portfolio([stalls, solves], threads=threads)
    assert run_until_end(p) == SOLVED and p.winner.engine is solves
    assert p.members[0].retired and p.members[0].stalled
    assert stalls.stats[EXPANDED] == 3
    stalls, exhausts = FakeEngine(3, code=STALLED, detachable=True), FakeEngine(40, EXHAUSTED)
    assert run_until_end(portfolio([stalls, exhausts], threads=threads)) == EXHAUSTED


@pytest.mark.parametrize("threads", [1, 2])
def test_when_every_member_stalls_the_portfolio_stalls(threads):
    engines = [FakeEngine(3, code=STALLED, detachable=True), FakeEngine(5, code=STALLED)]
    p = portfolio(engines, threads=threads)
    assert run_until_end(p) == STALLED
    assert all(m.stalled for m in p.members)


def test_only_helpers_left_the_caller_waits_and_still_returns():
    # The caller's lane empties (its member stalls): it waits on the helper.
    shared = FakeEngine(1, code=STALLED)
    apart = FakeEngine(300, detachable=True, wait_for=shared.ran)
    p = portfolio([shared, apart], threads=2)
    assert [m.lane for m in p.members] == [0, 1]
    assert run_until_end(p) == SOLVED and p.winner.engine is apart
    assert p.members[0].stalled


def test_the_callers_lane_left_empty_takes_over_a_helpers_member():
    # Its member stalls; the helper lane has two: one moves to the caller's
    # thread (the one furthest ahead of its share), and each runs in one thread only.
    shared = FakeEngine(1, code=STALLED)
    a = FakeEngine(None, detachable=True, wait_for=shared.ran)
    b = FakeEngine(None, detachable=True, wait_for=shared.ran)
    p = portfolio([shared, a, b], threads=2)
    assert [m.lane for m in p.members] == [0, 1, 1]
    deadline = time.monotonic() + 10
    try:
        while len(p.lanes[0]) < 2 and time.monotonic() < deadline:
            assert p.run(64) == RUNNING
        moved = p.lanes[0][1]
        before = moved.engine.stats[EXPANDED]
        for _ in range(50):
            assert p.run(64) == RUNNING
    finally:
        p.stop()
    assert moved.lane == 0 and p.lanes[1] == [m for m in p.members[1:] if m is not moved]
    assert moved.engine.stats[EXPANDED] >= before + 50
    assert threading.get_ident() in moved.engine.threads
    stayed = p.lanes[1][0].engine
    assert threading.get_ident() not in stayed.threads and len(stayed.threads) == 1


def test_a_lane_of_one_member_is_not_taken_over():
    shared = FakeEngine(1, code=STALLED)
    apart = FakeEngine(200, detachable=True, wait_for=shared.ran)
    p = portfolio([shared, apart], threads=2)
    assert run_until_end(p) == SOLVED and apart.threads.isdisjoint({threading.get_ident()})


@pytest.mark.parametrize("late_share", [0.125, 1.5])
def test_a_member_runs_at_its_late_share_after_its_opening(late_share):
    # The turns of one lane, with each chunk's CPU seconds given: a member
    # with a late share (smaller, or larger) keeps its share for share x
    # OPENING_SECONDS of its own seconds, then runs at its late share.
    plain = Member("plain", FakeEngine(None), 0.5)
    changing = Member("changing", FakeEngine(None), 0.5, late_share=late_share)
    assert changing.opening() == pytest.approx(0.5 * OPENING_SECONDS)
    assert plain.opening() == float("inf")
    lane, chunk = [plain, changing], 0.01
    used = {"opening": [0.0, 0.0], "late": [0.0, 0.0]}
    for step in range(round(4 * OPENING_SECONDS / chunk)):
        phase = "opening" if step * chunk < OPENING_SECONDS else "late"
        member = PortfolioSearch._pick(lane)
        assert member.current_share() == (late_share if member is changing and
                                          member.seconds >= changing.opening() else 0.5)
        member.seconds += chunk
        used[phase][lane.index(member)] += chunk
    assert used["opening"][1] / sum(used["opening"]) == pytest.approx(0.5, abs=0.01)
    late = used["late"][1] / sum(used["late"])
    assert late == pytest.approx(late_share / (0.5 + late_share), abs=0.01)
    assert changing.turn() == pytest.approx(plain.turn(), abs=2 * chunk / min(0.5, late_share))


def test_past_the_openings_the_callers_lane_takes_over_a_helpers_member():
    # Sokoban's shape: three members that stay in the caller's lane, two of
    # them with openings, and three detachable ones in the helper lane.
    engines = [FakeEngine(None) for _ in range(3)] + \
        [FakeEngine(None, detachable=True) for _ in range(3)]
    shares = [(0.21, None), (0.2, 0.04), (0.09, 0.02), (0.17, None), (0.165, None),
              (0.165, None)]
    members = [Member(f"m{i}", e, share, late_share=late)
               for i, (e, (share, late)) in enumerate(zip(engines, shares))]
    p = PortfolioSearch(None, members, 1 << 40, "test", threads=2)
    assert [m.lane for m in members] == [0, 0, 0, 1, 1, 1]
    for m, seconds in zip(members, (1.0, 0.9, 0.4, 0.7, 0.8, 0.6)):
        m.seconds = seconds * OPENING_SECONDS / 5
    assert p._take_over() is None           # 0.5 of share in each lane
    members[1].seconds = members[1].opening() + 0.1
    members[2].seconds = members[2].opening() + 0.1
    # 0.27 against 0.5: the helper member furthest ahead of its share moves
    assert p._take_over() is members[4] and members[4].lane == 0
    assert p.lanes[0] == members[:3] + [members[4]] and p.lanes[1] == [members[3], members[5]]
    assert p._take_over() is None           # 0.44 against 0.335: no closer by moving
    one = PortfolioSearch(None, [Member("a", FakeEngine(None), 1.0, late_share=0.1)],
                          1 << 40, "test", threads=2)
    one.members[0].seconds = 10.0
    assert one._take_over() is None         # no helper lane


@pytest.mark.parametrize("threads, want", [(2, [0, 1, 1]), (3, [0, 1, 2]), (4, [0, 1, 2])])
def test_when_every_member_detaches_the_callers_thread_runs_one(threads, want):
    # (--members with FESS engines only): no core waits idle.
    engines = [FakeEngine(None, detachable=True) for _ in range(3)]
    p = portfolio(engines, threads=threads)
    assert [m.lane for m in p.members] == want
    run_until_each_ran(p, engines)
    assert engines[0].threads == {threading.get_ident()}
    assert all(threading.get_ident() not in e.threads for e in engines[1:])
    one = portfolio([FakeEngine(300, detachable=True)], threads=2)
    assert len(one.lanes) == 1 and run_until_end(one) == SOLVED


def test_a_helpers_exception_is_raised_in_the_callers_thread():
    shared, apart = FakeEngine(None), FakeEngine(None, detachable=True, fail=True)
    p = portfolio([shared, apart], threads=2)
    with pytest.raises(RuntimeError, match="engine failure"):
        run_until_end(p)


def test_growth_past_the_memory_limit_retires_the_member_in_any_lane():
    # Each starts at 1000 bytes and asks to double up to 8000; together
    # they may hold 6000, so both are retired in the end, and the
    # portfolio asks for room it cannot have (the driver then stops).
    shared = FakeEngine(None, grow_to=8000)
    apart = FakeEngine(None, detachable=True, grow_to=8000)
    p = portfolio([shared, apart], threads=2, memory=6000)
    assert run_until_end(p) == GROW_NODES
    assert all(m.retired for m in p.members)
    assert shared.size + apart.size <= 6000


def test_a_levels_run_shares_the_cores_among_its_jobs(monkeypatch):
    from pdbsearch.batch import levels
    from pdbsearch.sokoban.collection import RunOptions
    monkeypatch.setattr(levels, "usable_cores", lambda: 8)
    assert levels.limits_of_one_level(RunOptions(), 1).threads is None   # the child's cores
    assert levels.limits_of_one_level(RunOptions(), 3).threads == 2
    assert levels.limits_of_one_level(RunOptions(), 16).threads == 1
    assert levels.limits_of_one_level(RunOptions(threads=5), 2).threads == 5


class BudgetEngine(FakeEngine):
    """A fake engine that expands its whole budget each chunk, in a few
    milliseconds without the GIL (as the kernels do), so the lanes overlap."""

    def run(self, budget: int) -> int:
        self.threads.add(threading.get_ident())
        time.sleep(0.002)
        self.stats[EXPANDED] += budget
        return RUNNING


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_node_limit_holds_across_the_helper_lanes(threads):
    # Drive the portfolio as the driver does with a node limit: the
    # caller's budget is what the (summed) counts leave; the helpers run
    # on between its chunks, yet together they never pass the limit.
    engines = [BudgetEngine(None, detachable=True) for _ in range(3)]
    p = portfolio(engines, threads=threads)
    limit = 1000
    p.limit_nodes(limit)
    try:
        deadline = time.monotonic() + 10
        while int(p.stats[EXPANDED]) < limit and time.monotonic() < deadline:
            assert p.run(min(7, limit - int(p.stats[EXPANDED]))) == RUNNING
    finally:
        p.stop()
    assert sum(int(e.stats[EXPANDED]) for e in engines) == limit == int(p.stats[EXPANDED])
    if threads > 1:   # the helpers did run beside the caller
        assert len(set().union(*(e.threads for e in engines))) > 1
