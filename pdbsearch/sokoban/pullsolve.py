"""A backward solver: FESS on the pull game, from the solved position to
the level's start (``fess-backward``, a member of the ``--algo fess``
portfolio).

The pull game of :mod:`.packing` plans a packing order: boxes pulled onto
start squares are taken off (the sink assumption).  Here no box is taken
off (:attr:`.pullgame.PullParams.to_start`): the search ends when every
start square holds a box and the player stands in the start's area, which
is the level's start position; read forwards, its pulls are pushes and its
path is a solution.  Its features are the boxes off the start squares,
the player regions and the boxes on goals; its ties go to the boxes
nearest the start squares; a box is never pulled where no start square's
box could have been pushed; the late check matches the boxes to start
squares they could have come from.

Why backwards: the end of many levels, boxes packed into a goal area in a
strict order, is where forward searches stall, and backwards it is the
first, most constrained part (the perimeter's greedy half, a backward
best-first search, solves holland 6, 15, 17 and grigr2002 40 first in the
portfolio at 60 s).  Festival runs backward searches beside its forward
ones for the same reason.

**Meeting the forward engines** (``leaders``): in the portfolio,
``fess-backward`` follows the forward FESS engines as the relay does
(:mod:`pdbsearch.search.relay`) and ends, too, on any position along
the paths to their best positions (up to :data:`MEET_ROOM` of them): the
leader's path to that position, then the pulls read forwards, make a
solution.  The positions are only more goals: the search moves as it
would without them.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..search.fess import FessSearch
from ..search.relay import MeetingPaths, follow_leaders
from .fess import load_macro_edge_kernels, macro_edge_codes
from .macros import macro_work
from .pullgame import PullDomain, PullProblem


#: Positions of the leaders' paths a following backward solver can meet
#: (16 K of them: 8 K + 8 bytes each, K key words, with their hash slots;
#: counted in its bytes, :meth:`PullSolveSearch.nbytes`).
MEET_ROOM = 1 << 14


class PullSolveSearch(FessSearch):
    """FESS on the pull game towards the start; its solution is given as
    the forward positions and pushes of the puzzle."""

    def __init__(self, puzzle, limits, start: tuple[frozenset[int], int] | None = None,
                 meet: Sequence[tuple[frozenset[int], int]] = (),
                 leaders: Sequence[str] = ()):
        """Towards the level's start, or towards ``start`` (boxes, player):
        a position of the level, which the solution then starts from; or
        from the first position of ``meet`` (boxes, player) reached, if
        any is reached first; or from any position along the paths of the
        portfolio members labelled ``leaders`` once it follows them
        (:meth:`follow`; ``start`` is then the level's)."""
        domain = PullDomain(puzzle, to_start=True, start=start, meet=meet,
                            meet_room=MEET_ROOM if leaders else 0)
        super().__init__(PullProblem(domain), limits, domain)
        self.leader_labels = tuple(leaders)
        self.leaders: list = []
        self._meeting = MeetingPaths()
        self._seen_best: dict[int, int] = {}
        self.met = 0   # 1: the solution starts with a leader's path
        self.prepared = True   # nothing to prepare: no plan, no tables
        self.forward = puzzle
        n_grid = puzzle.level.width * puzzle.level.height
        self._replay_work = macro_work(n_grid)
        self._occ = np.zeros(n_grid, np.uint8)

    def load_kernels(self) -> None:
        """Compile or load the pull game's kernels and the replay's."""
        super().load_kernels()
        load_macro_edge_kernels(self.forward, self._replay_work, self._occ)

    def detach(self) -> bool:
        """True: its scratch is its own, it reads only the level's tables
        and its leaders' published tuples."""
        return True

    def follow(self, engines: dict) -> None:
        """Follow the members labelled ``leaders`` among a portfolio's
        ``engines`` (label -> engine) that are there; they then publish
        their best positions."""
        self.leaders = list(follow_leaders(self.leader_labels, engines).values())

    def run(self, budget: int) -> int:
        """One chunk, after taking in the leaders' newer paths."""
        for i, leader in enumerate(self.leaders):
            node, path = leader.published_best
            if self._seen_best.get(i) != node and self.domain.meet_count < MEET_ROOM:
                self._seen_best[i] = node
                new = self._meeting.add(path)
                if new:
                    self.domain.add_meet([self.forward.position_of(k) for k in new])
        return super().run(budget)

    def solution_keys(self) -> list[np.ndarray]:
        """The forward positions from the start (or the position of
        ``meet`` reached, or a leader's path to the position met) to the
        solved one: the pull path read backwards (the virtual root
        dropped)."""
        d = self.domain
        keys = [self.forward.key_of(d.boxes_of(key), d.player_of(key))
                for key in reversed(super().solution_keys()[1:])]
        prefix = self._meeting.path_to(keys[0]) if keys else None
        if prefix is None or len(prefix) == 1:
            return keys
        self.met = 1
        return [k.copy() for k in prefix[:-1]] + keys

    def nbytes(self) -> int:
        """Bytes held now, the table of positions to meet included."""
        pp = self.domain.params
        return super().nbytes() + pp.meet_keys.nbytes + pp.meet_slots.nbytes

    def report(self) -> dict:
        """FESS's report, the leaders' positions it can meet, and whether
        its solution starts with a leader's path."""
        out = super().report()
        if self.leader_labels:
            out["meetable"] = self.domain.meet_count
            out["met"] = self.met
        return out

    def solution_codes(self, keys: list[np.ndarray]) -> list[int]:
        """The pushes along the forward ``keys`` (each pull macro undone)."""
        codes: list[int] = []
        for a, b in zip(keys, keys[1:]):
            codes.extend(macro_edge_codes(self.forward, a, b, self._replay_work, self._occ))
        return codes
