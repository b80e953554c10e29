"""Search engines, written once for every puzzle.

:data:`ALGORITHMS` is the registry that feeds the command line and the
parametrised tests; :func:`choose_algorithm` is the one place that decides
which algorithm and weight a request means; :func:`solve` runs one of them
on a puzzle.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable

from ..compile_time import compile_seconds_spent
from ..errors import PdbsearchError, ResourceLimit
from ..puzzle import Puzzle
from .bestfirst import BestFirstSearch
from .bfs import BreadthFirstSearch
from .bidirectional import beside_backward_search
from .driver import run_engine, solved_at_start
from .idastar import IterativeDeepeningSearch
from .incumbent import optimal_with_incumbent
from .result import Limits, SearchResult, Status
from .shorten import DEFAULT_DEPTH as DEFAULT_SHORTCUT_DEPTH
from .shorten import load_kernels as load_shortening_kernels
from .shorten import shorten_result, shortening_deadline

__all__ = ["ALGORITHMS", "DEFAULT_SHORTCUT_DEPTH", "Algorithm", "Limits", "SearchResult",
           "Status", "choose_algorithm", "explore", "member_label", "solve", "warm_up"]


@dataclass(frozen=True)
class Algorithm:
    """A registered search algorithm."""

    name: str
    summary: str
    make: Callable[[Puzzle, float, Limits], object]
    uses_weight: bool = False
    needs_unit_costs: bool = False
    #: False when a solution carries no bound whatever the heuristic
    bounded: bool = True
    #: True: runs beside the puzzle's backward search when it has one
    #: (:mod:`.bidirectional`; the bound holds)
    beside_backward: bool = False
    #: True: an optimal search that takes an upper bound from the puzzle's
    #: fast solver when it has one (:mod:`.incumbent`)
    with_incumbent: bool = False

    def guarantee(self, puzzle: Puzzle, weight: float) -> float | None:
        """The bound a solution of this algorithm carries on ``puzzle``."""
        if self.name == "bfs":
            return 1.0
        if not self.bounded or not puzzle.heuristic_admissible:
            return None
        return float(weight) if self.uses_weight else 1.0

    def incumbent_finder(self, puzzle: Puzzle, weight: float):
        """``(algo, puzzle copy)`` of the fast solver this search asks for
        an upper bound on ``puzzle`` (:mod:`.incumbent`), or None."""
        if not self.with_incumbent or self.guarantee(puzzle, weight) != 1.0:
            return None
        return puzzle.incumbent_finder()


ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in [
    Algorithm("bfs", "breadth-first search (optimal for unit costs, no heuristic)",
              lambda p, w, lim: BreadthFirstSearch(p), needs_unit_costs=True),
    Algorithm("astar", "A* (optimal with an admissible heuristic; on Sokoban, a solution "
                       "FESS finds bounds the optimum from above, and A* proves it "
                       "optimal once its lower bound reaches it)",
              lambda p, w, lim: BestFirstSearch(p, 1.0), beside_backward=True,
              with_incumbent=True),
    Algorithm("wastar", "weighted A*, f = g + α·h (cost <= α × optimal)",
              lambda p, w, lim: BestFirstSearch(p, w), uses_weight=True),
    Algorithm("idastar", "IDA* with a transposition table (optimal, little memory; proves "
                         "a board unsolvable once its table holds every reachable state; "
                         "takes FESS's solution as A* does)",
              lambda p, w, lim: IterativeDeepeningSearch(p, lim.memory_bytes()),
              with_incumbent=True),
    Algorithm("greedy", "greedy best-first, f = h (fast, no guarantee)",
              lambda p, w, lim: BestFirstSearch(p, 1.0, greedy=True), bounded=False),
    Algorithm("fess", "feature space search over macro moves (Festival's FESS) with its "
                      "portfolio (Sokoban: weighted A* and greedy alongside): finds "
                      "solutions of hard levels fast, no guarantee",
              lambda p, w, lim: _make_fess(p, lim), bounded=False),
    Algorithm("fess-only", "the FESS engine alone, without its portfolio",
              lambda p, w, lim: _make_fess(p, lim, alone=True), bounded=False),
]}


def _make_fess(puzzle: Puzzle, limits: Limits, alone: bool = False):
    """FESS, in a portfolio with the engines the puzzle names
    (``puzzle.fess_portfolio()``: ``[(algorithm, weight, share), ...]``, each
    with an optional fourth term, its share after its opening,
    "fess-only" for the FESS engine itself, a name that is no algorithm for
    an engine of the domain's, ``puzzle.portfolio_engine(name, limits)``),
    or ``alone``; with more than one thread (``limits.threads``), the
    members that can detach run in threads of their own.  Imported here:
    the other algorithms need none of it (a shorter start of every command)."""
    from .fess import FessSearch
    from .portfolio import Member, PortfolioSearch
    shares = [] if alone else getattr(puzzle, "fess_portfolio", lambda: [])()
    if not shares:
        return FessSearch(puzzle, limits)
    # In order: a domain's own member (Sokoban's perimeter) may set the
    # params that the engines after it read.
    members = [Member(member_label(name, weight),
                      ALGORITHMS[name].make(puzzle, weight, limits) if name in ALGORITHMS
                      else puzzle.portfolio_engine(name, limits), share,
                      late_share=late[0] if late else None)
               for name, weight, share, *late in shares]
    # A member that follows others (the relay, :mod:`.relay`) is told which.
    engines = {m.label: m.engine for m in members}
    for m in members:
        follow = getattr(m.engine, "follow", None)
        if follow is not None:
            follow(engines)
    return PortfolioSearch(puzzle, members, limits.memory_bytes(), "fess",
                           threads=limits.thread_count())


def member_label(algorithm: str, weight: float) -> str:
    """How a portfolio member is named in reports: the algorithm, and its
    weight when it has one (``wastar w=3``)."""
    return algorithm if weight == 1.0 else f"{algorithm} w={weight:g}"


#: The algorithm when none is named: plain A*, or weighted A* with a weight.
DEFAULT_ALGORITHM = "astar"


def choose_algorithm(algo: str | None = None, weight: float | None = None) -> tuple[str, float]:
    """``(algorithm, weight)`` for a request: the one place that decides.

    * No algorithm: A* with weight 1, weighted A* with a weight above 1.
    * A weight must be a number >= 1; an algorithm that ignores the weight
      refuses one above 1 (:class:`PdbsearchError`) rather than silently
      running unweighted.
    """
    if weight is None:
        weight = 1.0
    try:
        weight = float(weight)
    except (TypeError, ValueError):
        raise PdbsearchError(f"the weight must be a number >= 1, not {weight!r}") from None
    if not weight >= 1.0 or weight == float("inf"):
        raise PdbsearchError(f"the weight must be a finite number >= 1, not {weight:g}")
    if algo is None:
        return ("wastar" if weight > 1.0 else DEFAULT_ALGORITHM), weight
    if algo not in ALGORITHMS:
        raise PdbsearchError(f"unknown algorithm {algo!r}; choose from {', '.join(ALGORITHMS)}")
    if weight != 1.0 and not ALGORITHMS[algo].uses_weight:
        raise PdbsearchError(f"{algo} does not use a weight (got {weight:g}); give the weight "
                             f"alone, or with wastar, for weighted A*")
    return algo, weight


def solve(puzzle: Puzzle, algo: str | None = None, weight: float | None = None,
          limits: Limits | None = None, progress: bool = False,
          shorten: int = DEFAULT_SHORTCUT_DEPTH) -> SearchResult:
    """Solve ``puzzle``; ``algo`` and ``weight`` as :func:`choose_algorithm`
    decides; see :class:`SearchResult`.

    A solution not proven optimal is then shortened (:mod:`.shorten`:
    stretches of its path re-solved by A* where the domain can pose them,
    then shortcuts of at most ``shorten`` moves between its positions; 0:
    kept as found), for as long again as the search took (at least 1 s)
    and within the time limit; the result's ``extra["shortened"]`` says
    what that did.
    """
    if shorten < 0:
        raise PdbsearchError(f"the shortcut depth must be 0 (off) or more moves, not {shorten}")
    algo, weight = choose_algorithm(algo, weight)
    spec = ALGORITHMS[algo]
    if spec.needs_unit_costs and not puzzle.make_unit_costs():
        raise PdbsearchError(f"{algo} is optimal only when every move costs 1; "
                             f"use astar (with heuristic zero for Dijkstra)")
    puzzle.check_algorithm(algo)
    limits = limits or Limits()
    if puzzle.start_is_goal():
        return solved_at_start(puzzle, algo=algo, weight=weight,
                               bound=spec.guarantee(puzzle, weight))
    started = time.perf_counter()
    compiled_before = compile_seconds_spent()
    try:
        prepare(puzzle, limits, started)
    except ResourceLimit as exc:
        return SearchResult(status=Status.LIMIT, algo=algo, weight=weight, domain=puzzle.domain,
                            metric=puzzle.metric, heuristic=puzzle.heuristic_name,
                            stop_reason=exc.reason, note=str(exc),
                            setup_seconds=time.perf_counter() - started)
    setup_seconds = time.perf_counter() - started
    # Compiling the table builder is not work the limit covers (as for the
    # engine's kernels, timed apart by the driver).
    setup_compile_seconds = compile_seconds_spent() - compiled_before
    if limits.time_seconds is not None:
        # the time limit covers the whole solve: what the tables took is spent
        spent = setup_seconds - setup_compile_seconds
        limits = replace(limits, time_seconds=max(0.0, limits.time_seconds - spent))
    puzzle.tune(algo, weight)
    engine = spec.make(puzzle, weight, limits)
    bound = spec.guarantee(puzzle, weight)
    if spec.beside_backward and bound is not None:
        engine = beside_backward_search(puzzle, engine, member_label(algo, weight), limits)
    finder = spec.incumbent_finder(puzzle, weight)
    if finder is not None:
        fast, copy = finder
        capped = puzzle.capped_finder()
        result = optimal_with_incumbent(
            puzzle, engine, algo, fast, lambda own: solve(copy, fast, limits=own, shorten=shorten),
            limits=limits, progress=progress,
            find_capped=None if capped is None else
            lambda own: solve(copy, capped, limits=own, shorten=0))
    else:
        result = run_engine(puzzle, engine, algo=algo, weight=weight, bound=bound,
                            limits=limits, progress=progress)
    result.setup_seconds = setup_seconds
    result.compile_seconds += setup_compile_seconds
    if shorten > 0 and result.status is Status.SOLVED and result.bound != 1.0:
        shorten_result(puzzle, result, shorten, shortening_deadline(result, limits.time_seconds))
    return result


def warm_up(puzzle: Puzzle, algo: str | None = None, weight: float | None = None,
            shorten: int = DEFAULT_SHORTCUT_DEPTH) -> SearchResult:
    """Compile (or load) every kernel a :func:`solve` of ``puzzle`` with
    these settings calls, in this process (a run of levels does it before
    its children fork, so that none loads them again): a search of one
    node, then the shortening's kernels when its solution would be
    shortened, and those of A*'s fast solver (:mod:`.incumbent`) when it
    has one: compiled in a worker, they would count against the job's
    deadline, which a cold cache outlasts.  Returns the one-node search's
    result."""
    algo, weight = choose_algorithm(algo, weight)
    result = solve(puzzle, algo, weight, Limits(nodes=1), shorten=shorten)
    if result.stop_reason == "interrupted":
        return result
    spec = ALGORITHMS[algo]
    optimal = spec.guarantee(puzzle, weight) == 1.0
    if shorten > 0 and not optimal:
        load_shortening_kernels(puzzle, shorten)
    finder = spec.incumbent_finder(puzzle, weight)
    if finder is not None:
        fast, copy = finder
        warm_up(copy, fast, shorten=shorten)
    return result


def prepare(puzzle: Puzzle, limits: Limits, started: float) -> None:
    """Obtain the puzzle's tables within the limits; raises ResourceLimit
    when they stop it."""
    deadline = None if limits.time_seconds is None else started + limits.time_seconds
    puzzle.prepare(deadline, limits.memory_bytes())


def explore(puzzle: Puzzle, limits: Limits | None = None,
            progress: bool = False) -> SearchResult:
    """Enumerate every state reachable from the start by BFS.

    ``result.stored`` is the number of reachable states; ``status`` is
    :attr:`Status.UNSOLVABLE` (meaning "exhausted") unless a limit stopped it.
    """
    engine = BreadthFirstSearch(puzzle, stop_at_goal=False)
    return run_engine(puzzle, engine, algo="bfs", weight=1.0, bound=None,
                      limits=limits or Limits(), progress=progress)
