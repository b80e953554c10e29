r"""A bounded best-first search beside a search backwards from the goal:
perimeter search (Dillenburg & Nelson 1994; Manzini 1995) with the
perimeter grown while the forward search runs.

The puzzle's backward search (:meth:`pdbsearch.puzzle.Puzzle.backward_search`,
Sokoban's perimeter filled breadth-first) stores positions with their
exact distance to the goal.  Three things follow, and A* stays optimal:

* a stored position is a goal of the forward search, and its heuristic is
  its exact distance, so the way on is known the moment it is taken;
* with the backward layers complete to depth ``D``, every position not
  stored needs at least ``D + 1``: the heuristic takes the larger of that
  and its own bound (the *floor*), which is what pays where the bound is
  weakest, near the goal;
* positions queued before their distance was known carry an f that is
  only a bound: the forward search takes such a goal only once the f it
  takes reaches the goal's cost, and queues it again otherwise
  (``requeue_goals`` of :class:`~pdbsearch.search.bestfirst.BestFirstSearch`;
  every f taken is at most α × the optimum, so weighted A* would keep its
  bound too).

Only A* runs beside it (the registry's ``beside_backward``).  Weighted A*
(α = 2) beside it solved fewer of sasquatch5 at 5 s a level: 22 against
25, sasquatch5 15, 32 and 34 each solved alone in under 2 s and not at all
beside it.  The floor makes every position nearer than it look alike, and
the exact depths make stored positions look worse than their neighbours,
which takes away the slope a weighted search follows (docs/benchmarks.md).

The two run as a :class:`~pdbsearch.search.portfolio.PortfolioSearch` of
two members; either may end the search (the backward one by storing the
start: its depth then is the optimum), and its lower bound is the forward
search's.

**Threads.**  With two threads or more (``Limits.threads``; by default
one per core), the backward search runs in a thread of its own (its
engine can detach), so A\* keeps a whole core and the perimeter grows on
the other, which A\* would otherwise leave idle.  Its table is then read
while it grows: a position being added may be missed (a goal met later,
a bound lower than it could be, never higher), and a lookup that a
rebuild of the table's slots may have fooled takes no floor
(:func:`pdbsearch.sokoban.kernels.perimeter_lookup`).  A rising floor
raises bounds during the search, as it does between chunks on one
thread.

**Shares** (on one thread).  The perimeter pays where its floor decides the bound, which
depends on the level: on Microban 144 (36 pushes, bound 24 at the start)
the floor raised a quarter of the forward search's bounds after two
seconds; on Microban 153 (336 pushes, the bound exact at the start) and
holland 39 under 5 %, and there a fixed 0.3 of the time was lost.  So the
backward search starts with :data:`FIRST_SHARE` and, once it has had
:data:`WARM_UP_SECONDS`, its share follows the fraction of the forward
search's new positions whose bound the floor raised (``floor_raised()`` of
the backward engine), between :data:`MIN_SHARE` and :data:`MAX_SHARE`,
measured over every :data:`WINDOW` positions generated.
"""

from __future__ import annotations

from .common import GENERATED
from .portfolio import Member, PortfolioSearch

#: Share of the time the backward search starts with.
FIRST_SHARE = 0.3
#: CPU seconds the backward search runs at its first share before its share
#: follows what it is worth.
WARM_UP_SECONDS = 1.0
#: Bounds of the backward search's share.
MIN_SHARE, MAX_SHARE = 0.05, 0.5
#: Positions the forward search generates between two reviews of the shares.
WINDOW = 20_000


class BidirectionalSearch(PortfolioSearch):
    """A bounded forward search and the backward search beside it (see the
    module doc), the backward one's share of the time following what its
    floor is worth to the forward one."""

    def __init__(self, puzzle, backward, forward, label: str, memory_bytes: int,
                 threads: int = 1):
        super().__init__(puzzle, [Member("perimeter", backward, FIRST_SHARE),
                                  Member(label, forward, 1.0 - FIRST_SHARE)],
                         memory_bytes, label, threads=threads)
        self._seen = (0, 0)   # (generated, raised) at the last review

    def run(self, budget: int) -> int:
        """One chunk (:meth:`PortfolioSearch.run`), then the shares reviewed
        (they matter only while the two share a thread)."""
        code = super().run(budget)
        backward, forward = self.members
        generated = int(forward.engine.stats[GENERATED])
        if generated - self._seen[0] >= WINDOW:
            raised = backward.engine.floor_raised()
            if backward.seconds >= WARM_UP_SECONDS:
                rate = (raised - self._seen[1]) / (generated - self._seen[0])
                backward.share = min(MAX_SHARE, max(MIN_SHARE, rate))
                forward.share = 1.0 - backward.share
            self._seen = (generated, raised)
        return code

    def lower_bound(self) -> float | None:
        """The forward search's bound."""
        return self.members[1].engine.lower_bound()

    def cap_costs(self, cost: float) -> None:
        """The forward search's cap (:meth:`BestFirstSearch.cap_costs`)."""
        self.members[1].engine.cap_costs(cost)

    def report(self) -> dict:
        """The portfolio's figures, and the backward search's last share."""
        out = super().report()
        out["perimeter_share"] = round(self.members[0].share, 3)
        return out


def beside_backward_search(puzzle, engine, label: str, limits):
    """``engine`` (A*) with the puzzle's backward search beside it, or
    ``engine`` itself when the puzzle has none."""
    backward = puzzle.backward_search(limits)
    if backward is None:
        return engine
    engine.requeue_goals = True
    return BidirectionalSearch(puzzle, backward, engine, label, limits.memory_bytes(),
                               threads=limits.thread_count())
