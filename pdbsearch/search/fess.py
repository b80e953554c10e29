"""FESS, the feature space search (Shoham and Schaeffer, IEEE CoG 2020), the
search behind the Festival Sokoban solver: it *finds* solutions, it proves
nothing (no optimality claim, ever).

**The idea.**  An ordinary search tree (a DAG: a position is expanded once)
over the domain's *macro moves*, plus a small *feature space*: each
expanded position is projected onto a cell, the feature vector of the best
position on its path from the root (so a move that makes things worse
stays in the cell it came from).  The cells are visited in turn, and every
other iteration the best cell found so far (while it keeps improving: see
:func:`best_cell_period`); inside a cell the unexpanded
move with the least *accumulated weight* is taken, where a move weighs 0
when an advisor recommends it and 1 otherwise.  Time is shared among the
discovered cells, so the search cannot drown in one plateau of a heuristic.

The domain's side (features, macro moves, deadlock tests) is the protocol
of :mod:`.fess_protocol`; the run's arrays and the heaps of the cells are
in :mod:`.fess_space` (with what a node costs in memory); the stuck tests
that drop dead subtrees are in :mod:`.fess_stuck`.

The engine adds the generic *feature advisors* itself: for each feature,
the best-ranked new child that improves it without worsening feature 0
(the primary one, e.g. packed boxes) gets weight 0.  So a domain that
only computes features already gets Festival's packing, connectivity and
room advisors; special advisors (out-of-plan, opener, ...) set
:data:`ADVISED` in the domain.
"""

from __future__ import annotations

import math
import time

import numba as nb
import numpy as np

from ..errors import PdbsearchError
from ..puzzle import copy_key
from .common import (ENGINE_JIT_OPTIONS, EXHAUSTED, EXPANDED, F_LAST, GENERATED, GOAL,
                     GROW_NODES, NODES, N_FSTATS, N_STATS, OPEN, PRUNED, RUNNING, SOLVED,
                     STALLED)
from .fess_protocol import (ADVISED, GOAL_CHILD, MAX_CELL_FEATURES, RANK_BITS, RANK_MASK,
                            FessDomain, fess_child_key, fess_expand, fess_late_check)
from .fess_space import (ARENA_TOP, BEST_CELL, BEST_NODE, BEST_OWN, BEST_RANK, BEST_RESETS,
                         BEST_SINCE, BOUND_FEATURE, CAPPED, COST_CAP, CURSOR, DEFERRALS,
                         DEFERRED_DEAD, DROPPED, GROW_ARENA, GROW_CELLS, GROW_EDGES, ITERATION,
                         LAZY_DEAD, MAX_CAP, N_ADVISED, N_CELLS, N_DEFERRED, N_EDGES, N_FS,
                         NO_COST_CAP, NO_RANK, NODE_DEAD, NODE_EXPANDED, REPARENTED, STUCK,
                         WASTED, Arena, Buffers, Cells, Deferred, Edges, Nodes, cell_of,
                         cell_push, pack_features, rehash_cells, sift_down, sort_edges)
from .fess_stuck import MAX_DEFERRED, RETRY_EVERY, count_subtrees, doomed, retry_deferred
from .store import NodeStore, find_slot

#: Expansions without a better position after which the best cell's turns thin out.
STALE_EXPANSIONS = 2048
#: The best cell gets at least one turn in this many of its own.
MAX_BEST_PERIOD = 8

@nb.njit(cache=True, inline="always")
def _expand_node(params, x, p, keys, g, parent, slots, nodes, edges, cells, arena, fs, stats,
                 buf, n_feat, n_cell):
    """Expand stored node ``x`` (reached from ``p``, -1 for the root): write
    its children as edges, project it onto its cell, queue it there.
    Returns the index of a goal child stored as a node, or -1."""
    info = buf.self_info
    n = fess_expand(params, keys[x], info, buf.keys, buf.desc, buf.cost, buf.feat,
                    buf.rank, buf.flags)
    stats[EXPANDED] += 1
    stats[GENERATED] += n
    nodes.flags[x] |= NODE_EXPANDED
    own = info[0]
    if own < fs[BEST_OWN]:
        fs[BEST_OWN] = own
        fs[BEST_NODE] = x
    if p < 0 or own < nodes.brank[p]:
        nodes.brank[x] = own
        c = cell_of(cells, fs, pack_features(info, n_cell))
    else:
        nodes.brank[x] = nodes.brank[p]
        c = nodes.cell[p]
    nodes.cell[x] = c
    if nodes.brank[x] < cells.brank[c]:
        cells.brank[c] = nodes.brank[x]
    if nodes.brank[x] < fs[BEST_RANK]:
        fs[BEST_RANK] = nodes.brank[x]
        fs[BEST_CELL] = c
        fs[BEST_SINCE] = stats[EXPANDED]
    # Given a cost cap, a child whose cost so far and admissible bound
    # reach it is dropped (flag 128), goals too.
    flags = buf.flags
    if fs[COST_CAP] < NO_COST_CAP:
        col = fs[BOUND_FEATURE]
        for i in range(n):
            if g[x] + buf.cost[i] + buf.feat[i, col] >= fs[COST_CAP]:
                flags[i] |= 128
                fs[CAPPED] += 1
    # Goal children end the search; children already stored are dropped.
    for i in range(n):
        if flags[i] & 128:
            continue
        if flags[i] & GOAL_CHILD:
            s = find_slot(keys, slots, buf.keys[i])
            y = slots[s]
            if y < 0:
                y = stats[NODES]
                copy_key(keys[y], buf.keys[i])
                slots[s] = y
                stats[NODES] += 1
                parent[y] = x
                g[y] = g[x] + buf.cost[i]
            # A goal stored before it became one (a domain's goal set may
            # grow, as Sokoban's perimeter does) keeps its own way from the
            # root: it may be an ancestor of x, and x its parent a cycle.
            return y
        s = find_slot(keys, slots, buf.keys[i])
        if slots[s] >= 0:
            flags[i] |= 128
    # The feature advisors: per feature, the best-ranked new child that
    # improves it and does not worsen feature 0.
    for f in range(n_feat):
        best = -1
        for i in range(n):
            if flags[i] & 128:
                continue
            if buf.feat[i, f] < info[1 + f] and buf.feat[i, 0] <= info[1]:
                if best < 0 or buf.rank[i] < buf.rank[best]:
                    best = i
        if best >= 0:
            flags[best] |= ADVISED
    lo = fs[N_EDGES]
    m = lo
    for i in range(n):
        if flags[i] & 128:
            continue
        edges.desc[m] = buf.desc[i]
        edges.cost[m] = buf.cost[i]
        r = buf.rank[i]
        if flags[i] & ADVISED:
            edges.key[m] = r
            fs[N_ADVISED] += 1
        else:
            edges.key[m] = r | (np.int64(1) << np.int64(RANK_BITS))
        m += 1
    fs[N_EDGES] = m
    if m - lo > 1:
        sort_edges(edges, lo, m)
    if 0 < m - lo <= 2:
        edges.key[lo] &= RANK_MASK  # Festival: of at most two moves, the first is free
    nodes.kcur[x] = lo
    nodes.kend[x] = m
    if m > lo:
        k = edges.key[lo]
        cell_push(cells, arena, fs, stats, c, nodes.wt[x] + (k >> np.int64(RANK_BITS)),
                   k & RANK_MASK, x)
    return -1


@nb.njit(cache=True, inline="always")
def best_open_cell(cells, n_cells, skip):
    """The best-ranked cell with moves left other than ``skip`` (the first
    of equals; -1: none)."""
    best = -1
    for d in range(n_cells):
        if d != skip and cells.size[d] > 0 and (
                best < 0 or cells.brank[d] < cells.brank[best]):
            best = d
    return best


@nb.njit(cache=True)
def forget_dead_best(parent, nodes, cells, fs, stats):
    """After a stuck verdict: if it dooms the best position, the best is
    no longer that one but the best-ranked other cell with moves left, and
    the stagnation count starts again.

    A dead best position kept as the best made the best cell's turns go to
    an empty cell (the search's own fallback then took the best-ranked
    non-empty one, at the thinned period of a search that stopped
    improving) and made every later position be measured against a rank
    no live position may reach: on Kevin01 54 (``fess-only``, 20 s), the
    best position, reached after 19,850 of 51,129 expansions, had been
    proved dead and dropped, and the 31,279 expansions after it counted
    as stagnation.  It also made the best position reported
    (:meth:`FessSearch.best_keys`) one the search no longer held."""
    x = fs[BEST_NODE]
    if not doomed(parent, nodes, x):
        return
    best = best_open_cell(cells, fs[N_CELLS], nodes.cell[x])
    fs[BEST_OWN] = NO_RANK       # the next position expanded is the best one
    fs[BEST_CELL] = best
    fs[BEST_RANK] = cells.brank[best] if best >= 0 else NO_RANK
    fs[BEST_SINCE] = stats[EXPANDED]
    fs[BEST_RESETS] += 1


@nb.njit(cache=True)
def best_cell_period(stale):
    """How many of the best cell's turns pass for each one it takes, after
    ``stale`` expansions without a better position: 1 (every turn) below
    :data:`STALE_EXPANSIONS`, then 2, 4, ... as the stagnation doubles, up
    to :data:`MAX_BEST_PERIOD`.

    Festival gives the best cell every other iteration.  When that cell
    holds a dead end no test proves (the best positions of several unseen
    levels are dead, proved by A* in 38 K to 1 M positions), those turns
    are lost; a best cell that still improves keeps them all."""
    doublings = stale // STALE_EXPANSIONS
    period = 1
    while doublings > 0 and period < MAX_BEST_PERIOD:
        period *= 2
        doublings >>= 1
    return period


@nb.njit(cache=True, inline="always")
def _pick_cell(cells, fs, stats):
    """The cell of this iteration: the cursor's (advanced) on even
    iterations, the best cell on odd ones (Festival alternates) or on one
    odd iteration in :func:`best_cell_period` once it stops improving; -1
    when every heap is empty."""
    n_cells = fs[N_CELLS]
    if stats[OPEN] == 0 or n_cells == 0:
        return -1
    it = fs[ITERATION]
    fs[ITERATION] = it + 1
    # The period only on odd iterations: even ones are the cursor's anyway.
    if it % 2 == 1 and (it // 2) % best_cell_period(stats[EXPANDED] - fs[BEST_SINCE]) == 0:
        c = fs[BEST_CELL]
        if c >= 0 and cells.size[c] > 0:
            return c
        return best_open_cell(cells, n_cells, -1)
    c = fs[CURSOR] % n_cells
    while cells.size[c] == 0:
        fs[WASTED] += 1
        c = (c + 1) % n_cells
    fs[CURSOR] = (c + 1) % n_cells
    return c


@nb.njit(**ENGINE_JIT_OPTIONS)
def fess_chunk(params, keys, g, parent, slots, nodes, edges, cells, arena, stats, fstats, fs,
               buf, deferred, n_feat, n_cell, budget):
    """Run FESS for at most ``budget`` iterations (expansions or moves found
    dead by the late check)."""
    cap = keys.shape[0]
    ecap = edges.key.shape[0]
    ccap = cells.key.shape[0]
    acap = arena.w.shape[0]
    max_children = buf.desc.shape[0]
    done = 0
    while True:
        if done >= budget:
            return RUNNING
        if stats[NODES] + 2 > cap:
            return GROW_NODES
        if fs[N_EDGES] + max_children > ecap:
            return GROW_EDGES
        if fs[N_CELLS] + 1 > ccap:
            return GROW_CELLS
        if fs[ARENA_TOP] + 2 * fs[MAX_CAP] + 8 > acap:
            return GROW_ARENA
        if stats[NODES] == 0:  # the root (its goal test was the driver's)
            stats[NODES] = 1
            slots[find_slot(keys, slots, keys[0])] = 0
            nodes.wt[0] = 0
            g[0] = 0
            parent[0] = -1
            goal = _expand_node(params, 0, -1, keys, g, parent, slots, nodes, edges, cells,
                                arena, fs, stats, buf, n_feat, n_cell)
            done += 1
            if goal >= 0:
                stats[GOAL] = goal
                return SOLVED
            continue
        c = _pick_cell(cells, fs, stats)
        if c < 0:
            return EXHAUSTED
        fstats[F_LAST] = fs[N_CELLS]
        # Pop moves from this cell (then from the next ones) until one leads
        # to a position not stored yet.
        x = -1
        p = -1
        j = -1
        while x < 0:
            while cells.size[c] == 0:
                c = (c + 1) % fs[N_CELLS]
            off = cells.off[c]
            p = arena.node[off]
            if doomed(parent, nodes, p):
                # A dead subtree: its node leaves the heap with its moves.
                size = cells.size[c] - 1
                cells.size[c] = size
                stats[OPEN] -= 1
                fs[DROPPED] += 1
                nodes.kcur[p] = nodes.kend[p]
                if size > 0:
                    arena.w[off] = arena.w[off + size]
                    arena.rank[off] = arena.rank[off + size]
                    arena.node[off] = arena.node[off + size]
                    sift_down(arena, off, size, 0)
                if stats[OPEN] == 0:
                    return EXHAUSTED
                continue
            j = nodes.kcur[p]
            nodes.kcur[p] = j + 1
            if j + 1 < nodes.kend[p]:
                k = edges.key[j + 1]
                arena.w[off] = nodes.wt[p] + (k >> np.int64(RANK_BITS))
                arena.rank[off] = k & RANK_MASK
                sift_down(arena, off, cells.size[c], 0)
            else:
                size = cells.size[c] - 1
                cells.size[c] = size
                stats[OPEN] -= 1
                if size > 0:
                    arena.w[off] = arena.w[off + size]
                    arena.rank[off] = arena.rank[off + size]
                    arena.node[off] = arena.node[off + size]
                    sift_down(arena, off, size, 0)
            fess_child_key(params, keys[p], edges.desc[j], buf.tmp_key)
            s = find_slot(keys, slots, buf.tmp_key)
            if slots[s] >= 0:
                y = slots[s]
                if fs[COST_CAP] < NO_COST_CAP and g[p] + edges.cost[j] < g[y]:
                    # Capped, a cheaper way to a stored position is kept:
                    # its moves not taken yet are then taken from it.  g
                    # still grows down every parent chain (costs are
                    # positive), so no chain turns into a cycle; positions
                    # under it keep their dearer g, which only caps more.
                    g[y] = g[p] + edges.cost[j]
                    parent[y] = p
                    fs[REPARENTED] += 1
                if stats[OPEN] == 0:
                    return EXHAUSTED
                continue
            x = stats[NODES]
            copy_key(keys[x], buf.tmp_key)
            slots[s] = x
            stats[NODES] += 1
        parent[x] = p
        g[x] = g[p] + edges.cost[j]
        nodes.wt[x] = nodes.wt[p] + (edges.key[j] >> np.int64(RANK_BITS))
        nodes.kcur[x] = 0
        nodes.kend[x] = 0
        done += 1
        if fess_late_check(params, keys[x]):
            nodes.flags[x] = NODE_DEAD
            stats[PRUNED] += 1
            fs[LAZY_DEAD] += 1
            continue
        goal = _expand_node(params, x, p, keys, g, parent, slots, nodes, edges, cells, arena,
                            fs, stats, buf, n_feat, n_cell)
        if goal >= 0:
            stats[GOAL] = goal
            return SOLVED
        stuck = fs[STUCK]
        count_subtrees(params, keys, parent, nodes, fs, deferred, x)
        if fs[N_DEFERRED] > 0 and stats[EXPANDED] & (RETRY_EVERY - 1) == 0:
            retry_deferred(params, keys, parent, nodes, fs, deferred)
        if fs[STUCK] > stuck:
            forget_dead_best(parent, nodes, cells, fs, stats)


# -- the Python side -------------------------------------------------------------------

#: Seconds of preparation per call of :meth:`FessSearch.run`.
PREPARE_SLICE = 0.1


class FessSearch:
    """Engine state of a FESS run (see the module docstring)."""

    progress_label = "cells"
    name = "fess"

    def __init__(self, puzzle, limits, domain: FessDomain | None = None):
        """FESS on ``puzzle`` through its ``fess_domain(limits)`` (or the
        given ``domain``)."""
        if domain is None:
            make = getattr(puzzle, "fess_domain", None)
            if make is None:
                raise PdbsearchError(f"fess is not available for {puzzle.domain} puzzles")
            domain = make(limits)
        self.puzzle = puzzle
        self.domain = domain
        d = self.domain
        if not 1 <= d.cell_features <= min(MAX_CELL_FEATURES, d.n_features):
            raise ValueError("a FESS domain names its cell by 1 to 4 of its features")
        self.prepared = False
        self.store = NodeStore(d.key_words)
        self.store.keys[0] = d.initial_key()
        cap = self.store.capacity
        self.nodes = Nodes(np.zeros(cap, np.int32), np.zeros(cap, np.int64),
                           np.zeros(cap, np.int32), np.zeros(cap, np.uint8),
                           np.zeros(cap, np.int64), np.zeros(cap, np.int64),
                           np.zeros(cap, np.int32))
        ecap = max(1 << 14, 4 * d.max_children)
        self.edges = Edges(np.zeros(ecap, np.int64), np.zeros(ecap, np.int64),
                           np.zeros(ecap, np.int32))
        self.cells = self._new_cells(1 << 8)
        self.arena = Arena(np.zeros(1 << 12, np.int64), np.zeros(1 << 12, np.int64),
                           np.zeros(1 << 12, np.int32))
        m, f, k = d.max_children, d.n_features, d.key_words
        self.buf = Buffers(np.zeros((m, k), np.uint64), np.zeros(m, np.int64),
                           np.zeros(m, np.int32), np.zeros((m, f), np.int32),
                           np.zeros(m, np.int64), np.zeros(m, np.uint8),
                           np.zeros(f + 1, np.int64), np.zeros(k, np.uint64))
        self.deferred = Deferred(np.zeros(MAX_DEFERRED, np.int32),
                                 np.zeros(MAX_DEFERRED, np.int64))
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.fstats = np.zeros(N_FSTATS, dtype=np.float64)
        self.fs = np.zeros(N_FS, dtype=np.int64)
        self.fs[BEST_RANK] = int(NO_RANK)
        self.fs[BEST_OWN] = int(NO_RANK)
        self.fs[BEST_CELL] = -1
        self.fs[BEST_NODE] = 0
        self.fs[COST_CAP] = NO_COST_CAP
        self.fs[BOUND_FEATURE] = -1 if d.bound_feature is None else d.bound_feature
        self.prepare_seconds = 0.0
        #: Set by a search that follows this one (:mod:`.relay`): then
        #: ``published_best`` is kept current after each chunk.
        self.followed = False
        #: ``(node, keys from the start to it)`` of the best position, as of
        #: the end of the last chunk; replaced whole, so that a search in
        #: another thread reads it without a lock.
        self.published_best: tuple[int, list[np.ndarray]] = (0, [self.store.keys[0].copy()])

    @staticmethod
    def _new_cells(cap: int) -> Cells:
        return Cells(np.zeros(cap, np.int64), np.full(2 * cap, -1, np.int32),
                     np.zeros(cap, np.int64), np.zeros(cap, np.int64),
                     np.zeros(cap, np.int64), np.zeros(cap, np.int64))

    def run(self, budget: int) -> int:
        """One chunk: a slice of the domain's preparation until it is done,
        then at most ``budget`` FESS iterations."""
        if not self.prepared:
            if budget <= 0:
                return RUNNING
            t0 = time.perf_counter()
            self.prepared = self.domain.prepare(PREPARE_SLICE)
            self.prepare_seconds += time.perf_counter() - t0
            return RUNNING
        code = self._chunk(budget)
        if self.followed and int(self.fs[BEST_NODE]) != self.published_best[0]:
            self.published_best = (int(self.fs[BEST_NODE]), self.best_keys())
        return code

    def _chunk(self, budget: int) -> int:
        st, d = self.store, self.domain
        code = fess_chunk(d.params, st.keys, st.g, st.parent, st.slots, self.nodes,
                          self.edges, self.cells, self.arena, self.stats, self.fstats,
                          self.fs, self.buf, self.deferred, d.n_features, d.cell_features,
                          budget)
        if code == EXHAUSTED and (not d.complete or self.fs[COST_CAP] != NO_COST_CAP):
            # Capped, it kept only the cheapest way it met to a position
            # from those it had met: running out proves nothing.
            return STALLED
        return code

    def cap_costs(self, cost: float) -> None:
        """Look only for solutions cheaper than ``cost``
        (``Limits.cost_below``): a child whose cost from the start plus the
        domain's admissible bound (its ``bound_feature``) reaches ``cost``
        is dropped, and a cheaper way found to a stored position replaces
        the dearer one.  So FESS searches for a solution of a given cost
        (A*'s lower bound, :mod:`.incumbent`), and may still miss one: it
        proves nothing.  A domain without a bound feature is not capped."""
        if self.domain.bound_feature is not None:
            self.fs[COST_CAP] = min(int(self.fs[COST_CAP]), math.ceil(cost))

    def detach(self) -> bool:
        """Make this engine share no mutable state with the puzzle's other
        engines, so that a portfolio may run it in a thread of its own;
        True if the domain could (its ``detach()``)."""
        detach = getattr(self.domain, "detach", None)
        return bool(detach is not None and detach())

    def load_kernels(self) -> None:
        """Compile or load every kernel a run may call (see the driver)."""
        self._chunk(0)
        self.domain.load_kernels()
        self.store.load_kernels()
        rehash_cells(self._new_cells(1), 0)

    def nbytes(self) -> int:
        """Bytes held now."""
        return (self.store.nbytes() + sum(a.nbytes for a in self.nodes)
                + sum(a.nbytes for a in self.edges) + sum(a.nbytes for a in self.cells)
                + sum(a.nbytes for a in self.arena))

    def grow_nbytes(self, code: int) -> int:
        """Bytes that would be held after serving ``code``."""
        if code == GROW_NODES:
            extra = self.store.nbytes() + sum(a.nbytes for a in self.nodes)
        elif code == GROW_EDGES:
            extra = sum(a.nbytes for a in self.edges)
        elif code == GROW_CELLS:
            extra = sum(a.nbytes for a in self.cells)
        else:
            extra = 2 * sum(a.nbytes for a in self.arena)
        return self.nbytes() + extra

    def grow(self, code: int) -> None:
        """Make room as ``code`` asks."""
        if code == GROW_NODES:
            n = int(self.stats[NODES])
            self.store.grow(n)
            cap = self.store.capacity
            self.nodes = Nodes(*(_grown(a, cap, n) for a in self.nodes))
        elif code == GROW_EDGES:
            n = int(self.fs[N_EDGES])
            cap = 2 * self.edges.key.shape[0]
            self.edges = Edges(*(_grown(a, cap, n) for a in self.edges))
        elif code == GROW_CELLS:
            n = int(self.fs[N_CELLS])
            old = self.cells
            cells = self._new_cells(2 * old.key.shape[0])
            for new, prev in zip(cells, old):
                if new is not cells.slots:
                    new[:n] = prev[:n]
            rehash_cells(cells, n)
            self.cells = cells
        else:
            self._compact_arena()

    def _compact_arena(self) -> None:
        """Copy the live heap segments into a new arena with room to spare."""
        n = int(self.fs[N_CELLS])
        cells, old = self.cells, self.arena
        live = int(cells.cap[:n].sum())
        size = max(1 << 12, 2 * live + 4 * int(self.fs[MAX_CAP]) + 16)
        arena = Arena(np.zeros(size, np.int64), np.zeros(size, np.int64),
                      np.zeros(size, np.int32))
        top = 0
        for c in range(n):
            off, cap, used = int(cells.off[c]), int(cells.cap[c]), int(cells.size[c])
            for new, prev in zip(arena, old):
                new[top:top + used] = prev[off:off + used]
            cells.off[c] = top
            top += cap
        self.fs[ARENA_TOP] = top
        self.arena = arena

    def solution_keys(self) -> list[np.ndarray]:
        """The positions from the start to the goal found."""
        return [self.store.keys[i].copy() for i in self.store.path_to(int(self.stats[GOAL]))]

    def best_keys(self) -> list[np.ndarray]:
        """The positions from the start to the best-ranked one expanded
        (since the last one the stuck test proved dead: :func:`forget_dead_best`)."""
        return [self.store.keys[i].copy() for i in self.store.path_to(int(self.fs[BEST_NODE]))]

    def solution_codes(self, keys: list[np.ndarray]) -> list[int]:
        """The puzzle's move codes along ``keys`` (each macro edge unrolled)."""
        codes: list[int] = []
        for a, b in zip(keys, keys[1:]):
            codes.extend(self.domain.codes_between(a, b))
        return codes

    def lower_bound(self) -> float | None:
        """FESS proves no bound."""
        return None

    def report(self) -> dict:
        """The loop's own figures (cells, late-dead moves, advised moves ...)."""
        fs = self.fs
        return {"cells": int(fs[N_CELLS]), "lazy_dead": int(fs[LAZY_DEAD]),
                "edges": int(fs[N_EDGES]), "advised": int(fs[N_ADVISED]),
                "stuck": int(fs[STUCK]), "stuck_dropped": int(fs[DROPPED]),
                "stuck_deferrals": int(fs[DEFERRALS]),
                "stuck_deferred_dead": int(fs[DEFERRED_DEAD]),
                "dead_best_resets": int(fs[BEST_RESETS]),
                "expanded_since_best": int(self.stats[EXPANDED] - fs[BEST_SINCE]),
                "prepare_seconds": round(self.prepare_seconds, 4),
                **self._capped(), **self.domain.describe()}

    def _capped(self) -> dict:
        """Given a cost cap: the cap, the children it dropped, the
        positions reached again more cheaply."""
        fs = self.fs
        if fs[COST_CAP] == NO_COST_CAP:
            return {}
        return {"cost_below": int(fs[COST_CAP]), "capped": int(fs[CAPPED]),
                "reparented": int(fs[REPARENTED])}


def _grown(a: np.ndarray, cap: int, n: int) -> np.ndarray:
    out = np.zeros((cap,) + a.shape[1:], dtype=a.dtype)
    out[:n] = a[:n]
    return out
