"""The Python loop that runs an engine in chunks.

Between chunks it checks the time, node and memory limits and Ctrl-C, grows
the engine's arrays when asked (refusing growth past the memory limit, so a
search stops with its figures instead of being killed), draws a tqdm
progress line on stderr for searches longer than a couple of seconds, and
finally rebuilds and *replays* the solution with the puzzle's independent
checker before anything is reported.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

from ..compile_time import compile_seconds_spent
from ..errors import IllegalMoveError, InternalError
from ..interrupts import sigint_handler, take_interrupt_note
from ..machine import resident_bytes
from ..puzzle import Puzzle
from .common import (EXHAUSTED, EXPANDED, F_BOUND, F_LAST, GENERATED, NODES,
                     RUNNING, SOLVED, STALLED, expand_into, move_between, next_budget,
                     successor_buffers)
from .result import Limits, SearchResult, Status

#: seconds before a progress line appears
PROGRESS_DELAY = 2.0
#: target wall time of one chunk (the granularity of limits and Ctrl-C)
CHUNK_SECONDS = 0.1


@contextmanager
def _compile_notice(enabled: bool):
    """Say on stderr that numba is compiling when loading the kernels takes
    longer than :data:`PROGRESS_DELAY` (a first run: minutes for Sokoban's
    ``--algo fess``), and how long it took; a cached load says nothing."""
    if not enabled:
        yield
        return
    started = time.perf_counter()
    fired = threading.Event()

    def announce() -> None:
        fired.set()
        print("pdbsearch: compiling the search kernels (first run only: numba caches "
              "them) ...", file=sys.stderr, flush=True)

    timer = threading.Timer(PROGRESS_DELAY, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if fired.is_set():
            print(f"pdbsearch: compiled in {time.perf_counter() - started:.0f} s",
                  file=sys.stderr, flush=True)


class _Interrupt:
    """Catches Ctrl-C during a search so it can return its figures."""

    def __init__(self):
        self.requested = False

    def note(self, signum, frame) -> None:
        """The SIGINT handler: stop at the end of the current chunk."""
        self.requested = True


class _Progress:
    """A tqdm line on stderr, opened only once a search runs long enough."""

    def __init__(self, enabled: bool, label: str):
        self.enabled = enabled
        self.label = label
        self.bar = None

    def update(self, elapsed: float, engine) -> None:
        if not self.enabled or elapsed < PROGRESS_DELAY:
            return
        expanded = int(engine.stats[EXPANDED])
        if self.bar is None:
            from tqdm import tqdm
            # Start at the nodes done so far, so the rate shown is honest.
            self.bar = tqdm(desc=engine.name, unit=" nodes", file=sys.stderr, initial=expanded,
                            dynamic_ncols=True, leave=False)
        self.bar.update(expanded - self.bar.n)
        value = engine.fstats[F_BOUND] if self.label == "bound" else engine.fstats[F_LAST]
        self.bar.set_postfix({self.label: f"{value:g}", "stored": int(engine.stats[NODES])},
                             refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _bound_reached(engine, limits: Limits) -> bool:
    """True when the engine's lower bound has reached ``limits.cost_below``
    (a solution of that cost is known: nothing cheaper is left)."""
    return limits.cost_below is not None and \
        (engine.lower_bound() or 0.0) >= limits.cost_below


def run_engine(puzzle: Puzzle, engine, *, algo: str, weight: float,
               bound: float | None, limits: Limits, progress: bool) -> SearchResult:
    """Run ``engine`` to the end or to a limit, and build the result.

    ``bound`` is the guarantee a solution carries (1.0 optimal, α, or None).
    """
    result = SearchResult(status=Status.LIMIT, algo=algo, weight=weight,
                          domain=puzzle.domain, metric=puzzle.metric,
                          heuristic=puzzle.heuristic_name)
    root = puzzle.initial_key()

    # The first calls compile the kernels (or load them from the cache):
    # time them apart, with a zero budget that does no search work, and
    # load the growth and path kernels too, so no search time is compile.
    t0 = time.perf_counter()
    with _compile_notice(progress):
        engine.load_kernels()
        expand_into(puzzle.params, root, *successor_buffers(puzzle))  # rebuilds the path
    result.compile_seconds = time.perf_counter() - t0

    # The memory limit is the whole process's: the tables may grow into
    # what the interpreter, numba and the pattern databases leave of it.
    memory_limit = limits.memory_bytes() - resident_bytes()
    bar = _Progress(progress, engine.progress_label)
    # Start small: one expansion can cost milliseconds (a large Sokoban
    # level), and a limit is only checked between chunks.
    budget = 16
    stop_reason = None
    start = time.perf_counter()
    cpu_start = time.process_time()
    # A kernel compiled inside the search (one its load_kernels missed)
    # is not search time either: the time limit leaves it out.
    compiled_at_start = compile_seconds_spent()
    peak_bytes = engine.nbytes()
    interrupt = _Interrupt()
    # An engine with helper threads (the fess portfolio) stops them however
    # the loop ends: a limit, Ctrl-C or an exception.
    stop_helpers = getattr(engine, "stop", None)
    cap_costs = getattr(engine, "cap_costs", None)
    if limits.cost_below is not None and cap_costs is not None:
        cap_costs(limits.cost_below)
    # An engine with helper threads holds the node limit across them too.
    limit_nodes = getattr(engine, "limit_nodes", None)
    if limit_nodes is not None:
        limit_nodes(limits.nodes)
    with sigint_handler(interrupt.note):
        try:
            while True:
                if _bound_reached(engine, limits):     # at the start: its first bound
                    code, stop_reason = RUNNING, "bound"
                    break
                chunk_budget = budget
                if limits.nodes is not None:
                    chunk_budget = min(budget, limits.nodes - int(engine.stats[EXPANDED]))
                    if chunk_budget <= 0:
                        code, stop_reason = RUNNING, "nodes"
                        break
                t_chunk = time.perf_counter()
                code = engine.run(chunk_budget)
                now = time.perf_counter()
                if code == RUNNING:
                    budget = next_budget(budget, now - t_chunk, CHUNK_SECONDS)
                bar.update(now - start, engine)
                if code == SOLVED:
                    break
                if _bound_reached(engine, limits):     # a proof, before any limit
                    # (also when an A* that left out the nodes at or past the
                    # known cost has run out of the others)
                    code, stop_reason = RUNNING, "bound"
                    break
                if code == EXHAUSTED:
                    break
                if code == STALLED:
                    stop_reason = "incomplete"
                    break
                if interrupt.requested or take_interrupt_note():   # (or one numba lost)
                    stop_reason = "interrupted"
                    break
                if limits.time_seconds is not None and \
                        now - start - (compile_seconds_spent() - compiled_at_start) \
                        >= limits.time_seconds:
                    stop_reason = "time"
                    break
                if limits.cpu_seconds is not None and \
                        time.process_time() - cpu_start >= limits.cpu_seconds:
                    stop_reason = "time"
                    break
                if code != RUNNING:  # a request for more room
                    # Growth doubles the arrays it grows, the old ones live until
                    # the new are filled: the peak is the grown size plus the
                    # arrays it replaces, 2 x grown - now.
                    if 2 * engine.grow_nbytes(code) - engine.nbytes() > memory_limit:
                        stop_reason = "memory"
                        break
                    engine.grow(code)
                    peak_bytes = max(peak_bytes, engine.nbytes())
        finally:
            if stop_helpers is not None:
                stop_helpers()
    bar.close()
    compiled = compile_seconds_spent() - compiled_at_start
    seconds = time.perf_counter() - start - compiled
    result.compile_seconds += compiled
    result.cpu_seconds = time.process_time() - cpu_start
    result.memory_bytes = max(peak_bytes, engine.nbytes())
    return _finish(puzzle, engine, result, code, bound, seconds, stop_reason)


def solved_at_start(puzzle: Puzzle, *, algo: str, weight: float,
                    bound: float | None) -> SearchResult:
    """The result of a puzzle whose start is a goal: no move, no search,
    no table built (the independent checker still replays the empty
    solution)."""
    steps, cost = replayed(puzzle, [], algo)
    result = SearchResult(status=Status.SOLVED, algo=algo, weight=weight, domain=puzzle.domain,
                          metric=puzzle.metric, heuristic=puzzle.heuristic_name, steps=steps,
                          cost=cost, bound=bound, path_keys=[puzzle.initial_key()])
    if bound == 1.0:
        result.lower_bound = float(cost)
    result.extra = puzzle.result_fields(result)
    return result


def replayed(puzzle: Puzzle, codes, algo: str):
    """``(steps, cost)`` of a solution replayed by the puzzle's independent
    checker; a failure is our bug, never the user's input."""
    try:
        return puzzle.check_solution(codes)
    except IllegalMoveError as exc:
        raise InternalError(f"the solution {algo} found does not replay: {exc}") from exc


def _finish(puzzle, engine, result, code, bound, seconds, stop_reason) -> SearchResult:
    result.seconds = seconds
    result.expanded = int(engine.stats[EXPANDED])
    result.generated = int(engine.stats[GENERATED])
    result.stored = int(engine.stats[NODES])
    result.memory_bytes = max(result.memory_bytes, engine.nbytes())
    if code == SOLVED:
        keys = engine.solution_keys()
        if hasattr(engine, "solution_codes"):
            # Macro edges (FESS): the engine unrolls them into the puzzle's moves.
            codes = engine.solution_codes(keys)
        else:
            codes = [move_between(puzzle, a, b)[0] for a, b in zip(keys, keys[1:])]
        keys, codes = puzzle.complete_solution(keys, codes)
        steps, cost = replayed(puzzle, codes, result.algo)
        result.status = Status.SOLVED
        result.steps = steps
        result.cost = cost
        result.path_keys = keys
        result.bound = bound
        if bound == 1.0:
            result.lower_bound = float(cost)
    elif code == EXHAUSTED:
        result.status = Status.UNSOLVABLE
    else:
        result.status = Status.LIMIT
        result.stop_reason = stop_reason
        result.lower_bound = engine.lower_bound()
    result.extra = puzzle.result_fields(result)
    report = engine.report() if hasattr(engine, "report") else None
    if report:
        result.extra[engine.name] = report
    return result
