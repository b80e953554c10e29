"""A* (or IDA*) given an upper bound: a solution found fast, proved optimal
by the search's lower bound.

A* proves its solution optimal by expanding every position whose f is
below the optimum, and then it still has to *find* a goal among the
positions whose f equals it: on large Sokoban levels that last layer holds
millions of positions, and A* often runs out of time there with its lower
bound already at the optimum.  A solution known from elsewhere ends that
work: when A*'s lower bound (the largest f it has taken, a bound on the
optimum with any admissible heuristic) reaches the known solution's cost,
that solution is optimal (``Limits.cost_below``, the shortening's windows
use the same stop).

So where the puzzle names a fast solver (:meth:`~pdbsearch.puzzle.Puzzle.incumbent_finder`:
Sokoban's ``--algo fess``, whose solutions are then shortened), A*
(:func:`optimal_with_incumbent`; IDA* the same way, its threshold as the
lower bound):

1. runs alone for :data:`FIRST_SHARE` of the time limit: what it solves
   there it solves as before;
2. lets the fast solver look for a solution, on a fresh copy of the puzzle
   (its portfolio has tables of its own), for at most :data:`FINDER_SHARE`
   of the limit; the solution is replayed on A*'s puzzle, and kept as the
   *incumbent*.  A shortening that proves it optimal (a whole-solution A*
   window, :mod:`.shorten`) ends the search there;
3. goes on where it stopped, until it finds a solution (the optimum; it
   may equal the incumbent's cost) or its lower bound reaches the
   incumbent's cost (the incumbent is the optimum) or a limit stops it;
4. where the puzzle names a *capped finder* (:meth:`~pdbsearch.puzzle.Puzzle.capped_finder`:
   Sokoban's FESS engine alone, capped, :meth:`.fess.FessSearch.cap_costs`),
   each time A* has run :data:`RETRY_SHARE` more of the limit with its
   lower bound ``L`` still below the incumbent's cost and above the bound
   last tried, asks it for a solution of cost at most ``L`` (for at most
   :data:`FINDER_SHARE`).  One it finds is optimal, A*'s lower bound
   proves it; one cheaper than the incumbent and not proved becomes the
   incumbent; A* goes on either way.  Why:
   with its bound at the optimum, A* still has to find a goal among the
   positions of f = ``L``, which its order of expansion (deepest first)
   may take long to reach (Revenge 93: bound 62, the optimum, in 4.5 s,
   then 40 s on that layer when the fast solver's solution cost 64 or 66;
   docs/benchmarks.md).

Every solution reported as the search's is still optimal and replayed.  A
run a limit stops reports its lower bound and keeps the incumbent apart:
its cost in ``extra["incumbent"]`` (an upper bound on the optimum), its
moves there too and in ``SearchResult.incumbent_steps``, so that nothing
found is lost; its status stays the limit's, and the command line prints
the incumbent as a solution not proved optimal.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

from ..errors import InternalError
from ..puzzle import Puzzle
from .driver import replayed, run_engine
from .result import Limits, SearchResult, Status

#: Share of the time limit A* runs alone before the fast solver is asked
#: (0: the fast solver is asked before A* expands anything).
FIRST_SHARE = 0.2
#: Share of the time limit the fast solver (and its shortening) may take.
FINDER_SHARE = 0.1
#: Share of the time limit A* runs after the fast solver before the capped
#: finder is asked (step 4 of the module doc).
RETRY_SHARE = 0.2
#: Without a time limit: seconds A* runs alone first, and seconds the fast
#: solver may take.
UNLIMITED_SECONDS = 10.0


def _share(limits: Limits, fraction: float) -> Limits:
    """``limits`` with its time limits cut to ``fraction`` of themselves
    (:data:`UNLIMITED_SECONDS` of wall time when it has none)."""
    seconds = None if limits.time_seconds is None else limits.time_seconds * fraction
    cpu = None if limits.cpu_seconds is None else limits.cpu_seconds * fraction
    if seconds is None and cpu is None:
        seconds = UNLIMITED_SECONDS
    return replace(limits, time_seconds=seconds, cpu_seconds=cpu)


def _left(limits: Limits, seconds: float, cpu_seconds: float) -> Limits:
    """``limits`` less the time already spent."""
    return replace(
        limits,
        time_seconds=None if limits.time_seconds is None
        else max(0.0, limits.time_seconds - seconds),
        cpu_seconds=None if limits.cpu_seconds is None
        else max(0.0, limits.cpu_seconds - cpu_seconds))


def _find_incumbent(find: Callable[[Limits], SearchResult], limits: Limits,
                    spent: SearchResult, cost_below: float | None = None
                    ) -> tuple[SearchResult, float, float]:
    """Run the fast solver (``find``, given its limits: a solution cheaper
    than ``cost_below`` if given) within its share of what is left;
    returns its result, and the wall and CPU seconds it took (compiling
    excluded)."""
    time_left = _within(_left(limits, spent.seconds, spent.cpu_seconds),
                        _share(limits, FINDER_SHARE))
    own = Limits(time_seconds=time_left.time_seconds, cpu_seconds=time_left.cpu_seconds,
                 memory_mb=limits.memory_mb, threads=limits.threads,
                 cost_below=cost_below)
    t0, c0 = time.perf_counter(), time.process_time()
    found = find(own)
    compiled = found.compile_seconds
    return (found, max(0.0, time.perf_counter() - t0 - compiled),
            max(0.0, time.process_time() - c0 - compiled))


def _smaller(a: float | None, b: float | None) -> float | None:
    """The smaller of two limits (None: no limit)."""
    if a is None:
        return b
    return a if b is None else min(a, b)


def optimal_with_incumbent(puzzle: Puzzle, engine, algo: str, finder: str,
                           find: Callable[[Limits], SearchResult], *,
                           limits: Limits, progress: bool,
                           find_capped: Callable[[Limits], SearchResult] | None = None
                           ) -> SearchResult:
    """An optimal search (``engine`` of ``algo``: A* or IDA*) helped by the
    solution the fast solver ``finder`` finds (``find(limits)`` runs it on
    a fresh copy of the puzzle, its solution shortened), and by the capped
    finder (``find_capped(limits)``, ``limits.cost_below`` its cap) when
    given, as the module doc says."""
    run = dict(algo=algo, weight=1.0, bound=1.0, progress=progress)
    if FIRST_SHARE > 0:
        first = run_engine(puzzle, engine, limits=_share(limits, FIRST_SHARE), **run)
        if first.status is not Status.LIMIT or first.stop_reason != "time":
            return first
    else:
        # The fast solver first: the search's kernels loaded, no expansion yet.
        first = run_engine(puzzle, engine, limits=replace(limits, nodes=0), **run)
    found, seconds, cpu = _find_incumbent(find, limits, first)
    report = {"algo": finder, "status": found.status.value, "seconds": round(seconds, 6)}
    if found.status is Status.UNSOLVABLE:
        first.status, first.stop_reason, first.lower_bound = Status.UNSOLVABLE, None, None
        first.note = f"{finder} proved the puzzle unsolvable"
        return _with_finder(first, found, seconds, cpu, report)
    if found.status is not Status.SOLVED:
        if found.stop_reason == "interrupted":
            first.stop_reason = "interrupted"
            return _with_finder(first, found, seconds, cpu, report)
        rest = run_engine(puzzle, engine, limits=_left(limits, first.seconds + seconds,
                                                       first.cpu_seconds + cpu), **run)
        return _with_finder(_after(first, rest), found, seconds, cpu, report)
    steps, cost = replayed(puzzle, [s.code for s in found.steps], finder)
    report["cost"] = cost
    if found.optimal:
        report["proved_by"] = "shortening"
        report["winner"] = found.winner or finder
        return _with_finder(_solved_by(first, puzzle, steps, cost), found, seconds, cpu,
                            report)
    first = _with_finder(first, found, seconds, cpu, report)
    if find_capped is not None:
        first, steps, cost = _retry_capped(puzzle, engine, algo, find_capped, limits, run,
                                           first, steps, cost, report)
    rest = first
    if first.status is Status.LIMIT and first.stop_reason == "time":
        rest = _after(first, run_engine(
            puzzle, engine, limits=replace(_left(limits, first.seconds, first.cpu_seconds),
                                           cost_below=cost), **run))
    rest.extra["incumbent"] = report
    if rest.status is Status.UNSOLVABLE:
        raise InternalError(f"{algo} exhausted the puzzle, yet the solution {finder} found "
                            f"replays ({cost})")
    if rest.status is Status.LIMIT and rest.stop_reason == "bound":
        report["proved_by"] = f"{algo} lower bound"
        report["winner"] = found.winner or finder   # whose solution is reported
        rest = _solved_by(rest, puzzle, steps, cost)
    elif rest.status is not Status.SOLVED:
        # Stopped before a proof: the solution found is kept, not proved.
        rest.incumbent_steps = steps
        report["moves"] = [s.text for s in steps]
    return rest


def _retry_capped(puzzle: Puzzle, engine, algo: str, find_capped, limits: Limits, run: dict,
                  first: SearchResult, steps, cost: int, report: dict):
    """Step 4 of the module doc: A* for :data:`RETRY_SHARE` of the limit
    at a time, and after each, if its lower bound is still below ``cost``
    and above the one last tried, the capped finder, until the time is
    out.  Returns the search's result so far (solved when the capped
    finder's solution is proved, or however A* ended), and the incumbent
    (moves, cost)."""
    tried = None
    while True:
        left = _left(limits, first.seconds, first.cpu_seconds)
        if _spent(left):
            return first, steps, cost
        first = _after(first, run_engine(
            puzzle, engine, limits=replace(_within(left, _share(limits, RETRY_SHARE)),
                                           cost_below=cost), **run))
        bound = first.lower_bound
        if first.status is not Status.LIMIT or first.stop_reason != "time" or \
                bound is None or bound >= cost:
            return first, steps, cost
        if tried is not None and bound <= tried:
            continue       # nothing new to look for
        tried = bound
        # Costs are whole numbers: below bound + 1 is at most the bound.
        found, seconds, cpu = _find_incumbent(find_capped, limits, first,
                                              cost_below=bound + 1)
        report.setdefault("capped", []).append(
            {"algo": found.algo, "bound": bound, "status": found.status.value,
             "seconds": round(seconds, 6)})
        first = _add_costs(first, found, seconds, cpu)
        if found.stop_reason == "interrupted":
            first.stop_reason = "interrupted"     # Ctrl-C in its turn stops the search
            return first, steps, cost
        if found.status is not Status.SOLVED:
            continue
        found_steps, found_cost = replayed(puzzle, [s.code for s in found.steps],
                                           f"{found.algo} capped")
        report["capped"][-1]["cost"] = found_cost
        if found_cost >= cost:
            continue
        steps, cost = found_steps, found_cost
        report["cost"] = cost
        if cost <= bound:
            # No solution is cheaper than A*'s lower bound: this one is optimal.
            report["proved_by"] = f"{algo} lower bound"
            report["winner"] = f"{found.algo} capped"
            return _solved_by(first, puzzle, steps, cost), steps, cost


def _spent(left: Limits) -> bool:
    """True when no time is left (of a limit that has some)."""
    return any(t is not None and t <= 0 for t in (left.time_seconds, left.cpu_seconds))


def _within(limits: Limits, cap: Limits) -> Limits:
    """``limits`` with each time limit cut to ``cap``'s where that is smaller."""
    return replace(limits, time_seconds=_smaller(limits.time_seconds, cap.time_seconds),
                   cpu_seconds=_smaller(limits.cpu_seconds, cap.cpu_seconds))


def _after(first: SearchResult, rest: SearchResult) -> SearchResult:
    """The result of the search's second run, counting the first's time
    (its node counts already include the first's: the engine went on)."""
    return _add_costs(rest, first, first.seconds, first.cpu_seconds)


def _solved_by(result: SearchResult, puzzle: Puzzle, steps, cost: int) -> SearchResult:
    """``result`` made the incumbent's proof: solved, optimal, its moves
    (already replayed on ``puzzle``)."""
    result.status = Status.SOLVED
    result.stop_reason = None
    result.steps = steps
    result.cost = cost
    result.bound = 1.0
    result.lower_bound = float(cost)
    result.path_keys = puzzle.solution_path(steps)
    result.extra.update(puzzle.result_fields(result))
    return result


def _with_finder(result: SearchResult, found: SearchResult, seconds: float, cpu: float,
                 report: dict) -> SearchResult:
    """The finder's time and report added to ``result``."""
    result.extra["incumbent"] = report
    return _add_costs(result, found, seconds, cpu)


def _add_costs(result: SearchResult, other: SearchResult, seconds: float,
               cpu: float) -> SearchResult:
    """``result`` with the time of another run added (``seconds`` and
    ``cpu`` of its work, its compiling) and the larger of their memory."""
    result.seconds += seconds
    result.cpu_seconds += cpu
    result.compile_seconds += other.compile_seconds
    result.memory_bytes = max(result.memory_bytes, other.memory_bytes)
    return result
