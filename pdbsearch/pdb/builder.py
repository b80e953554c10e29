"""The generic breadth-first PDB builder.

An abstraction registers, for its NamedTuple params class:

``size(params) -> int``                     number of abstract states
``is_goal(params, rank) -> bool``            abstract goal test
``neighbours(params, rank, out, work) -> int``
                                             abstract states one move *before*
                                             ``rank`` (its predecessors: the
                                             moves themselves when they are
                                             reversible, the pulls for Sokoban),
                                             so BFS from the goals gives the
                                             distance *to* them; ``work``
                                             is an int64 scratch array, so the
                                             hot loop allocates nothing

The builder fills a table of one byte per entry: the exact abstract distance
(capped at :data:`MAX_DISTANCE`, which keeps it a lower bound) or
:data:`UNREACHABLE` for states from which no abstract goal can be reached;
a real state that maps there is dead.  Each layer is found by scanning the
table for the previous layer (no queue: memory is the table alone), one
jitted call a layer, so tqdm can show progress layer by layer.
"""

from __future__ import annotations

import time
from typing import Callable

import numba as nb
import numpy as np
from numba.extending import overload

from ..errors import ResourceLimit
from ..interrupts import take_interrupt_note
from .store import UNREACHABLE

MAX_DISTANCE = 254

_ABSTRACTIONS: dict[type, dict[str, Callable]] = {}


def register_abstraction(params_class: type, *, is_goal: Callable,
                         neighbours: Callable) -> None:
    """Register the jitted kernels of an abstraction."""
    _ABSTRACTIONS[params_class] = {"is_goal": is_goal, "neighbours": neighbours}


def _kernel(params_type, name):
    cls = getattr(params_type, "instance_class", None)
    if cls not in _ABSTRACTIONS:
        raise TypeError(f"no abstraction registered for {params_type}")
    return _ABSTRACTIONS[cls][name]


def abstract_is_goal(params, rank):
    """Abstract goal test (dispatched inside numba)."""
    raise NotImplementedError


def abstract_neighbours(params, rank, out, work):
    """Abstract neighbours (dispatched inside numba)."""
    raise NotImplementedError


@overload(abstract_is_goal, jit_options={"cache": True})
def _ov_goal(params, rank):
    fn = _kernel(params, "is_goal")
    return lambda params, rank: fn(params, rank)


@overload(abstract_neighbours, jit_options={"cache": True})
def _ov_neighbours(params, rank, out, work):
    fn = _kernel(params, "neighbours")
    return lambda params, rank, out, work: fn(params, rank, out, work)


@nb.njit(cache=True)
def seed_goals(params, table):
    """Set every abstract goal to distance 0; returns how many there are."""
    count = 0
    for r in range(table.shape[0]):
        if abstract_is_goal(params, r):
            table[r] = 0
            count += 1
    return count


@nb.njit(cache=True, inline="always")
def _sweep(params, table, depth, value, lo, hi, out, work):
    """Mark the unvisited neighbours of the layer-``depth`` entries in
    ``lo .. hi - 1`` with ``value``; returns how many were marked."""
    count = 0
    for r in range(lo, hi):
        if table[r] != depth:
            continue
        n = abstract_neighbours(params, r, out, work)
        for i in range(n):
            s = out[i]
            if table[s] == UNREACHABLE:
                table[s] = value
                count += 1
    return count


@nb.njit(cache=True, parallel=True)
def next_layer(params, table, depth, lo, hi, out_size, work_size, n_chunks):
    """Mark the unvisited neighbours of the layer-``depth`` entries in
    ``lo .. hi - 1``; returns their count.

    The range is split into chunks swept in parallel, each with its own
    scratch arrays.  Threads only ever change an entry from UNREACHABLE to
    ``depth + 1``, and read only entries equal to ``depth``, so the result is
    exact; two threads may both count the same new entry, so the count (used
    for progress and to stop) can only be too high, never zero by mistake.
    """
    value = min(depth + 1, MAX_DISTANCE)
    counts = np.zeros(n_chunks, dtype=np.int64)
    span = hi - lo
    for t in nb.prange(n_chunks):
        out = np.empty(out_size, dtype=np.int64)
        work = np.zeros(work_size, dtype=np.int64)
        counts[t] = _sweep(params, table, depth, value, lo + span * t // n_chunks,
                           lo + span * (t + 1) // n_chunks, out, work)
    return counts.sum()


@nb.njit(cache=True)
def next_layer_serial(params, table, depth, lo, hi, out_size, work_size):
    """:func:`next_layer` in one thread, without the parallel runtime: once
    that (OpenMP) runtime has started, a ``fork()`` of the process is unsafe,
    and ``pdbsearch levels`` builds a PDB in the parent before it forks one
    child per level."""
    value = min(depth + 1, MAX_DISTANCE)
    out = np.empty(out_size, dtype=np.int64)
    work = np.zeros(work_size, dtype=np.int64)
    return _sweep(params, table, depth, value, lo, hi, out, work)


#: Entries swept by one call of the layer kernel, so that a deadline is
#: checked every few tenths of a second even in a large table.
SLICE = 1 << 21


def build_table(params, size: int, max_neighbours: int, workspace: int,
                progress: bool = False, label: str = "PDB", threads: int = 1,
                deadline: float | None = None) -> tuple[np.ndarray, float, float]:
    """Fill the table by BFS; returns (table, build seconds, compile seconds).

    Layers past :data:`MAX_DISTANCE` keep the value 254, still a lower bound.
    ``threads`` sets how many threads sweep each layer.  Past ``deadline``
    (a :func:`time.perf_counter` value) the build stops with
    :class:`~pdbsearch.errors.ResourceLimit` (the layers are swept in
    slices, so it stops soon after).
    """
    table = np.full(size, UNREACHABLE, dtype=np.uint8)
    # One thread by default: on a shared 2-core machine two threads were
    # 3x slower (docs/benchmarks.md); --threads opts in.  One thread runs
    # the serial sweep, which never starts the parallel runtime.
    threads = max(1, min(threads, nb.config.NUMBA_NUM_THREADS))
    if threads > 1:
        nb.set_num_threads(threads)
    t0 = time.perf_counter()
    next_layer_serial(params, np.zeros(0, np.uint8), 0, 0, 0, max_neighbours, workspace)
    if threads > 1:
        next_layer(params, np.zeros(0, np.uint8), 0, 0, 0, max_neighbours, workspace, 1)
    compile_seconds = time.perf_counter() - t0
    start = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=size, desc=label, unit=" entries", unit_scale=True, leave=False)
    try:
        found = seed_goals(params, table)
        if bar is not None:
            bar.update(found)
        depth = 0
        while found:
            # Everything left past MAX_DISTANCE is marked MAX_DISTANCE, by
            # repeating that layer until nothing new appears.
            current = min(depth, MAX_DISTANCE)
            found = 0
            for lo in range(0, size, SLICE):
                hi = min(size, lo + SLICE)
                if threads > 1:
                    found += next_layer(params, table, current, lo, hi, max_neighbours,
                                        workspace, 8 * threads)
                else:
                    found += next_layer_serial(params, table, current, lo, hi, max_neighbours,
                                               workspace)
                if take_interrupt_note():   # a Ctrl-C that numba's compiler swallowed
                    raise KeyboardInterrupt
                if deadline is not None and time.perf_counter() > deadline:
                    raise ResourceLimit("time", f"the time limit stopped building the {label} "
                                                f"({size:,} entries) at layer {depth}")
            depth += 1
            if bar is not None:
                bar.update(found)
                bar.set_postfix(layer=depth)
    finally:
        if bar is not None:
            bar.close()
    return table, time.perf_counter() - start, compile_seconds


@nb.njit(cache=True)
def count_inconsistencies(params, table, ranks, out_size, work_size):
    """How many of the entries ``ranks`` break what a BFS distance table
    must satisfy: a goal holds 0 and only goals do; every abstract state one
    move before a state of value v holds at most v + 1 (so it is not
    unreachable either).  A table whose values were raised anywhere breaks
    the last rule somewhere on the way down to a goal, so a random sample
    of a few thousand entries finds a table scaled up at once."""
    out = np.empty(out_size, dtype=np.int64)
    work = np.zeros(work_size, dtype=np.int64)
    bad = 0
    for i in range(ranks.shape[0]):
        r = ranks[i]
        v = table[r]
        if v == UNREACHABLE:
            continue
        if (v == 0) != abstract_is_goal(params, r):
            bad += 1
            continue
        limit = min(np.int64(v) + 1, MAX_DISTANCE)
        n = abstract_neighbours(params, r, out, work)
        for j in range(n):
            if table[out[j]] > limit:
                bad += 1
                break
    return bad


def sampled_check(params, table: np.ndarray, max_neighbours: int, workspace: int,
                  samples: int = 4096, seed: int = 0) -> str | None:
    """What is wrong with ``table`` as the BFS table of ``params``, judged on
    ``samples`` random entries (:func:`count_inconsistencies`), or None."""
    if table.shape[0] == 0:
        return "the table is empty"
    rng = np.random.default_rng(seed)
    ranks = rng.integers(0, table.shape[0], size=min(samples, table.shape[0]), dtype=np.int64)
    bad = count_inconsistencies(params, table, ranks, max_neighbours, workspace)
    if bad:
        return (f"{bad} of {ranks.shape[0]} sampled entries break the rules of a distance "
                f"table (a goal holds 0, a state one move away at most one more)")
    return None


@nb.njit(cache=True)
def _reduce_min(table, group, out):
    for i in range(out.shape[0]):
        best = UNREACHABLE
        base = i * group
        for j in range(group):
            v = table[base + j]
            if v < best:
                best = v
        out[i] = best


def reduce_min(table: np.ndarray, group: int) -> np.ndarray:
    """The minimum of every ``group`` consecutive entries: how a table built
    over (abstract state, a detail the heuristic does not look up) -- the
    blank's region of a sliding-tile pattern -- becomes the table over the
    abstract states alone (255, unreachable, is the largest value, so it
    stays only where every detail is unreachable)."""
    if table.shape[0] % group:
        raise ValueError(f"{table.shape[0]} entries are not groups of {group}")
    out = np.empty(table.shape[0] // group, dtype=np.uint8)
    _reduce_min(table, group, out)
    return out
