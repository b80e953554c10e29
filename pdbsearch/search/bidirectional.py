"""A bounded best-first search beside a search backwards from the goal:
perimeter search (Dillenburg & Nelson 1994; Manzini 1995) with the
perimeter grown while the forward search runs.

The puzzle's backward search (:meth:`pdbsearch.puzzle.Puzzle.backward_search`,
Sokoban's perimeter filled breadth-first) stores positions with their
exact distance to the goal.  Three things follow, and A* stays optimal and
weighted A* within α of the optimum:

* a stored position is a goal of the forward search, and its heuristic is
  its exact distance, so the way on is known the moment it is taken;
* with the backward layers complete to depth ``D``, every position not
  stored needs at least ``D + 1``: the heuristic takes the larger of that
  and its own bound (the *floor*), which is what pays where the bound is
  weakest, near the goal;
* positions queued before their distance was known carry an f that is
  only a bound: the forward search accepts a goal at its exact f and
  queues it again otherwise (``requeue_goals`` of
  :class:`~pdbsearch.search.bestfirst.BestFirstSearch`).

The two run as a :class:`~pdbsearch.search.portfolio.PortfolioSearch` of
two members sharing the time; either may end the search (the backward one
by storing the start: its depth then is the optimum), and its lower bound
is the forward search's.
"""

from __future__ import annotations

from .portfolio import Member, PortfolioSearch

#: Share of the time the backward search gets (measured on Microban and the
#: development sets; docs/benchmarks.md).
BACKWARD_SHARE = 0.3


def beside_backward_search(puzzle, engine, label: str, limits):
    """``engine`` (A* or weighted A*) with the puzzle's backward search
    beside it, or ``engine`` itself when the puzzle has none."""
    backward = puzzle.backward_search(limits)
    if backward is None:
        return engine
    engine.requeue_goals = True
    members = [Member("perimeter", backward, BACKWARD_SHARE),
               Member(label, engine, 1.0 - BACKWARD_SHARE)]
    return PortfolioSearch(puzzle, members, limits.memory_bytes(), label, bound_member=1)
