"""The relay: a search from the goal back to where a forward search has
got, aimed anew as the forward search moves on (a member of a portfolio,
:mod:`.portfolio`).

**Why.**  On hard Sokoban levels FESS (:mod:`.fess`) often gets most of
the way: its best position has most boxes home, and what is left is the
end of the level, the last boxes packed into the goal area in a strict
order, where forward searches stall and backward ones are quick
(:mod:`pdbsearch.sokoban.pullsolve`).  A backward search aimed at the
level's start has the whole level to cross; aimed at the forward search's
best position, it has only the rest.  On Kevin01 54 and 26 (30 s of
``fess-only``, unsolved), the best positions, 41 and 48 macro moves deep,
were each reached from the goal by ``fess-backward`` in under 0.03 s,
while ``fess-only`` from them did not finish in 20 s.

**How.**  The relay *follows* leaders, FESS engines of the same
portfolio, which then publish their best positions and the paths to them
after each chunk (``published_best``).  The relay runs one *leg* at a
time: a backward search from the goal to a target position, made by the
domain (``make_leg(target_key, meet)``).  The first leg aims at the first
leader's best position.  A leg that has had its budget of CPU seconds
(:data:`LEG_SECONDS` at first) hands over to the next leader in turn
(the same one, when it is alone): a leg aimed at that leader's newer best
position, if there is one; if not, the relay *backs off* along that
leader's path: the next leg aims at the position a quarter of the way
back along the path it last aimed along, with twice the budget that
leader's legs had.  A leg that runs out of moves (the target unreachable
from the goal, or its moves incomplete) backs off along its own leader's
path at once.  A best position is often a dead end the leader's tests do
not see; some position before it on its path is not.  Each leader keeps
its own path and budget: two engines stall in different places.

**Meeting the paths.**  Each leg is also given the positions along the
leaders' paths (the path it aims along, the last path of each track and
each leader's latest; ``make_leg(target, meet)``), and it ends on the
first of them it reaches, as on its target: a leader's path to that
position and the leg's path from it make a solution too.  A best position
that is a dead end is then no obstacle when a position before it on the
path is not, and a leg aimed at one leader's best may end on the other's
path.  The leg searches exactly as it would without them.

**The solution** is the leader's path to the position the leg reached
(its target or one it met; when several paths hold it, a way along them
no longer than the shortest one's), then the leg's path from it to the
goal (the leg's first position is that position with the player
anywhere in its area).  The leg's ``solution_codes`` unrolls both parts:
they are moves of the same puzzle.  A solution so found is replayed by
the puzzle's checker like any other.

**Memory.**  Each leg, the first too, is asked for as room
(``GROW_LEG``): the portfolio makes it only if the other members' bytes
and a fresh leg's fit its memory limit, and retires the relay otherwise.
Every leg starts at the same size, which a leg made with the relay (and
let go at once) tells.

**Threads.**  The relay reads only the leaders' published tuples (replaced
whole, never changed in place) and each leg keeps its own scratch, so the
relay may run in another thread than its leader (``detach``).
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

import numpy as np

from .common import (EXHAUSTED, EXPANDED, F_LAST, GENERATED, GROW_LEG, N_FSTATS, N_STATS, NODES,
                     OPEN, PRUNED, STALLED)

#: CPU seconds of a leg before it hands over to one aimed at a newer best.
LEG_SECONDS = 0.25
#: The part of the leader's path a back-off steps back (at least one move).
BACK_OFF = 4
#: The figures summed over the legs (the others are the current leg's).
_SUMMED = (EXPANDED, GENERATED, PRUNED)


class MeetingPaths:
    """Positions along paths from the start, each with a way to it along
    those paths, no longer than any one of them gives (it may pass from
    one path to another where they share a position): where a backward
    search that *meets* one of them (:mod:`pdbsearch.sokoban.pullgame`,
    ``meet``) takes its solution's first part from.  Kept as a tree (each
    position's predecessor on its way), so that paths that share their
    beginnings cost one entry a position (about 200 bytes)."""

    def __init__(self):
        #: key bytes -> (predecessor's key bytes or None, depth, key)
        self._to: dict[bytes, tuple[bytes | None, int, np.ndarray]] = {}

    def add(self, path: list[np.ndarray]) -> list[np.ndarray]:
        """Take in the positions of ``path``; returns those new here."""
        new = []
        before = None
        for depth, key in enumerate(path):
            name = key.tobytes()
            known = self._to.get(name)
            if known is None:
                new.append(key)
            # A link only ever goes to a shallower position, so the links
            # from any position lead back to the start.
            if known is None or known[1] > depth:
                self._to[name] = (before, depth, key)
            before = name
        return new

    def path_to(self, key: np.ndarray) -> list[np.ndarray] | None:
        """The way from the start to ``key`` along the paths taken in
        (None: ``key`` is on none of them)."""
        name = key.tobytes()
        if name not in self._to:
            return None
        path = []
        while name is not None:
            before, _, known = self._to[name]
            path.append(known)
            name = before
        return path[::-1]

    def __len__(self) -> int:
        return len(self._to)


def follow_leaders(labels: Sequence[str], engines: dict) -> dict:
    """The members labelled ``labels`` among a portfolio's ``engines``
    (label → engine) that are there, in the order of ``labels``; each is
    told it is followed, so that it publishes its best position and the
    path to it (``published_best``)."""
    leaders = {label: engines[label] for label in labels if label in engines}
    for engine in leaders.values():
        engine.followed = True
    return leaders


class _Track:
    """What the relay keeps of one leader: its engine (None: the puzzle's
    start stands for it), the best node last aimed at, the path the last
    leg aimed along and the budget of its next leg."""

    def __init__(self, leader, start_path: list[np.ndarray]):
        self.leader = leader
        self.start_path = start_path
        self.aimed_best = -1
        self.prefix = start_path
        self.budget = LEG_SECONDS

    def published(self) -> tuple[int, list[np.ndarray]]:
        """The leader's best node and its path (the start, without one)."""
        return self.leader.published_best if self.leader is not None else (0, self.start_path)


class RelaySearch:
    """Legs from the goal to the best positions of one or more leaders
    (see the module doc).  ``make_leg(key, meet)``: an engine that searches
    from the goal back to the position ``key``, or to any of the positions
    ``meet`` (a list of keys), whose ``solution_keys()`` run from the
    position reached (its player anywhere in his area) to the goal and
    whose ``solution_codes(keys)`` unrolls the moves of the leader's path
    too; ``leaders``: the labels of the portfolio members to follow
    (:meth:`follow`), whose best positions the legs aim at in turn;
    ``start_key``: the puzzle's start."""

    name = "relay"
    progress_label = "legs"

    def __init__(self, make_leg: Callable[[np.ndarray, list[np.ndarray]], object],
                 leaders: Sequence[str], start_key: np.ndarray):
        self.make_leg = make_leg
        self.leader_labels = tuple(leaders)
        self.followed_labels: list[str] = []
        self._start_path = [start_key.copy()]
        # Without a leader (a portfolio without any), every leg aims at the start.
        self.tracks = [_Track(None, self._start_path)]
        self.track = self.tracks[0]           # the track of the current leg
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.fstats = np.zeros(N_FSTATS, dtype=np.float64)
        self._done = np.zeros(N_STATS, dtype=np.int64)   # counts of the legs before
        self.legs = 0
        self.back_offs = 0
        self.ended_legs = 0                   # legs that ran out of moves
        self.leg = None
        self.leg_seconds = 0.0
        self.met = 0                          # solutions from a position met, not the target
        self._meeting = MeetingPaths()        # the paths the current leg may meet
        self._fresh = make_leg(start_key, []).nbytes()   # the bytes every leg starts with
        self._pending: tuple[_Track, list[np.ndarray]] | None = None   # the leg asked for

    def follow(self, engines: dict) -> None:
        """Follow the members labelled ``leaders`` among a portfolio's
        ``engines`` (label → engine) that are there; they then publish
        their best positions.  Without any, the legs aim at the start."""
        leaders = follow_leaders(self.leader_labels, engines)
        self.followed_labels = list(leaders)
        if leaders:
            self.tracks = [_Track(engine, self._start_path) for engine in leaders.values()]
            self.track = self.tracks[0]

    @property
    def budget(self) -> float:
        """CPU seconds the current leg may run before it hands over."""
        return self.track.budget

    def detach(self) -> bool:
        """True: the relay reads only the leaders' published tuples, its
        legs only their own scratch and the level's tables."""
        return True

    def load_kernels(self) -> None:
        """Compile or load a leg's kernels (one aimed at the start)."""
        self.make_leg(self._start_path[-1], []).load_kernels()

    def _aim(self, track: _Track, path: list[np.ndarray]) -> None:
        """Start a leg towards the last position of ``path`` (``track``'s
        leader's path to it); the last leg's arrays are let go first."""
        if self.leg is not None:
            for slot in _SUMMED:
                self._done[slot] += int(self.leg.stats[slot])
        self.leg = None
        self.track = track
        track.prefix = path
        self._meeting = MeetingPaths()
        meet = self._meeting.add(path)
        for other in [t.prefix for t in self.tracks if t is not track] + [
                t.published()[1] for t in self.tracks]:
            meet += self._meeting.add(other)
        self.leg = self.make_leg(path[-1], meet)
        self.leg_seconds = 0.0
        self.legs += 1

    def _backed_off(self, track: _Track) -> list[np.ndarray]:
        """``track``'s path a quarter of the way back (the start stays the
        start), its budget doubled."""
        depth = len(track.prefix) - 1
        self.back_offs += 1
        track.budget *= 2
        return track.prefix[:depth - max(1, depth // BACK_OFF) + 1] if depth > 0 else track.prefix

    def _ask(self, track: _Track, path: list[np.ndarray]) -> int:
        """Ask for room for a leg towards ``path``'s end (:meth:`grow`)."""
        self._pending = (track, path)
        return GROW_LEG

    def _hand_over(self) -> int:
        """The next leader's turn: a leg aimed at its newer best, or, with
        none, backed off along its path."""
        track = self.tracks[(self.tracks.index(self.track) + 1) % len(self.tracks)]
        node, path = track.published()
        if node != track.aimed_best:
            track.aimed_best = node
            track.budget = LEG_SECONDS
            return self._ask(track, path)
        return self._ask(track, self._backed_off(track))

    def run(self, budget: int) -> int:
        """One chunk of the current leg; or, when the module doc says so,
        ``GROW_LEG``: room for the next leg."""
        if self.leg is None:
            track = self.tracks[0]
            track.aimed_best, path = track.published()
            return self._ask(track, path)
        if self.leg_seconds >= self.track.budget:
            return self._hand_over()
        c0 = time.thread_time()
        code = self.leg.run(budget)
        self.leg_seconds += time.thread_time() - c0
        for slot in _SUMMED:
            self.stats[slot] = self._done[slot] + int(self.leg.stats[slot])
        for slot in (NODES, OPEN):
            self.stats[slot] = int(self.leg.stats[slot])
        self.fstats[F_LAST] = self.leg.fstats[F_LAST]
        if code in (EXHAUSTED, STALLED):
            # The target is out of the leg's reach: never the end of the
            # search, whose goal a leader may still find.
            self.ended_legs += 1
            return self._ask(self.track, self._backed_off(self.track))
        return code

    def nbytes(self) -> int:
        """Bytes held by the current leg."""
        return self.leg.nbytes() if self.leg is not None else 0

    def grow_nbytes(self, code: int) -> int:
        """Bytes held after serving ``code``: a fresh leg's for
        ``GROW_LEG`` (the current one let go), else the current leg's."""
        return self._fresh if code == GROW_LEG else self.leg.grow_nbytes(code)

    def grow(self, code: int) -> None:
        """Start the leg asked for (``GROW_LEG``), or make room in the
        current one."""
        if code == GROW_LEG:
            self._aim(*self._pending)
        else:
            self.leg.grow(code)

    def solution_keys(self) -> list[np.ndarray]:
        """The way along the leaders' paths to the position the leg reached, then
        the leg's path on from it (its first position, that one, dropped)."""
        rest = self.leg.solution_keys()
        self.met = int(not np.array_equal(rest[0], self.track.prefix[-1]))
        return [k.copy() for k in self._meeting.path_to(rest[0])] + rest[1:]

    def solution_codes(self, keys: list[np.ndarray]) -> list[int]:
        """The puzzle's moves along ``keys``, unrolled by the leg."""
        return self.leg.solution_codes(keys)

    def lower_bound(self) -> float | None:
        """The relay proves no bound."""
        return None

    def report(self) -> dict:
        """Legs run, back-offs, legs that ran out of moves, how deep along
        its leader's path the last leg aimed, whether its solution starts
        from a position met rather than the target, and the leaders
        followed."""
        return {"legs": self.legs, "back_offs": self.back_offs, "ended_legs": self.ended_legs,
                "target_depth": max(len(self.track.prefix) - 1, 0), "met": self.met,
                "leaders": self.followed_labels}
