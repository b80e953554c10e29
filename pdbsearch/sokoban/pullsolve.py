"""A backward solver: FESS on the pull game, from the solved position to
the level's start (``fess-backward``, a member of the ``--algo fess``
portfolio).

The pull game of :mod:`.packing` plans a packing order: boxes pulled onto
start squares are taken off (the sink assumption).  Here no box is taken
off (:attr:`.packing.PullParams.to_start`): the search ends when every
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
"""

from __future__ import annotations

import numpy as np

from ..search.fess import FessSearch
from .fess import load_macro_edge_kernels, macro_edge_codes
from .macros import macro_work
from .packing import PullDomain, PullProblem


class PullSolveSearch(FessSearch):
    """FESS on the pull game towards the start; its solution is given as
    the forward positions and pushes of the puzzle."""

    def __init__(self, puzzle, limits, start: tuple[frozenset[int], int] | None = None):
        """Towards the level's start, or towards ``start`` (boxes, player):
        a position of the level, which the solution then starts from."""
        domain = PullDomain(puzzle, to_start=True, start=start)
        super().__init__(PullProblem(domain), limits, domain)
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
        """True: its scratch is its own and it reads only the level's tables."""
        return True

    def solution_keys(self) -> list[np.ndarray]:
        """The forward positions from the start to the solved one: the pull
        path read backwards (the virtual root dropped)."""
        d = self.domain
        return [self.forward.key_of(d.boxes_of(key), d.player_of(key))
                for key in reversed(super().solution_keys()[1:])]

    def solution_codes(self, keys: list[np.ndarray]) -> list[int]:
        """The pushes along the forward ``keys`` (each pull macro undone)."""
        codes: list[int] = []
        for a, b in zip(keys, keys[1:]):
            codes.extend(macro_edge_codes(self.forward, a, b, self._replay_work, self._occ))
        return codes
