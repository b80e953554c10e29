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

**How.**  The relay *follows* a leader, a FESS engine of the same
portfolio, which then publishes its best position and the path to it
after each chunk (``published_best``).  The relay runs one *leg* at a
time: a backward search from the goal to a target position, made by the
domain (``make_leg(target_key)``).  The first leg aims at the leader's
best position.  A leg that has had its budget of CPU seconds
(:data:`LEG_SECONDS` at first) hands over to a leg aimed at the leader's
newer best position, if there is one; if not, or if the leg ran out of
moves (the target unreachable from the goal, or its moves incomplete), the
relay *backs off*: the next leg aims at the position a quarter of the way
back along the leader's path, with twice the budget.  A best position is
often a dead end the leader's tests do not see; some position before it on
its path is not.

**The solution** is the leader's path to the target, then the leg's path
from it to the goal (the leg's first position is the target with the
player anywhere in its area).  The leg's ``solution_codes`` unrolls both
parts: they are moves of the same puzzle.  A solution so found is replayed
by the puzzle's checker like any other.

**Memory.**  Each leg, the first too, is asked for as room
(``GROW_LEG``): the portfolio makes it only if the other members' bytes
and a fresh leg's fit its memory limit, and retires the relay otherwise.
Every leg starts at the same size, which a leg made with the relay (and
let go at once) tells.

**Threads.**  The relay reads only the leader's published tuple (replaced
whole, never changed in place) and each leg keeps its own scratch, so the
relay may run in another thread than its leader (``detach``).
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from .common import (EXHAUSTED, EXPANDED, F_LAST, GENERATED, GROW_LEG, N_FSTATS, N_STATS, NODES,
                     OPEN, PRUNED, STALLED)

#: CPU seconds of a leg before it hands over to one aimed at a newer best.
LEG_SECONDS = 0.25
#: The part of the leader's path a back-off steps back (at least one move).
BACK_OFF = 4
#: The figures summed over the legs (the others are the current leg's).
_SUMMED = (EXPANDED, GENERATED, PRUNED)


class RelaySearch:
    """Legs from the goal to the best position of a leader (see the module
    doc).  ``make_leg(key)``: an engine that searches from the goal back to
    the position ``key``, whose
    ``solution_keys()`` run from that position (its player anywhere in his
    area) to the goal and whose ``solution_codes(keys)`` unrolls the moves
    of the leader's path too; ``leader``: the label of the portfolio member
    to follow (:meth:`follow`); ``start_key``: the puzzle's start."""

    name = "relay"
    progress_label = "legs"

    def __init__(self, make_leg: Callable[[np.ndarray], object], leader: str,
                 start_key: np.ndarray):
        self.make_leg = make_leg
        self.leader_label = leader
        self.leader = None
        # Without a leader (a portfolio without it), every leg aims at the start.
        self._alone = (0, [start_key.copy()])
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.fstats = np.zeros(N_FSTATS, dtype=np.float64)
        self._done = np.zeros(N_STATS, dtype=np.int64)   # counts of the legs before
        self.budget = LEG_SECONDS
        self.legs = 0
        self.back_offs = 0
        self.ended_legs = 0                   # legs that ran out of moves
        self.leg = None
        self.prefix = self._alone[1]          # the leader's path to the leg's target
        self.leg_seconds = 0.0
        self.aimed_best = -1                  # the leader's best node last aimed at
        self._fresh = make_leg(start_key).nbytes()   # the bytes every leg starts with
        self._pending: list[np.ndarray] | None = None   # the path of the leg asked for

    def follow(self, engines: dict) -> None:
        """Follow the member labelled ``leader`` among a portfolio's
        ``engines`` (label → engine); it then publishes its best position.
        Without it, the legs aim at the start."""
        self.leader = engines.get(self.leader_label)
        if self.leader is not None:
            self.leader.followed = True

    def detach(self) -> bool:
        """True: the relay reads only the leader's published tuple, its
        legs only their own scratch and the level's tables."""
        return True

    def load_kernels(self) -> None:
        """Compile or load a leg's kernels (one aimed at the start)."""
        self.make_leg(self._alone[1][-1]).load_kernels()

    def _aim(self, path: list[np.ndarray]) -> None:
        """Start a leg towards the last position of ``path`` (the leader's
        path to it); the last leg's arrays are let go first."""
        if self.leg is not None:
            for slot in _SUMMED:
                self._done[slot] += int(self.leg.stats[slot])
        self.leg = None
        self.prefix = path
        self.leg = self.make_leg(path[-1])
        self.leg_seconds = 0.0
        self.legs += 1

    def _backed_off(self) -> list[np.ndarray]:
        """The path a quarter of the way back (the start stays the start),
        the budget doubled."""
        depth = len(self.prefix) - 1
        self.back_offs += 1
        self.budget *= 2
        return self.prefix[:depth - max(1, depth // BACK_OFF) + 1] if depth > 0 else self.prefix

    def _ask(self, path: list[np.ndarray]) -> int:
        """Ask for room for a leg towards ``path``'s end (:meth:`grow`)."""
        self._pending = path
        return GROW_LEG

    def run(self, budget: int) -> int:
        """One chunk of the current leg; or, when the module doc says so,
        ``GROW_LEG``: room for the next leg."""
        node, path = self.leader.published_best if self.leader is not None else self._alone
        if self.leg is None:
            self.aimed_best = node
            return self._ask(path)
        if self.leg_seconds >= self.budget:
            if node != self.aimed_best:
                self.aimed_best = node
                self.budget = LEG_SECONDS
                return self._ask(path)
            return self._ask(self._backed_off())
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
            # search, whose goal the leader may still find.
            self.ended_legs += 1
            return self._ask(self._backed_off())
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
            self._aim(self._pending)
        else:
            self.leg.grow(code)

    def solution_keys(self) -> list[np.ndarray]:
        """The leader's path to the target, then the leg's path on from it
        (its first position, the target's boxes, dropped)."""
        return [k.copy() for k in self.prefix] + self.leg.solution_keys()[1:]

    def solution_codes(self, keys: list[np.ndarray]) -> list[int]:
        """The puzzle's moves along ``keys``, unrolled by the leg."""
        return self.leg.solution_codes(keys)

    def lower_bound(self) -> float | None:
        """The relay proves no bound."""
        return None

    def report(self) -> dict:
        """Legs run, back-offs, legs that ran out of moves, and how deep
        along the leader's path the last leg aimed."""
        return {"legs": self.legs, "back_offs": self.back_offs, "ended_legs": self.ended_legs,
                "target_depth": max(len(self.prefix) - 1, 0)}
