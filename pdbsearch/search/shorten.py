"""Shorter solutions: stretches of a found path re-solved, and shortcuts
between its positions.

A search that does not prove its solution optimal (weighted A*, greedy,
FESS) often goes round about: a box pushed away and back, a box taken the
long way, two moves that a third one makes pointless, a loop.  Two kinds of
pass shorten it (:func:`shorten`):

* **Windows** (:func:`window_pass`), where the domain can pose the way from
  one position to another as a puzzle of its own
  (:meth:`~pdbsearch.puzzle.Puzzle.segment_puzzle`: Sokoban, whose goals
  are cells; not Hakoiri or the tile puzzles, whose goal is fixed): each
  stretch of the path is solved again by A*, from its first position to the
  boxes of its last, within a node limit, and taken when cheaper.  A
  window that spans the whole solution and whose A* finishes proves the
  solution optimal (nothing else is tried then).
* **Shortcuts** (:func:`shortcut_pass`), in every domain: from each position
  of the path in turn, every position within ``depth`` moves of it (a
  uniform-cost search over the domain's own moves, ``kernel_expand``); when
  one of them is a later position of the path, reached for less than the
  path pays to get there, the path takes that shortcut and goes on from
  there.

The local search orders positions by ``(cost, moves)``: a position's label
is the cheapest way to it, and among those the one with the fewest moves,
and only labels with fewer than ``depth`` moves are expanded.  The labels do
not depend on the order siblings come in, so the plain-Python reference
(:func:`pdbsearch.testing.shorten.shortcut_reference`) finds the same
shortcuts.  Of the shortcuts from one position, the one that saves most is
taken (ties: the one that lands furthest along the path).

Every move of a shortcut is a move the domain generated; the caller replays
the whole new solution with the puzzle's independent checker, as for any
solution.  A position of the local search costs ``8 K + 112`` bytes: its
key, cost, moves, parent, move code and edge cost, two hash slots and its
place in the list of slots to clear (``8 K + 48``), and four 16-byte heap
entries (the heap's room); the table holds at most ``node_cap`` positions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import IllegalMoveError, InternalError
from ..puzzle import Puzzle, Step, copy_key, kernel_expand
from .bestfirst import BestFirstSearch
from .common import ENGINE_JIT_OPTIONS, successor_buffers
from .driver import replayed, run_engine
from .heap import heap_pop, heap_push
from .result import Limits, SearchResult, Status
from .store import empty_slots, find_slot

#: Moves a shortcut may have when none is asked for, and the positions one
#: local search may store (past it, it goes on with those it has): measured
#: on FESS's solutions of two unseen level sets (docs/benchmarks.md).
DEFAULT_DEPTH = 8
DEFAULT_NODE_CAP = 1 << 11
#: Seconds a shortening may take after a search: as long as the search took,
#: at least this, and never past the time limit.
LEAST_SECONDS = 1.0


@dataclass
class Shortening:
    """What a shortening did: the cost before and after; the windows it
    re-solved and the widest it finished (``window_moves``, 0: none); the
    deepest shortcuts it finished looking for (``depth`` moves), its passes
    and the shortcuts it took; how long it took (seconds of wall); and
    whether one window's A* spanned the whole solution and finished, which
    proves the solution optimal (``proved_optimal``)."""

    depth: int
    before: int
    after: int
    windows: int = 0
    window_moves: int = 0
    passes: int = 0
    shortcuts: int = 0
    seconds: float = 0.0          #: its time, compile time not counted
    compile_seconds: float = 0.0  #: the kernels' compile (or cache load) time
    finished: bool = True         #: False: the time ran out before the last pass
    proved_optimal: bool = False  #: A* over the whole solution found nothing cheaper

    def to_dict(self) -> dict:
        """The JSON form (``result.extra["shortened"]``)."""
        return {"depth": self.depth, "before": self.before, "after": self.after,
                "windows": self.windows, "window_moves": self.window_moves,
                "passes": self.passes, "shortcuts": self.shortcuts,
                "seconds": round(self.seconds, 6),
                "compile_seconds": round(self.compile_seconds, 6), "finished": self.finished,
                "proved_optimal": self.proved_optimal}


# -- the kernel ----------------------------------------------------------------


@nb.njit(cache=True)
def index_path(keys, slots):
    """Fill ``slots`` (all -1) with the path's keys; a key that occurs twice
    points at its last occurrence, so a loop is one shortcut."""
    for t in range(keys.shape[0]):
        slots[find_slot(keys, slots, keys[t])] = t


@nb.njit(**ENGINE_JIT_OPTIONS)
def best_shortcut(params, path, cum, path_slots, i, depth,
                  t_keys, t_cost, t_moves, t_parent, t_code, t_edge, t_slots, touched,
                  hf, hg, hn, s_keys, s_costs, s_moves, out_keys, out_codes, out_costs):
    """The best shortcut from position ``i`` of ``path``: returns ``(j,
    steps, deeper)``, the later position it lands on and its number of
    moves (``j`` = -1: none saves anything), and whether a larger ``depth``
    could see more (0: the depth never stopped the search while its table
    had room, so a deeper one is this one); writes the shortcut's moves to
    ``out_*`` (the positions after each move, their codes and costs).

    ``cum[t]`` is the path's cost to position ``t``; ``t_*`` is the local
    search's table (its capacity bounds the search), ``hf, hg, hn`` its heap.
    Ordering the heap by cost plus the domain's bound instead (so that a
    full table holds the positions that lead on) was tried on FESS's
    solutions of two Kevin01 levels: within 2 pushes, in about the same
    time (docs/benchmarks.md).
    """
    cap = t_keys.shape[0]
    last = path.shape[0] - 1
    horizon = cum[last] - cum[i]        # a shortcut costs less than the rest of the path
    scale = depth + 1                   # heap order: cost, then moves
    copy_key(t_keys[0], path[i])
    t_cost[0] = 0
    t_moves[0] = 0
    t_parent[0] = -1
    t_code[0] = -1
    s = find_slot(t_keys, t_slots, path[i])
    t_slots[s] = 0
    touched[0] = s
    n = 1
    size = heap_push(hf, hg, hn, 0, 0.0, 0, 0)
    best_j = -1
    best_save = 0
    best_node = -1
    deeper = 0
    while size > 0:
        f, _, u, size = heap_pop(hf, hg, hn, size)
        c = t_cost[u]
        m = t_moves[u]
        if f != c * scale + m:
            continue                    # a stale entry: u was reached better since
        at = path_slots[find_slot(path, path_slots, t_keys[u])]
        if at > i:
            save = cum[at] - cum[i] - c
            if save > best_save or (save == best_save and save > 0 and at > best_j):
                best_save = save
                best_j = at
                best_node = u
        if m >= depth:
            if n < cap:
                deeper = 1
            continue
        count = kernel_expand(params, t_keys[u], s_keys, s_costs, s_moves)
        for k in range(count):
            nc = c + s_costs[k]
            if nc >= horizon:
                continue
            nm = m + 1
            s = find_slot(t_keys, t_slots, s_keys[k])
            v = t_slots[s]
            if size >= hf.shape[0]:
                continue                # the heap is full (as the table: a smaller search)
            if v >= 0:
                if t_cost[v] < nc or (t_cost[v] == nc and t_moves[v] <= nm):
                    continue
            else:
                if n >= cap:
                    continue            # the table is full: keep to what it holds
                v = n
                n += 1
                t_slots[s] = v
                touched[v] = s
                copy_key(t_keys[v], s_keys[k])
            t_cost[v] = nc
            t_moves[v] = nm
            t_parent[v] = u
            t_code[v] = s_moves[k]
            t_edge[v] = s_costs[k]
            size = heap_push(hf, hg, hn, size, float(nc * scale + nm), 0, v)
    for v in range(n):
        t_slots[touched[v]] = -1
    if best_node < 0:
        return -1, 0, deeper
    # The moves of the shortcut: its parents back to the start (labels are
    # final when they come off the heap, so the chain has the moves of the
    # label; the guard keeps a bug from writing past ``out_*``).
    steps = 0
    v = best_node
    while v > 0:
        steps += 1
        v = t_parent[v]
        if steps > out_keys.shape[0]:
            return -1, 0, deeper
    v = best_node
    for k in range(steps - 1, -1, -1):
        copy_key(out_keys[k], t_keys[v])
        out_codes[k] = t_code[v]
        out_costs[k] = t_edge[v]
        v = t_parent[v]
    return best_j, steps, deeper


# -- the passes ----------------------------------------------------------------


class _Workspace:
    """The local search's arrays, allocated once for every pass."""

    def __init__(self, puzzle: Puzzle, depth: int, node_cap: int):
        kw = puzzle.key_words
        self.t_keys = np.zeros((node_cap, kw), dtype=np.uint64)
        self.t_cost = np.zeros(node_cap, dtype=np.int64)
        self.t_moves = np.zeros(node_cap, dtype=np.int32)
        self.t_parent = np.zeros(node_cap, dtype=np.int32)
        self.t_code = np.zeros(node_cap, dtype=np.int64)
        self.t_edge = np.zeros(node_cap, dtype=np.int64)
        self.t_slots = empty_slots(node_cap)
        self.touched = np.zeros(node_cap, dtype=np.int64)
        heap = 4 * node_cap
        self.hf = np.zeros(heap, dtype=np.float64)
        self.hg = np.zeros(heap, dtype=np.int32)
        self.hn = np.zeros(heap, dtype=np.int32)
        self.successors = successor_buffers(puzzle)
        self.out_keys = np.zeros((depth, kw), dtype=np.uint64)
        self.out_codes = np.zeros(depth, dtype=np.int64)
        self.out_costs = np.zeros(depth, dtype=np.int64)

    def search(self, params, path, cum, path_slots, i, depth):
        """:func:`best_shortcut` from position ``i``."""
        return best_shortcut(params, path, cum, path_slots, i, depth,
                             self.t_keys, self.t_cost, self.t_moves, self.t_parent,
                             self.t_code, self.t_edge,
                             self.t_slots, self.touched, self.hf, self.hg, self.hn,
                             *self.successors, self.out_keys, self.out_codes, self.out_costs)


def shortcut_pass(puzzle: Puzzle, keys: np.ndarray, codes: list[int], costs: list[int],
                  depth: int, work: _Workspace, deadline: float | None = None):
    """One pass along the path ``keys`` (``len(codes) + 1`` rows; move ``t``
    leads from row ``t`` to row ``t + 1`` with ``codes[t]`` and
    ``costs[t]``): from each position, the best shortcut, taken at once.

    Returns ``(keys, codes, costs, shortcuts, finished, deeper)``: a pass
    cut by the deadline keeps the path as it stands from where it stopped
    on; ``deeper`` is False when no search of the pass was stopped by the
    depth while its table had room (a deeper pass would see no more).
    """
    cum = np.zeros(len(costs) + 1, dtype=np.int64)
    np.cumsum(costs, out=cum[1:])
    path_slots = empty_slots(keys.shape[0])
    index_path(keys, path_slots)
    new_keys, new_codes, new_costs = [keys[0]], [], []
    shortcuts = 0
    deeper = False
    i = 0
    last = keys.shape[0] - 1
    while i < last:
        if deadline is not None and time.perf_counter() >= deadline:
            new_keys.extend(keys[i + 1:])
            new_codes.extend(codes[i:])
            new_costs.extend(costs[i:])
            return np.array(new_keys), new_codes, new_costs, shortcuts, False, True
        j, steps, bound_by_depth = work.search(puzzle.params, keys, cum, path_slots, i, depth)
        deeper = deeper or bool(bound_by_depth)
        if j >= 0 and cum[j] - cum[i] <= work.out_costs[:steps].sum():
            raise InternalError(f"a shortcut from position {i} to {j} saves nothing")
        if j < 0:
            new_keys.append(keys[i + 1])
            new_codes.append(codes[i])
            new_costs.append(costs[i])
            i += 1
            continue
        new_keys.extend(work.out_keys[:steps].copy())
        new_codes.extend(int(c) for c in work.out_codes[:steps])
        new_costs.extend(int(c) for c in work.out_costs[:steps])
        shortcuts += 1
        i = j
    return np.array(new_keys), new_codes, new_costs, shortcuts, True, deeper


# -- windows re-solved (domains that can pose the way between two positions) ----


#: Widths of the windows, in moves of the path, tried in turn (each until a
#: pass along the path takes none), and the positions the A* of a window
#: may expand per move of its width (measured: docs/benchmarks.md).
WINDOW_WIDTHS = (32, 64, 128)
WINDOW_NODES_PER_MOVE = 1600


def _window_moves(puzzle: Puzzle, start, end, width: int, cost: int,
                  deadline: float | None):
    """``(moves, settled)``: the optimal moves from position ``start`` to
    position ``end`` by A* on the domain's segment puzzle
    (:meth:`Puzzle.segment_puzzle`), or None: a limit stopped it, or it
    proved that none costs less than ``cost`` (what the path pays there
    now); ``settled`` is True when the A* finished (the optimum found, or
    nothing cheaper proved), False when a limit stopped it."""
    segment = puzzle.segment_puzzle(start, end)
    if segment.start_is_goal():
        return [], True
    seconds = None if deadline is None else max(0.0, deadline - time.perf_counter())
    limits = Limits(time_seconds=seconds, nodes=WINDOW_NODES_PER_MOVE * width, threads=1,
                    cost_below=cost)
    segment.prepare(deadline, limits.memory_bytes())
    segment.tune("astar", 1.0)
    found = run_engine(segment, BestFirstSearch(segment, 1.0), algo="astar", weight=1.0,
                       bound=1.0, limits=limits, progress=False)
    if found.status is Status.SOLVED:
        return [s.code for s in found.steps], True
    return None, found.stop_reason == "bound"


def window_pass(puzzle: Puzzle, steps: list[Step], width: int,
                deadline: float | None = None) -> tuple[list[Step], int, bool, bool]:
    """Windows of ``width`` moves along a replayed solution (each half over
    the one before), each re-solved optimally from its first position to
    its last; the new moves are taken when the whole solution with them
    replays (the segment puzzle's goal may leave the player elsewhere) and
    costs less.  Returns ``(steps, windows taken, finished, settled)``:
    ``settled`` when one window spans the whole solution and its A*
    finished, so that nothing between its first and last positions costs
    less (no other window, no shortcut, can shorten it)."""
    if not steps:
        return steps, 0, True, False
    keys = puzzle.solution_path(steps)
    cost = sum(s.cost for s in steps)
    taken = 0
    i = 0
    # The last window starts before the last move (one of a single move
    # would repeat its neighbour's work), but a one-move solution has one.
    while i == 0 or i < len(steps) - 1:
        if deadline is not None and time.perf_counter() >= deadline:
            return steps, taken, False, False
        j = min(i + width, len(steps))
        here = sum(s.cost for s in steps[i:j])
        middle, settled = _window_moves(puzzle, keys[i], keys[j], width, here, deadline)
        whole = i == 0 and j == len(steps)
        if middle is not None:
            codes = [s.code for s in steps[:i]] + middle + [s.code for s in steps[j:]]
            try:
                new_steps, new_cost = puzzle.check_solution(codes)
            except IllegalMoveError:
                new_steps, new_cost = None, cost
                settled = False     # what it found does not replay: nothing is settled
            if new_cost < cost:
                steps, cost = new_steps, new_cost
                keys = puzzle.solution_path(steps)
                taken += 1
        if whole and settled:
            return steps, taken, True, True
        i += width // 2
    return steps, taken, True, False


# -- the whole shortening --------------------------------------------------------------


def shorten(puzzle: Puzzle, steps: list[Step], depth: int = DEFAULT_DEPTH,
            deadline: float | None = None,
            node_cap: int = DEFAULT_NODE_CAP) -> tuple[list[int], Shortening]:
    """Shorten a solution (its replayed ``steps``) until ``deadline``
    (``time.perf_counter()``) at the latest:

    1. where the domain can pose the way between two positions
       (:meth:`Puzzle.segment_puzzle`), windows of the path re-solved by A*
       (:func:`window_pass`), narrow ones first;
    2. shortcuts of one move from each position (:func:`shortcut_pass`),
       until a pass finds none, then of two moves, and so on up to
       ``depth`` moves.

    Cheap passes come first, so a deadline cuts the dear ones.  A window
    (step 1) that spans the whole solution and finishes proves it
    optimal: the shortening ends there (``proved_optimal``).  Returns
    the new move codes (not yet replayed: the caller replays them) and
    what was done.
    """
    if depth < 1:
        raise ValueError("the depth of a shortcut is at least 1 move")
    started = time.perf_counter()
    before = sum(s.cost for s in steps)
    report = Shortening(depth=0, before=before, after=before)
    start = puzzle.initial_key()
    work = _Workspace(puzzle, depth, node_cap)
    segment = puzzle.segment_puzzle(start, start) if steps else None
    # A first run compiles the kernels (numba caches them): that is not
    # time the shortening had to work with.
    report.compile_seconds = _load_kernels(puzzle, work, segment)
    if deadline is not None:
        deadline += report.compile_seconds
    settled = False
    if segment is not None:
        for width in WINDOW_WIDTHS:
            taken = 1
            while taken > 0 and report.finished and not settled:
                steps, taken, report.finished, settled = window_pass(puzzle, steps, width,
                                                                     deadline)
                report.windows += taken
            if not report.finished or width >= len(steps):
                break                   # a window spans the whole solution
        report.window_moves = width if report.finished else 0
    codes = [s.code for s in steps]
    costs = [s.cost for s in steps]
    if settled:
        # One window's A* covered the whole solution: no shortcut between
        # its positions can cost less (they would be a cheaper way from its
        # first position to its last).  Its first position is the start and
        # its last a goal, whose segment puzzle is this puzzle (the contract
        # of Puzzle.segment_puzzle): that A*, with an admissible bound, has
        # proved the solution optimal.
        report.proved_optimal = True
    else:
        keys = np.array([start] + puzzle.solution_states(steps))
        for reach in range(1, depth + 1):
            taken = 1
            while taken > 0 and report.finished:
                keys, codes, costs, taken, report.finished, deeper = shortcut_pass(
                    puzzle, keys, codes, costs, reach, work, deadline)
                report.passes += 1
                report.shortcuts += taken
            if not report.finished:
                break
            report.depth = reach
            if not deeper:
                report.depth = depth    # the deeper passes would be this one
                break
    report.after = int(sum(costs))
    report.seconds = time.perf_counter() - started - report.compile_seconds
    return codes, report


def load_kernels(puzzle: Puzzle, depth: int = DEFAULT_DEPTH) -> float:
    """Compile (or load) the kernels a shortening of ``puzzle``'s solutions
    calls, as a run's warm-up does before its children fork (each child
    would load them again: some 50 ms a level); returns the seconds it
    took."""
    start = puzzle.initial_key()
    return _load_kernels(puzzle, _Workspace(puzzle, depth, 1),
                         puzzle.segment_puzzle(start, start))


def _load_kernels(puzzle: Puzzle, work: _Workspace, segment: Puzzle | None) -> float:
    """Compile (or load) the local search's kernel and, with a segment
    puzzle, the windows' A*; returns the seconds it took."""
    started = time.perf_counter()
    start = puzzle.initial_key()
    path = np.array([start, start])
    slots = empty_slots(2)
    index_path(path, slots)
    work.search(puzzle.params, path, np.zeros(2, dtype=np.int64), slots, 0, 0)  # depth 0: no work
    if segment is not None:
        segment.prepare()
        BestFirstSearch(segment, 1.0).load_kernels()
    return time.perf_counter() - started


def shortening_deadline(result: SearchResult, time_limit: float | None) -> float:
    """When the shortening of ``result`` stops (``time.perf_counter()``): as
    long again as its search took (at least :data:`LEAST_SECONDS`), and not
    past what the search left of ``time_limit`` (seconds of search)."""
    budget = max(LEAST_SECONDS, result.seconds)
    if time_limit is not None:
        budget = min(budget, max(0.0, time_limit - result.seconds))
    return time.perf_counter() + budget


def shorten_result(puzzle: Puzzle, result: SearchResult, depth: int = DEFAULT_DEPTH,
                   deadline: float | None = None) -> Shortening:
    """Shorten a solved ``result`` in place (:func:`shorten`): its moves,
    cost and path become the shortened solution's, replayed by the
    puzzle's independent checker; ``result.extra["shortened"]`` records
    what was done.  Its bound (e.g. weighted A*'s α) still holds: the cost
    only goes down; and when the shortening proved the solution optimal,
    the bound becomes 1 and the lower bound the cost (the result is then
    ``optimal``)."""
    codes, report = shorten(puzzle, result.steps, depth, deadline)
    if report.after < report.before:
        steps, cost = replayed(puzzle, codes, result.algo)
        if cost != report.after:
            raise InternalError(f"the shortened solution replays at cost {cost}, "
                                f"not {report.after}")
        result.steps, result.cost = steps, cost
        result.path_keys = puzzle.solution_path(steps)
        extra = puzzle.result_fields(result)
        for name, value in result.extra.items():
            extra.setdefault(name, value)
        result.extra = extra
    if report.proved_optimal:
        result.bound = 1.0
        result.lower_bound = float(result.cost)
    result.extra["shortened"] = report.to_dict()
    return report
