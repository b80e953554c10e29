"""A portfolio of engines sharing one search's time (Festival runs several
differently biased searches; so does ``--algo fess`` on Sokoban).

The members run interleaved, in chunks: each turn gives the member that
has used the smallest part of its *share* one chunk of about
:data:`CHUNK_SECONDS`.  So a level that member ``i`` alone solves in
``t`` seconds is solved in about ``t / share_i`` seconds, whichever member
it is.  The first member to solve it wins; a member that exhausts its
space proves the puzzle unsolvable (the members prune soundly), unless its
moves may miss a solution (``STALLED``, FESS with goal-room macros): that
member is retired and the others go on, as is a member whose growth would
pass the memory limit.

**Threads.**  With ``threads`` > 1, a member whose engine can *detach*
(``engine.detach()`` returns True: from then on it writes nothing another
member reads, and reads nothing another member writes but tables made to
be read while one thread writes them, such as Sokoban's perimeter and
learned patterns, :mod:`pdbsearch.fences`) gets a *lane* of its
own: a helper thread that runs its chunks on another core, while the
other members take turns in the caller's thread as above.  Detachable
members beyond the threads join the helper lanes in turn, and take
turns there by their shares.  The engines'
kernels release the GIL, so the lanes run side by side; shares then hold
within a lane, and a member's seconds are the CPU seconds of the thread
that ran it.  When the caller's lane has no member left (each retired,
say past the memory limit), it takes one over from the helper lane that
has the most, so that no core stands idle while members take turns
elsewhere.  The first lane to solve or exhaust stops the others;
:meth:`stop` (which the driver calls however the search ends) joins them.
A node limit (:meth:`limit_nodes`) holds across the lanes: each chunk
first reserves its budget from what the limit leaves, and gives back what
it did not expand, so the members' expansions together never pass it.

**Openings.**  A member with a ``late_share`` keeps its ``share`` for its
*opening*, the CPU seconds it gets of the first :data:`OPENING_SECONDS`
of one thread, ``share`` × :data:`OPENING_SECONDS`, and runs at its late
share after it: a smaller one for an engine that solves what it solves
in its first seconds or not at all (Sokoban's weighted A* and greedy
search), a larger one for an engine that needs another's progress first
(Sokoban's relay).  The caller's lane, its members past their openings,
then takes over a member of the helper lane with the most share, when
that makes the two lanes' shares closer: the time the openings give back
goes to the members that solve the hard puzzles, whichever lane they run
in.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from .common import (EXHAUSTED, EXPANDED, F_LAST, GENERATED, GROW_NODES, NODES, N_FSTATS,
                     N_STATS, OPEN, PRUNED, RUNNING, SOLVED, STALLED, move_between,
                     next_budget)

#: Target seconds of one member's chunk.
CHUNK_SECONDS = 0.05
#: A member with a late share keeps its first share for what it gets of
#: the first this many seconds of one thread (its opening).
OPENING_SECONDS = 10.0


@dataclass
class Member:
    """One engine of a portfolio and its accounts."""

    label: str
    engine: object
    share: float
    #: The share after the opening (``share`` × :data:`OPENING_SECONDS` CPU
    #: seconds); None: ``share`` throughout.
    late_share: float | None = None
    budget: int = 16
    seconds: float = 0.0          #: CPU seconds used (of the thread that ran it)
    retired: bool = False
    stalled: bool = False         #: retired for having no move left (an incomplete engine)
    lane: int = 0                 #: 0: the caller's thread; i > 0: helper thread i
    #: Held while a chunk runs: a member moved to another lane never runs in two at once.
    running: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def opening(self) -> float:
        """CPU seconds the member runs at its first share."""
        return float("inf") if self.late_share is None else self.share * OPENING_SECONDS

    def current_share(self) -> float:
        """The share the member runs at now."""
        return self.share if self.seconds < self.opening() else self.late_share

    def turn(self) -> float:
        """How far the member is along its shares: its CPU seconds, each
        divided by the share it ran at.  The member furthest behind runs
        next."""
        opening = self.opening()
        if self.seconds <= opening:
            return self.seconds / self.share
        return opening / self.share + (self.seconds - opening) / self.late_share


class PortfolioSearch:
    """Several engines on one puzzle, interleaved by time shares, with the
    detachable ones in helper threads when ``threads`` > 1."""

    progress_label = "f"

    def __init__(self, puzzle, members: list[Member], memory_bytes: int, name: str,
                 threads: int = 1):
        if not members:
            raise ValueError("a portfolio needs members")
        self.puzzle = puzzle
        self.members = members
        self.memory = memory_bytes
        self.name = name
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.fstats = np.zeros(N_FSTATS, dtype=np.float64)
        self.winner: Member | None = None
        self._out_of_memory = False
        # Growth decisions (they read every member's size) and the outcome:
        # one thread at a time.
        self._lock = threading.Lock()
        self._outcome: tuple[int, Member] | None = None
        self._error: BaseException | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._helpers: list[threading.Thread] = []
        self._started = False
        # The node limit (None: none) and the expansions reserved against
        # it: done by the members plus those of the chunks under way.
        self._node_limit: int | None = None
        self._reserved = 0
        self.lanes = self._assign_lanes(max(1, int(threads)))

    def _assign_lanes(self, threads: int) -> list[list[Member]]:
        """Lane 0 for the members that share state; each detachable member
        its own lane while threads last (in the members' order), then the
        helper lanes in turn (so two FESS engines on two threads share the
        second, and the first keeps its members' whole time).  When every
        member can detach, the first stays in lane 0: the caller's thread
        would otherwise only wait, and a core stand idle."""
        lanes: list[list[Member]] = [[]]
        apart: list[Member] = []
        for m in self.members:
            detach = getattr(m.engine, "detach", None)
            if threads == 1 or detach is None or not detach():
                lanes[0].append(m)
            else:
                apart.append(m)
        if not lanes[0] and apart:
            lanes[0].append(apart.pop(0))
        extra = 0
        for m in apart:
            if len(lanes) < threads:
                m.lane = len(lanes)
                lanes.append([m])
            else:
                m.lane = 1 + extra % (threads - 1)
                lanes[m.lane].append(m)
                extra += 1
        return lanes

    @staticmethod
    def _pick(lane: list[Member]) -> Member | None:
        active = [m for m in lane if not m.retired]
        if not active:
            return None
        return min(active, key=Member.turn)

    def limit_nodes(self, nodes: int | None) -> None:
        """Hold the members' expansions, summed over every lane, to
        ``nodes`` (``Limits.nodes``; None: no limit).  The driver checks
        its limit between the caller's chunks only, while the helper lanes
        run on: so each chunk reserves its budget here first."""
        with self._lock:
            self._node_limit = nodes
            self._reserved = sum(int(m.engine.stats[EXPANDED]) for m in self.members)

    def _reserve(self, budget: int) -> int:
        """The part of ``budget`` the node limit leaves, reserved (0: none
        is left until a chunk under way gives some back)."""
        if self._node_limit is None:
            return budget
        with self._lock:
            budget = max(0, min(budget, self._node_limit - self._reserved))
            self._reserved += budget
            return budget

    def _give_back(self, reserved: int, expanded: int) -> None:
        """A chunk that reserved ``reserved`` expansions made ``expanded``."""
        if self._node_limit is not None:
            with self._lock:
                self._reserved -= reserved - expanded

    def _chunk(self, member: Member, budget: int, lane: int) -> int | None:
        """One chunk of ``member`` in lane ``lane``: SOLVED, EXHAUSTED or
        RUNNING (a request for room is served here, or retires the member;
        a member moved to another lane meanwhile runs nothing here); None
        when the node limit leaves it nothing to run."""
        with member.running:
            if member.lane != lane:
                return RUNNING
            budget = self._reserve(budget)
            if budget == 0:
                return None
            before = int(member.engine.stats[EXPANDED])
            try:
                return self._run_chunk(member, budget)
            finally:
                self._give_back(budget, int(member.engine.stats[EXPANDED]) - before)

    def _run_chunk(self, member: Member, budget: int) -> int:
        """:meth:`_chunk`'s work, with the member held."""
        t0 = time.perf_counter()
        c0 = time.thread_time()
        code = member.engine.run(budget)
        spent = time.perf_counter() - t0
        # Shares are of CPU time: steady when other work shares the machine.
        member.seconds += time.thread_time() - c0
        if code == RUNNING:
            member.budget = next_budget(member.budget, spent, CHUNK_SECONDS)
        if code in (RUNNING, SOLVED, EXHAUSTED):
            return code
        if code == STALLED:
            # Its moves may have missed a solution: it proves nothing, and
            # the other members go on.
            member.retired = member.stalled = True
            return RUNNING
        with self._lock:
            # A member that reserves its arrays up front (the perimeter)
            # counts with all of them: it may yet fill them.
            others = sum(getattr(m.engine, "reserved_nbytes", m.engine.nbytes)()
                         for m in self.members if m is not member)
            if others + member.engine.grow_nbytes(code) > self.memory:
                member.retired = True
            else:
                member.engine.grow(code)
        return RUNNING

    def _finish_with(self, code: int, member: Member) -> None:
        """Record the first member to end the search; stop the lanes."""
        with self._lock:
            if self._outcome is None:
                self._outcome = (code, member)
        self._stop.set()
        self._wake.set()

    @staticmethod
    def _lane_share(lane: list[Member]) -> float:
        """The shares its active members run at now."""
        return sum(m.current_share() for m in lane if not m.retired)

    def _take_over(self) -> Member | None:
        """Move to the caller's lane the member of the helper lane with the
        most share (the one furthest ahead of its share there) when that
        brings the two lanes' shares closer: when the caller's lane has no
        member left (each retired), so that its core does not stand idle,
        or when its members are past their openings.  A lane of one member
        is never emptied.  Waits for the member's chunk in progress to
        end; returns the member moved, or None."""
        if len(self.lanes) < 2:
            return None
        with self._lock:
            busiest = max(self.lanes[1:], key=self._lane_share)
            active = [m for m in busiest if not m.retired]
            if len(active) < 2:
                return None
            member = max(active, key=Member.turn)
            gap = self._lane_share(busiest) - self._lane_share(self.lanes[0])
            if member.current_share() >= gap:
                return None
        with member.running:
            busiest.remove(member)
            member.lane = 0
            self.lanes[0].append(member)
        return member

    def _lane_loop(self, index: int) -> None:
        """A helper thread: the chunks of lane ``index`` until the search ends."""
        lane = self.lanes[index]
        try:
            while not self._stop.is_set():
                member = self._pick(lane)
                if member is None:
                    break
                code = self._chunk(member, member.budget, index)
                if code is None:
                    # The node limit is reached, unless a chunk under way
                    # gives some back: the driver stops the search once
                    # the members' counts reach it.
                    self._stop.wait(CHUNK_SECONDS)
                    continue
                if code in (SOLVED, EXHAUSTED):
                    self._finish_with(code, member)
        except BaseException as exc:  # noqa: BLE001 -- re-raised in the caller's thread
            self._error = exc
        finally:
            self._wake.set()

    def _start_helpers(self) -> None:
        self._started = True
        for i in range(1, len(self.lanes)):
            t = threading.Thread(target=self._lane_loop, args=(i,), daemon=True,
                                 name=f"{self.name}-lane-{i}")
            self._helpers.append(t)
            t.start()

    def _ended(self) -> int | None:
        """SOLVED or EXHAUSTED once a member ended the search (the lanes
        stopped), else None; a helper's exception is raised here."""
        if self._error is not None:
            self.stop()
            raise self._error
        if self._outcome is None:
            return None
        self.stop()
        code, self.winner = self._outcome
        return code

    def _wait_for_helpers(self) -> int:
        """Wait up to a chunk's time for the helper lanes (so that the
        driver still checks its limits); their outcome, else RUNNING."""
        self._wake.wait(CHUNK_SECONDS)
        self._wake.clear()
        self._sum_stats(None)
        code = self._ended()
        return RUNNING if code is None else code

    def run(self, budget: int) -> int:
        """One chunk of the caller's lane (the member furthest behind its
        share); the helper lanes run on by themselves."""
        if budget > 0 and not self._started:
            self._start_helpers()
        code = self._ended()
        if code is not None:
            return code
        self._take_over()
        member = self._pick(self.lanes[0])
        if member is None:
            if any(t.is_alive() for t in self._helpers):
                return self._wait_for_helpers()    # only helpers left
            if all(m.stalled for m in self.members):
                return STALLED
            self._out_of_memory = True
            return GROW_NODES
        if budget <= 0:
            return RUNNING
        code = self._chunk(member, min(budget, member.budget), 0)
        if code is None:
            # The helpers hold what the node limit leaves: their chunks'
            # counts then reach the limit the driver checks.
            return self._wait_for_helpers()
        self._sum_stats(member)
        if code in (SOLVED, EXHAUSTED):
            self._finish_with(code, member)
            return self._ended()
        return RUNNING

    def stop(self) -> None:
        r"""Stop and join the helper threads (each ends its current chunk);
        the figures then count all their work.  Unless a member ended the
        search, a later :meth:`run` starts them again (A\* resumed after
        the fast solver's turn, :mod:`.incumbent`)."""
        self._stop.set()
        for t in self._helpers:
            t.join()
        self._helpers = []
        self._sum_stats(None)
        if self._outcome is None and self._error is None:
            self._started = False
            self._stop.clear()

    def _sum_stats(self, last: Member | None) -> None:
        for slot in (EXPANDED, GENERATED, NODES, OPEN, PRUNED):
            self.stats[slot] = sum(int(m.engine.stats[slot]) for m in self.members)
        if last is not None:
            self.fstats[F_LAST] = last.engine.fstats[F_LAST]

    def load_kernels(self) -> None:
        """Compile or load every member's kernels."""
        for m in self.members:
            m.engine.load_kernels()

    def nbytes(self) -> int:
        """Bytes held by all members."""
        return sum(m.engine.nbytes() for m in self.members)

    def grow_nbytes(self, code: int) -> int:
        """Past any limit once every member is retired (the driver stops)."""
        return 1 << 62 if self._out_of_memory else self.nbytes()

    def grow(self, code: int) -> None:
        """Nothing: members grow inside :meth:`run`."""

    def solution_keys(self) -> list[np.ndarray]:
        """The winner's path."""
        return self.winner.engine.solution_keys()

    def solution_codes(self, keys: list[np.ndarray]) -> list[int]:
        """The winner's moves along ``keys``."""
        engine = self.winner.engine
        if hasattr(engine, "solution_codes"):
            return engine.solution_codes(keys)
        return [move_between(self.puzzle, a, b)[0] for a, b in zip(keys, keys[1:])]

    def lower_bound(self) -> float | None:
        """A portfolio of searches that find solutions proves no bound."""
        return None

    def report(self) -> dict:
        """Which member won, each member's time, expansions and own report;
        beside them, each key of the members' own reports from the first
        member that has it (so a portfolio of one FESS engine reads as that
        engine does)."""
        out: dict = {"winner": None if self.winner is None else self.winner.label,
                     "members": {}}
        for m in self.members:
            own = m.engine.report() if hasattr(m.engine, "report") else {}
            out["members"][m.label] = {"seconds": round(m.seconds, 4),
                                       "expanded": int(m.engine.stats[EXPANDED]),
                                       "share": m.share, "late_share": m.late_share,
                                       "retired": m.retired,
                                       "lane": m.lane, **own}
            for key, value in own.items():
                out.setdefault(key, value)
        return out
