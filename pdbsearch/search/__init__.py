"""Search engines, written once for every puzzle.

:data:`ALGORITHMS` is the registry that feeds the command line and the
parametrised tests; :func:`solve` runs one of them on a puzzle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import PdbsearchError
from ..puzzle import Puzzle
from .bestfirst import BestFirstSearch
from .bfs import BreadthFirstSearch
from .driver import run_engine
from .idastar import IterativeDeepeningSearch
from .result import Limits, SearchResult, Status

__all__ = ["ALGORITHMS", "Algorithm", "Limits", "SearchResult", "Status", "solve",
           "explore"]


@dataclass(frozen=True)
class Algorithm:
    """A registered search algorithm."""

    name: str
    summary: str
    make: Callable[[Puzzle, float, Limits], object]
    uses_weight: bool = False
    needs_unit_costs: bool = False

    def guarantee(self, puzzle: Puzzle, weight: float) -> float | None:
        """The bound a solution of this algorithm carries on ``puzzle``."""
        if self.name == "bfs":
            return 1.0
        if self.name == "greedy" or not puzzle.heuristic_admissible:
            return None
        return float(weight) if self.uses_weight else 1.0


ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in [
    Algorithm("bfs", "breadth-first search (optimal for unit costs, no heuristic)",
              lambda p, w, lim: BreadthFirstSearch(p), needs_unit_costs=True),
    Algorithm("astar", "A* (optimal with an admissible heuristic)",
              lambda p, w, lim: BestFirstSearch(p, 1.0)),
    Algorithm("wastar", "weighted A*, f = g + α·h (cost <= α × optimal)",
              lambda p, w, lim: BestFirstSearch(p, w), uses_weight=True),
    Algorithm("idastar", "IDA* with a transposition table (optimal, little memory; proves "
                         "a board unsolvable once its table holds every reachable state)",
              lambda p, w, lim: IterativeDeepeningSearch(p, lim.memory_bytes())),
    Algorithm("greedy", "greedy best-first, f = h (fast, no guarantee)",
              lambda p, w, lim: BestFirstSearch(p, 1.0, greedy=True)),
]}


def solve(puzzle: Puzzle, algo: str = "astar", weight: float = 1.0,
          limits: Limits | None = None, progress: bool = False) -> SearchResult:
    """Solve ``puzzle`` with the named algorithm; see :class:`SearchResult`."""
    if algo not in ALGORITHMS:
        raise PdbsearchError(f"unknown algorithm {algo!r}; choose from {', '.join(ALGORITHMS)}")
    spec = ALGORITHMS[algo]
    if not weight >= 1.0:
        raise PdbsearchError(f"the weight must be a number >= 1, not {weight}")
    if spec.needs_unit_costs and not puzzle.unit_costs:
        raise PdbsearchError(f"{algo} is optimal only when every move costs 1; "
                             f"use astar (with --heuristic zero for Dijkstra)")
    if not spec.uses_weight:
        weight = 1.0
    limits = limits or Limits()
    engine = spec.make(puzzle, weight, limits)
    return run_engine(puzzle, engine, algo=algo, weight=weight,
                      bound=spec.guarantee(puzzle, weight), limits=limits,
                      progress=progress)


def explore(puzzle: Puzzle, limits: Limits | None = None,
            progress: bool = False) -> SearchResult:
    """Enumerate every state reachable from the start by BFS.

    ``result.stored`` is the number of reachable states; ``status`` is
    :attr:`Status.UNSOLVABLE` (meaning "exhausted") unless a limit stopped it.
    """
    engine = BreadthFirstSearch(puzzle, stop_at_goal=False)
    return run_engine(puzzle, engine, algo="bfs", weight=1.0, bound=None,
                      limits=limits or Limits(), progress=progress)
