"""IDA*: depth-first iterative deepening on f = g + h.

Each iteration explores, depth first, every path whose f stays within the
threshold; the next threshold is the smallest f that exceeded it.  With an
admissible heuristic the first goal found is optimal.

Two kinds of redundancy are cut:

* the move that undoes the last one: a successor equal to the grandparent
  state is skipped;
* transpositions: a fixed-size transposition table remembers, for each state
  seen in the current iteration, the smallest g it was reached with; a state
  reached again with a g no smaller is skipped (everything below it was
  already explored with at least as much budget left).  This keeps IDA*
  usable on sliding-block puzzles, whose graphs are full of transpositions.
  The table also keeps, across iterations, the lower bound each finished
  subtree proved (its smallest f beyond the threshold, minus g), which
  raises h for later visits.  The table grows while it stays within half of
  the memory limit; after that new states are simply not recorded, and the
  search stays correct, only slower.

**Proving unsolvability.**  An iteration ends the search as *exhausted*
when either of two things holds, and no state ever failed to be recorded:

* every state the iteration cut by the bound was also visited within it (so
  the iteration walked the whole reachable space), or
* every state in the table has been expanded in some iteration: the table
  then holds every reachable state, closed under successors, and none is a
  goal.  This is the test that ends the search on an unsolvable board: the
  learned bounds of states that cannot reach a goal grow with every
  iteration, so such states stay cut by the bound and the first test alone
  would never hold.

The depth-first stack is kept in arrays (one frame of successors per depth),
so the search runs in resumable chunks like the other engines.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..puzzle import DEAD, copy_key, kernel_expand, kernel_heuristic, kernel_is_goal
from .common import (ENGINE_JIT_OPTIONS, EXHAUSTED, EXPANDED, F_BOUND, GENERATED, GOAL,
                     GROW_NODES, GROW_OPEN, NODES, N_FSTATS, N_STATS, OPEN, PRUNED, RUNNING,
                     SOLVED, evaluate_heuristic)
from .store import hash_key, keys_equal

_INF = 1 << 60
# Extra stats slots used by IDA* only.
ITERATION = 7
TT_FULL = 8     #: 1 once the transposition table may not grow any more
UNRECORDED = 9  #: 1 once some state could not be recorded (the table was full)


@nb.njit(cache=True)
def _tt_find(tt_keys, tt_iter, key):
    """The slot holding ``key``, or the empty slot where it would go."""
    mask = tt_keys.shape[0] - 1
    s = np.int64(hash_key(key) & np.uint64(mask))
    while tt_iter[s] != 0 and not keys_equal(tt_keys[s], key):
        s = (s + 1) & mask
    return s


@nb.njit(cache=True)
def _tt_rehash(old_keys, old_g, old_iter, old_h, old_cut, keys, g, it, h, cut):
    """Move every entry of the old table into the (empty, larger) new one."""
    for i in range(old_keys.shape[0]):
        if old_iter[i] != 0:
            s = _tt_find(keys, it, old_keys[i])
            copy_key(keys[s], old_keys[i])
            g[s] = old_g[i]
            it[s] = old_iter[i]
            h[s] = old_h[i]
            cut[s] = old_cut[i]


@nb.njit(cache=True)
def _tt_relocate_path(root, sk, fpos, tslot, depth, tt_keys, tt_iter):
    """Point ``tslot`` at the current path's entries again after a rehash.

    The slots moved with the rehash; a stale slot would hand a subtree's
    learned bound to whatever state now sits there, and a bound too high
    for that state makes IDA* miss its optimum.  A state that was never
    recorded (slot -1) stays unrecorded.
    """
    for d in range(depth + 1):
        if tslot[d] < 0:
            continue
        key = root if d == 0 else sk[fpos[d - 1] - 1]
        tslot[d] = _tt_find(tt_keys, tt_iter, key)


@nb.njit(cache=True)
def _space_exhausted(tt_iter, tt_cut, iteration):
    """True when the table proves that no reachable state is left to
    search (see the module doc): every state cut by the bound in this
    iteration was visited in it, or every recorded state was expanded in
    some iteration (``tt_iter`` is -1 for a state only ever seen)."""
    unvisited_cut = False
    never_expanded = False
    for s in range(tt_iter.shape[0]):
        it = tt_iter[s]
        if it == -1:
            never_expanded = True
        if tt_cut[s] == iteration and it != iteration:
            unvisited_cut = True
        if unvisited_cut and never_expanded:
            return False
    return True


@nb.njit(cache=True)
def _tt_record(tt_keys, tt_g, tt_iter, tt_h, stats, s, key, g, h, iteration):
    """Note ``key`` as visited at cost ``g`` in ``iteration`` (or, with
    ``iteration`` = -1, as seen but not visited); returns its slot, or -1
    when the table is full."""
    if tt_iter[s] == 0:
        # Keep the table at most 3/4 full so probes stay short.
        if 4 * stats[NODES] >= 3 * tt_keys.shape[0]:
            return -1
        copy_key(tt_keys[s], key)
        tt_h[s] = h
        stats[NODES] += 1
    elif iteration == -1:
        return s
    tt_g[s] = g
    tt_iter[s] = iteration
    return s


@nb.njit(cache=True)
def _open_frame(params, key, depth, sk, sc, sm, fstart, fend, fpos, fmin, stats):
    start = fend[depth - 1] if depth > 0 else 0
    n = kernel_expand(params, key, sk[start:], sc[start:], sm[start:])
    fstart[depth] = start
    fpos[depth] = start
    fend[depth] = start + n
    fmin[depth] = _INF
    stats[EXPANDED] += 1
    stats[GENERATED] += n


@nb.njit(**ENGINE_JIT_OPTIONS)
def ida_chunk(params, root, sk, sc, sm, fstart, fend, fpos, fmin, gpath, tslot,
              tt_keys, tt_g, tt_iter, tt_h, tt_cut, stats, fstats, max_succ, budget):
    """Run IDA* for at most ``budget`` expansions; returns a chunk code.

    ``stats[OPEN]`` is the current depth and ``fstats[F_BOUND]`` the
    threshold; frame ``d`` holds the children of the node at depth ``d``
    (the node at depth ``d + 1`` is ``sk[fpos[d] - 1]``), and ``fmin[d]``
    the smallest f seen beyond the threshold below that node.
    """
    cap = sk.shape[0]
    max_depth = fstart.shape[0]
    done = 0
    while True:
        depth = stats[OPEN]
        if fpos[depth] == fend[depth]:
            if depth > 0:
                # Subtree done: its smallest frontier f, minus g, is a proven
                # lower bound on the node's distance; keep it for later visits.
                s = tslot[depth]
                if s >= 0:
                    learned = min(fmin[depth] - gpath[depth], DEAD)
                    if learned > tt_h[s]:
                        tt_h[s] = learned
                if fmin[depth] < fmin[depth - 1]:
                    fmin[depth - 1] = fmin[depth]
                stats[OPEN] = depth - 1
                continue
            # Iteration over.  Integer costs: no solution costs <= bound, so
            # the next bound is at least bound + 1.
            bound = np.int64(fstats[F_BOUND])
            if stats[ITERATION] > 0:
                if fmin[0] >= _INF:
                    return EXHAUSTED
                if stats[UNRECORDED] == 0 and _space_exhausted(tt_iter, tt_cut,
                                                                stats[ITERATION]):
                    return EXHAUSTED
                bound = max(fmin[0], bound + 1)
            fstats[F_BOUND] = bound
            stats[ITERATION] += 1
            s = _tt_find(tt_keys, tt_iter, root)
            tslot[0] = _tt_record(tt_keys, tt_g, tt_iter, tt_h, stats, s, root, 0, 0,
                                  stats[ITERATION])
            gpath[0] = 0
            _open_frame(params, root, 0, sk, sc, sm, fstart, fend, fpos, fmin, stats)
            done += 1
            continue
        if done >= budget:
            return RUNNING
        if stats[TT_FULL] == 0 and 4 * stats[NODES] >= 3 * tt_keys.shape[0] - 4:
            return GROW_NODES
        c = fpos[depth]
        key = sk[c]
        g = gpath[depth] + sc[c]
        h = kernel_heuristic(params, key)
        if h >= DEAD:
            stats[PRUNED] += 1
            fpos[depth] += 1
            continue
        s = _tt_find(tt_keys, tt_iter, key)
        known = tt_iter[s] != 0
        if known and tt_h[s] > h:
            h = tt_h[s]
            if h >= DEAD:  # a subtree proved dead earlier
                fpos[depth] += 1
                continue
        f = g + h
        # Cut a state already reached no more cheaply in this iteration, and
        # the move back to the grandparent (undoing the last move).
        cut = known and tt_iter[s] == stats[ITERATION] and tt_g[s] <= g
        if not cut and depth > 0:
            grandparent = root if depth == 1 else sk[fpos[depth - 2] - 1]
            cut = keys_equal(key, grandparent)
        if not cut and f > fstats[F_BOUND]:
            cut = True
            # Remember the cut, to tell at the end whether anything is left.
            s = _tt_record(tt_keys, tt_g, tt_iter, tt_h, stats, s, key, g, h, -1)
            if s >= 0:
                tt_cut[s] = stats[ITERATION]
            else:
                stats[UNRECORDED] = 1
        if cut:
            if f < fmin[depth]:
                fmin[depth] = f
            fpos[depth] += 1
            continue
        # Descending needs room for one more frame; ask before changing state.
        if depth + 2 > max_depth or fend[depth] + max_succ > cap:
            return GROW_OPEN
        fpos[depth] += 1
        s = _tt_record(tt_keys, tt_g, tt_iter, tt_h, stats, s, key, g, h, stats[ITERATION])
        if s < 0:
            stats[UNRECORDED] = 1
        if kernel_is_goal(params, key):
            stats[GOAL] = depth + 1
            return SOLVED
        gpath[depth + 1] = g
        tslot[depth + 1] = s
        _open_frame(params, key, depth + 1, sk, sc, sm, fstart, fend, fpos, fmin, stats)
        stats[OPEN] = depth + 1
        done += 1


def _grown(a: np.ndarray) -> np.ndarray:
    out = np.zeros((2 * a.shape[0],) + a.shape[1:], dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


class IterativeDeepeningSearch:
    """Engine state of an IDA* run."""

    name = "idastar"
    progress_label = "bound"
    #: Slots of the first transposition table (a power of two); the tests
    #: start smaller, to make the table double many times in every search.
    initial_slots = 1 << 12

    def __init__(self, puzzle, memory_bytes: int):
        self.puzzle = puzzle
        K = puzzle.key_words
        self.max_succ = puzzle.max_successors
        self.root = puzzle.initial_key()
        n_frames = 64
        self.sk = np.zeros((n_frames * self.max_succ, K), dtype=np.uint64)
        self.sc = np.zeros(self.sk.shape[0], dtype=np.int32)
        self.sm = np.zeros(self.sk.shape[0], dtype=np.int64)
        self.fstart = np.zeros(n_frames, dtype=np.int64)
        self.fend = np.zeros(n_frames, dtype=np.int64)
        self.fpos = np.zeros(n_frames, dtype=np.int64)
        self.gpath = np.zeros(n_frames, dtype=np.int64)
        self.fmin = np.zeros(n_frames, dtype=np.int64)
        self.tslot = np.zeros(n_frames, dtype=np.int64)
        # Transposition table: starts small, doubles while it stays within
        # half of the memory limit, then stops recording new states.
        self.tt_budget = memory_bytes // 2
        self._new_table(self.initial_slots, K)
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.fstats = np.zeros(N_FSTATS, dtype=np.float64)
        h = int(evaluate_heuristic(puzzle.params, self.root))
        # The first iteration's bound is h(root); a dead root has no frame.
        self.fstats[F_BOUND] = min(h, DEAD)
        if h >= DEAD:
            self.stats[ITERATION] = 1
            self.fmin[0] = _INF

    def _new_table(self, slots: int, key_words: int) -> None:
        self.tt_keys = np.zeros((slots, key_words), dtype=np.uint64)
        self.tt_g = np.zeros(slots, dtype=np.int32)
        self.tt_iter = np.zeros(slots, dtype=np.int32)
        self.tt_h = np.zeros(slots, dtype=np.int32)
        self.tt_cut = np.zeros(slots, dtype=np.int32)

    def _tables(self):
        return (self.tt_keys, self.tt_g, self.tt_iter, self.tt_h, self.tt_cut)

    def _table_nbytes(self) -> int:
        return sum(a.nbytes for a in self._tables())

    def run(self, budget: int) -> int:
        """One chunk of at most ``budget`` expansions."""
        return ida_chunk(self.puzzle.params, self.root, self.sk, self.sc, self.sm,
                         self.fstart, self.fend, self.fpos, self.fmin, self.gpath,
                         self.tslot, *self._tables(), self.stats,
                         self.fstats, self.max_succ, budget)

    def load_kernels(self) -> None:
        """Compile or load every kernel a run may call (see the driver)."""
        # On a scratch engine: a zero budget still opens the root's frame,
        # which would count as an expansion of this one.
        IterativeDeepeningSearch(self.puzzle, 0).run(0)
        empty = tuple(a[:0] for a in self._tables())
        _tt_rehash(*empty, *empty)
        _tt_relocate_path(self.root, self.sk, self.fpos, self.tslot, -1,
                          self.tt_keys, self.tt_iter)

    def _stack_arrays(self):
        return (self.sk, self.sc, self.sm, self.fstart, self.fend, self.fpos, self.fmin,
                self.gpath, self.tslot)

    def nbytes(self) -> int:
        """Bytes held now."""
        return sum(a.nbytes for a in self._stack_arrays()) + self._table_nbytes()

    def grow_nbytes(self, code: int) -> int:
        """Bytes that would be held after serving ``code``."""
        if code == GROW_NODES:
            return self.nbytes()  # the table grows only within its own budget
        return self.nbytes() + sum(a.nbytes for a in self._stack_arrays())

    def grow(self, code: int) -> None:
        """Double the transposition table (or freeze it), or the stack."""
        if code == GROW_NODES:
            if 3 * self._table_nbytes() > self.tt_budget:  # old + doubled copy
                self.stats[TT_FULL] = 1
                return
            old = self._tables()
            self._new_table(2 * old[0].shape[0], old[0].shape[1])
            _tt_rehash(*old, *self._tables())
            _tt_relocate_path(self.root, self.sk, self.fpos, self.tslot,
                              int(self.stats[OPEN]), self.tt_keys, self.tt_iter)
            return
        self.sk, self.sc, self.sm = _grown(self.sk), _grown(self.sc), _grown(self.sm)
        self.fstart, self.fend = _grown(self.fstart), _grown(self.fend)
        self.fpos, self.gpath = _grown(self.fpos), _grown(self.gpath)
        self.fmin, self.tslot = _grown(self.fmin), _grown(self.tslot)

    def solution_keys(self) -> list[np.ndarray]:
        """The states from the start to the goal found."""
        depth = int(self.stats[GOAL])
        return [self.root.copy()] + [self.sk[self.fpos[d] - 1].copy() for d in range(depth)]

    def lower_bound(self) -> float | None:
        """The current threshold: no solution is cheaper (admissible h)."""
        if not self.puzzle.heuristic_admissible:
            return None
        return float(self.fstats[F_BOUND])
