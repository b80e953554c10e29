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
table for the previous layer (no queue: memory is the table alone): eight
entries a word at once, and only in the blocks where the previous layer
wrote something; the sweep is cut in slices of blocks, one jitted call a
slice, so tqdm shows progress and a deadline or Ctrl-C stops it soon.
"""

from __future__ import annotations

import time
from typing import Callable

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic, overload

from ..compile_time import compile_seconds_spent, note_compile_seconds
from ..errors import ResourceLimit
from ..interrupts import take_interrupt_note
from .store import UNREACHABLE

MAX_DISTANCE = 254

_ABSTRACTIONS: dict[type, dict[str, Callable]] = {}


def register_abstraction(params_class: type, *, is_goal: Callable,
                         neighbours: Callable, sweep_block: Callable | None = None,
                         goals: Callable | None = None) -> None:
    """Register the jitted kernels of an abstraction.

    ``sweep_block``, optional, replaces the generic :func:`sweep_block` (same
    signature and contract) where the abstraction can expand a block's
    layer faster than entry by entry (the sliding-tile patterns expand a
    placement's regions together, unranking it once).  ``goals(params)``,
    optional, plain Python, lists the goal ranks (the same as ``is_goal``
    finds), which spares a test of every entry of a large table."""
    _ABSTRACTIONS[params_class] = {"is_goal": is_goal, "neighbours": neighbours,
                                   "sweep_block": sweep_block, "goals": goals}


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


def abstract_sweep_block(params, table, words, b, depth, value, dirty_next, out, work):
    """Expand one block's layer (dispatched inside numba: the abstraction's
    own ``sweep_block`` or the generic one)."""
    raise NotImplementedError


@overload(abstract_is_goal, jit_options={"cache": True})
def _ov_goal(params, rank):
    fn = _kernel(params, "is_goal")
    return lambda params, rank: fn(params, rank)


@overload(abstract_neighbours, jit_options={"cache": True})
def _ov_neighbours(params, rank, out, work):
    fn = _kernel(params, "neighbours")
    return lambda params, rank, out, work: fn(params, rank, out, work)


#: Entries of a block: the sweep visits only the blocks where the previous
#: layer wrote something (a flag a block), so the sparse first and last
#: layers of a large table cost little.
BLOCK_SHIFT = 16
#: Most blocks swept by one call of the layer kernel (with one thread).
SLICE_BLOCKS = 64
#: Seconds a call of the layer kernel should take, so that a deadline and
#: Ctrl-C are checked that often: the slices are sized by time, not by
#: entries (:func:`next_slice`).  A fixed 64 blocks took seconds where an
#: entry costs microseconds (two boxes in a large room: sasquatch5 42's
#: 2-box table ran 7 s past a 2 s limit).
SLICE_SECONDS = 0.1


def next_slice(blocks: int, seconds: float, most: int) -> int:
    """The blocks of the next call of the layer kernel, from the last one's
    ``blocks`` and ``seconds``: halved when it took more than twice
    :data:`SLICE_SECONDS`, doubled (up to ``most``) when it took less than
    half of it.  The sweep starts at one block (sasquatch5 50's 1-box
    table, 605 player cells, took 2.2 s in its first call of 5 blocks)."""
    if seconds > 2 * SLICE_SECONDS:
        return max(1, blocks // 2)
    if seconds < SLICE_SECONDS / 2:
        return min(most, 2 * blocks)
    return blocks


def sweep_in_slices(sweep, blocks: int, span: int, most: int, check) -> tuple[int, int]:
    """Call ``sweep(lo, hi)`` over the blocks ``0 .. blocks - 1`` a slice at
    a time, the slices sized by time (:func:`next_slice`, starting from
    ``span`` blocks, at most ``most``), and ``check()`` after each call;
    returns the sum of what the calls returned and the span to go on with."""
    total, lo = 0, 0
    while lo < blocks:
        hi = min(blocks, lo + span)
        started = time.perf_counter()
        total += sweep(lo, hi)
        span = next_slice(span, time.perf_counter() - started, most)
        lo = hi
        check()
    return total, span


_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)
_LOWS = np.uint64(0x7F7F7F7F7F7F7F7F)


def block_count(size: int) -> int:
    """How many blocks of ``1 << BLOCK_SHIFT`` entries cover ``size`` entries."""
    return -(-size // (1 << BLOCK_SHIFT))


@nb.njit(cache=True)
def seed_goals(params, table, dirty, lo, hi):
    """Set every abstract goal among the entries ``lo`` to ``hi - 1`` to
    distance 0 and flag its block; returns how many there are."""
    count = 0
    for r in range(lo, hi):
        if abstract_is_goal(params, r):
            table[r] = 0
            dirty[r >> BLOCK_SHIFT] = 1
            count += 1
    return count


@nb.njit(cache=True, inline="always")
def has_byte(word, pattern):
    """True when some byte of ``word`` equals that of ``pattern`` (the
    zero-byte test on their xor: exact as to whether there is one)."""
    x = word ^ pattern
    return ((x - _ONES) & ~x & _HIGHS) != np.uint64(0)


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the processor to fetch ``array[index]`` into the cache, to be
    written (LLVM's prefetch; a hint, with no effect on the result)."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        kind = signature.args[0]
        ary = context.make_array(kind)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, kind, ary, [args[1]], wraparound=False)
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
            "llvm.prefetch.p0i8")
        # write, keep in all cache levels, data
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(1), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.void(array, index), codegen


@nb.njit(cache=True, inline="always")
def byte_matches(word, pattern):
    """The high bit of every byte of ``word`` equal to that of ``pattern``,
    and no other bit (exact, unlike :func:`has_byte`: no carries cross the
    bytes), so the first match is the lowest set bit over 8."""
    x = word ^ pattern
    return ~(((x & _LOWS) + _LOWS) | x | _LOWS)


@nb.njit(cache=True, inline="always")
def _expand_entry(params, table, r, value, dirty_next, out, work):
    """Mark the unvisited neighbours of entry ``r``; returns how many."""
    count = 0
    n = abstract_neighbours(params, r, out, work)
    for i in range(n):
        s = out[i]
        if table[s] == UNREACHABLE:
            table[s] = value
            dirty_next[s >> BLOCK_SHIFT] = 1
            count += 1
    return count


@nb.njit(cache=True, inline="always")
def sweep_block(params, table, words, b, depth, value, dirty_next, out, work):
    """Expand the layer-``depth`` entries of block ``b`` (mark their
    unvisited neighbours ``value``, flag the blocks written in
    ``dirty_next``); returns how many were marked.  Eight entries a word
    are tested at once, so the stretches without any cost a compare a
    word."""
    size = table.shape[0]
    start = b << BLOCK_SHIFT
    end = min(start + (1 << BLOCK_SHIFT), size)
    pattern = np.uint64(depth) * _ONES
    count = 0
    w_end = min(end >> 3, words.shape[0])
    for w in range(start >> 3, w_end):
        if not has_byte(words[w], pattern):
            continue
        for r in range(w << 3, (w << 3) + 8):
            if table[r] == depth:
                count += _expand_entry(params, table, r, value, dirty_next, out, work)
    for r in range(max(start, w_end << 3), end):  # the bytes past the last whole word
        if table[r] == depth:
            count += _expand_entry(params, table, r, value, dirty_next, out, work)
    return count


@overload(abstract_sweep_block, jit_options={"cache": True})
def _ov_sweep_block(params, table, words, b, depth, value, dirty_next, out, work):
    fn = _kernel(params, "sweep_block") or sweep_block
    return lambda params, table, words, b, depth, value, dirty_next, out, work: fn(
        params, table, words, b, depth, value, dirty_next, out, work)


@nb.njit(cache=True, inline="always")
def _sweep_one(params, table, words, b, depth, value, dirty_next, out, work, own_sweep):
    """Block ``b`` swept by the abstraction's own kernel, or the generic one."""
    if own_sweep:
        return abstract_sweep_block(params, table, words, b, depth, value, dirty_next, out,
                                    work)
    return sweep_block(params, table, words, b, depth, value, dirty_next, out, work)


@nb.njit(cache=True, parallel=True)
def next_layer(params, table, words, depth, lo, hi, dirty, dirty_next, out_size, work_size,
               n_chunks, own_sweep):
    """Mark the unvisited neighbours of the layer-``depth`` entries in the
    flagged blocks ``lo .. hi - 1``; returns their count.

    Chunk t sweeps the blocks t, t + n_chunks, ... (interleaved, so the
    dense and sparse parts of the table are shared out evenly), each with
    its own scratch arrays and its own row of ``dirty_next`` (flags written
    by both cores in one array would bounce its cache lines between them:
    the first try, with one row, took twice the CPU time of one thread).
    With the generic sweep, threads only ever change an entry from
    UNREACHABLE to ``depth + 1``, and read only entries equal to ``depth``,
    so the result is exact (an abstraction's own sweep gives its own
    argument); two threads may both count the same new entry, so the count
    (used for progress and to stop) can only be too high, never zero by
    mistake.
    """
    value = min(depth + 1, MAX_DISTANCE)
    counts = np.zeros(n_chunks, dtype=np.int64)
    for t in nb.prange(n_chunks):
        out = np.empty(out_size, dtype=np.int64)
        work = np.zeros(work_size, dtype=np.int64)
        c = 0
        flags = dirty_next[t]
        for b in range(lo + t, hi, n_chunks):
            if dirty[b]:
                c += _sweep_one(params, table, words, b, depth, value, flags, out, work,
                                own_sweep)
        counts[t] = c
    return counts.sum()


@nb.njit(cache=True)
def next_layer_serial(params, table, words, depth, lo, hi, dirty, dirty_next, out_size,
                      work_size, own_sweep):
    """:func:`next_layer` in one thread, without the parallel runtime: once
    that (OpenMP) runtime has started, a ``fork()`` of the process is unsafe,
    and ``pdbsearch levels`` builds a PDB in the parent before it forks one
    child per level."""
    value = min(depth + 1, MAX_DISTANCE)
    out = np.empty(out_size, dtype=np.int64)
    work = np.zeros(work_size, dtype=np.int64)
    count = 0
    flags = dirty_next[0]
    for b in range(lo, hi):
        if dirty[b]:
            count += _sweep_one(params, table, words, b, depth, value, flags, out, work,
                                own_sweep)
    return count


def build_table(params, size: int, max_neighbours: int, workspace: int,
                progress: bool = False, label: str = "PDB", threads: int = 1,
                deadline: float | None = None, generic: bool = False
                ) -> tuple[np.ndarray, float, float]:
    """Fill the table by BFS; returns (table, build seconds, warm-up
    seconds: the kernels' first call, compiling or loading them).

    ``generic`` sweeps with the generic kernel even where the abstraction
    registered its own (the tests compare the two).

    Layers past :data:`MAX_DISTANCE` keep the value 254, still a lower bound.
    ``threads`` sets how many threads sweep each layer.  Past ``deadline``
    (a :func:`time.perf_counter` value, pushed back by the compile
    seconds) the build stops with
    :class:`~pdbsearch.errors.ResourceLimit` (the layers are swept in
    slices, so it stops soon after).
    """
    table = np.full(size, UNREACHABLE, dtype=np.uint8)
    # the whole words of the table, for the eight-at-a-time test
    words = table[:size - size % 8].view(np.uint64)
    # One thread by default: on a shared 2-core machine two threads were
    # 3x slower (docs/benchmarks.md); --threads opts in.  One thread runs
    # the serial sweep, which never starts the parallel runtime.
    threads = max(1, min(threads, nb.config.NUMBA_NUM_THREADS))
    if threads > 1:
        nb.set_num_threads(threads)
    t0 = time.perf_counter()
    compiled_before = compile_seconds_spent()
    no_bytes, no_words, no_flags = np.zeros(0, np.uint8), np.zeros(0, np.uint64), \
        np.zeros(0, np.uint8)
    no_rows = np.zeros((8 * threads if threads > 1 else 1, 0), np.uint8)
    own = not generic
    next_layer_serial(params, no_bytes, no_words, 0, 0, 0, no_flags, no_rows, max_neighbours,
                      workspace, own)
    seed_goals(params, no_bytes, no_flags, 0, 0)
    if threads > 1:
        next_layer(params, no_bytes, no_words, 0, 0, 0, no_flags, no_rows, max_neighbours,
                   workspace, no_rows.shape[0], own)
    warm_up_seconds = time.perf_counter() - t0
    # The listener of .compile_time has counted the compiling; the rest of
    # the first call is loading from the cache, counted here.
    note_compile_seconds(max(0.0, warm_up_seconds - (compile_seconds_spent() - compiled_before)))
    if deadline is not None:
        # The first build of a fresh install compiles for seconds: that is
        # not building time (it once stopped a 5 s solve's 1-box table).
        deadline += warm_up_seconds
    start = time.perf_counter()
    blocks = block_count(size)
    dirty = np.zeros(blocks, dtype=np.uint8)
    # With threads, more chunks than threads (each an interleaved share of
    # the slice, so that a thread's chunks even out) and longer slices (a
    # slice ends with the slowest thread's share: with 2 chunks of 32
    # blocks, two threads kept only 1.3 cores busy).
    chunks = 8 * threads if threads > 1 else 1
    most = min(blocks, SLICE_BLOCKS * (8 if threads > 1 else 1))
    # A layer's slices start at one block and grow by doubling: the first
    # call already keeps to the time (the seeding's slices, apart, are cheaper).
    span = 1

    def check_stop(where: str) -> None:
        """Between two calls of a kernel: Ctrl-C, then the deadline."""
        if take_interrupt_note():   # a Ctrl-C that numba's compiler swallowed
            raise KeyboardInterrupt
        if deadline is not None and time.perf_counter() > deadline:
            raise ResourceLimit("time", f"the time limit stopped building the {label} "
                                        f"({size:,} entries) {where}")

    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=size, desc=label, unit=" entries", unit_scale=True, leave=False)
    try:
        goals = _ABSTRACTIONS.get(type(params), {}).get("goals")
        if goals is None:
            # In slices too: testing every entry took 1.3 s on sasquatch5
            # 47's 2-box table, all of it past a 1 s limit.
            found, _ = sweep_in_slices(
                lambda lo, hi: seed_goals(params, table, dirty, lo << BLOCK_SHIFT,
                                          min(size, hi << BLOCK_SHIFT)),
                blocks, 1, most, lambda: check_stop("at its goals"))
        else:
            ranks = np.asarray(goals(params), dtype=np.int64)
            table[ranks] = 0
            dirty[ranks >> BLOCK_SHIFT] = 1
            found = len(ranks)
        if bar is not None:
            bar.update(found)
        check_stop("at its goals")
        depth = 0
        while found:
            # Everything left past MAX_DISTANCE is marked MAX_DISTANCE, by
            # repeating that layer until nothing new appears.
            current = min(depth, MAX_DISTANCE)
            # a row of flags a chunk, merged after the layer
            dirty_next = np.zeros((chunks, blocks), dtype=np.uint8)

            def layer(lo, hi):
                if threads > 1:
                    return next_layer(params, table, words, current, lo, hi, dirty,
                                      dirty_next, max_neighbours, workspace, chunks, own)
                return next_layer_serial(params, table, words, current, lo, hi, dirty,
                                         dirty_next, max_neighbours, workspace, own)

            found, span = sweep_in_slices(layer, blocks, span, most,
                                          lambda: check_stop(f"at layer {depth}"))
            dirty = np.bitwise_or.reduce(dirty_next, axis=0)
            depth += 1
            if bar is not None:
                bar.update(found)
                bar.set_postfix(layer=depth)
    finally:
        if bar is not None:
            bar.close()
    return table, time.perf_counter() - start, warm_up_seconds


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
