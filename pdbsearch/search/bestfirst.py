"""Best-first search: A* (α = 1), weighted A* (f = g + α·h) and greedy (f = h).

One kernel serves all three.  Nodes are tested for the goal when expanded,
so A* with an admissible heuristic returns an optimal solution, and weighted
A* a solution of cost at most α × optimal.  When a cheaper path to a stored
state is found, the state is reopened, which keeps these guarantees for
inconsistent (but admissible) heuristics too.  A goal test may also accept
a position known to reach the goal (Sokoban's perimeter, filled while the
search runs); with ``requeue_goals`` such a position is accepted only at
its current f (its heuristic then is its exact distance), and queued again
if it was queued with less, so that the guarantees hold for it too.  States the heuristic proves
dead are stored as closed, so that they are not evaluated again.

**Lazy A*** (Tolpin, Beja, Shimony, Felner and Karpas, IJCAI 2013).  When
the puzzle's heuristic is the larger of a cheap bound and a dear one
(:attr:`~pdbsearch.puzzle.Puzzle.lazy_bound`: Sokoban's matching and its
pattern tables), A* queues each node it generates (or reaches more
cheaply) with the cheap bound only, marked as not yet refined (its node
number stored as ``-(node + 1)`` in the heap).  When such an entry comes
first, the dear bound is computed; if it raises f past the next entry's,
the node goes back in the queue at its new f, else it is expanded at once.
The dear bound is thus paid for the nodes that come first, not for every
node generated (a Sokoban expansion generates several; most are never
expanded).  Where it hardly ever raises an f (on many large Sokoban levels
the matching is never below it), A* stops paying for it and only samples
it (:data:`REFINE_WINDOW`).  Either way each node is expanded at an f of
an admissible bound, so A* stays optimal.  ``solve --json`` reports the
counts (``refined``, ``refined_raised``, ``refine_every``).  Only A*
(α = 1) defers: weighted A* and greedy search keep their order by the
whole bound.

**Given a known cost** (``Limits.cost_below``: a solution found elsewhere,
or the stretch a shortening window tries to beat), A* neither stores nor
queues a node whose f reaches it: no path through it is cheaper, so only
memory and time are saved.  Should the nodes under the cost run out, every
one was expanded and none was a goal: the known cost is then the lower
bound, which proves that solution optimal.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..puzzle import (DEAD, copy_key, kernel_expand, kernel_first_bound, kernel_heuristic,
                      kernel_is_goal, kernel_refine)
from .common import (ENGINE_JIT_OPTIONS, EXHAUSTED, EXPANDED, F_LAST, F_LOWER, GENERATED, GOAL,
                     GROW_NODES, GROW_OPEN, NODES, N_FSTATS, N_STATS, OPEN, PRUNED, RUNNING,
                     SOLVED, evaluate_heuristic, successor_buffers)
from .heap import Heap, heap_pop, heap_push
from .store import NodeStore, find_slot

# Slots of ``stats`` of this engine's own (see common.py for the shared ones).
TAKEN = 7         #: lazy A*: unrefined nodes taken from the queue
REFINED = 8       #: ... whose dear bound was computed
RAISED = 9        #: ... and raised their f or proved them dead
CAPPED = 10       #: A* given a known cost: nodes not queued, their f at or past it

#: Lazy A* watches what its dear bound buys: every REFINE_WINDOW
#: refinements, if fewer than USEFUL_SHARE of them raised an f or proved a
#: node dead, it refines only one unrefined node in SAMPLE_EVERY (the others
#: are expanded at the cheap bound's f: each bound is admissible, so A*
#: stays optimal), until the samples say the dear bound pays again.
REFINE_WINDOW = 20_000
USEFUL_SHARE = 0.01
SAMPLE_EVERY = 16


@nb.njit(**ENGINE_JIT_OPTIONS)
def best_first_chunk(params, keys, g, parent, closed, slots, hf, hg, hn,
                     stats, fstats, g_weight, h_weight, requeue_goals, refine_every, f_cap,
                     budget, out_keys, out_costs, out_moves):
    """Run best-first search for at most ``budget`` expansions.  With
    ``refine_every`` ≥ 1 (lazy A*, see the module doc) nodes are queued with
    the cheap bound, and every ``refine_every``-th of them taken first is
    refined with the dear one; 0: queued with the whole heuristic.  Nodes
    whose f reaches ``f_cap`` are not queued (A* given a known cost, see
    :meth:`BestFirstSearch.cap_costs`; infinity: none)."""
    lazy = refine_every > 0
    cap = keys.shape[0]
    hcap = hf.shape[0]
    max_succ = out_keys.shape[0]
    done = 0
    while stats[OPEN] > 0:
        if done >= budget:
            return RUNNING
        if stats[NODES] + max_succ > cap:
            return GROW_NODES
        if stats[OPEN] + max_succ > hcap:
            return GROW_OPEN
        f, gn, node, size = heap_pop(hf, hg, hn, stats[OPEN])
        stats[OPEN] = size
        unrefined = node < 0
        if unrefined:
            node = -node - 1
        if closed[node] or gn != g[node]:
            continue  # a stale entry: the node was reached more cheaply since
        if unrefined:
            stats[TAKEN] += 1
        if unrefined and stats[TAKEN] % refine_every == 0:
            stats[REFINED] += 1
            dear = kernel_refine(params, keys[node])
            if dear >= DEAD:
                closed[node] = 1
                stats[PRUNED] += 1
                stats[RAISED] += 1
                continue
            refined = g_weight * gn + h_weight * dear
            if refined > f:
                stats[RAISED] += 1
                f = refined
                if f >= f_cap:
                    stats[CAPPED] += 1
                    continue
                # Still first in the queue: expanded now, not queued again.
                if stats[OPEN] > 0 and (hf[0] < f or (hf[0] == f and hg[0] > gn)):
                    stats[OPEN] = heap_push(hf, hg, hn, stats[OPEN], f, gn, node)
                    continue
        if f > fstats[F_LOWER]:
            fstats[F_LOWER] = f
        if kernel_is_goal(params, keys[node]):
            if requeue_goals:
                # Its heuristic is now its exact distance, so taking it ends
                # the search at cost g + h.  Queued before that distance was
                # known, its f was only a bound: it waits until the f taken
                # reaches that cost (every f taken is at most α × optimal).
                cost = gn + kernel_heuristic(params, keys[node])
                if cost > f:
                    if cost >= f_cap:
                        stats[CAPPED] += 1
                    else:
                        stats[OPEN] = heap_push(hf, hg, hn, stats[OPEN], cost, gn, node)
                    continue
            stats[GOAL] = node
            return SOLVED
        closed[node] = 1
        stats[EXPANDED] += 1
        done += 1
        fstats[F_LAST] = f
        n = kernel_expand(params, keys[node], out_keys, out_costs, out_moves)
        stats[GENERATED] += n
        for i in range(n):
            ng = gn + out_costs[i]
            s = find_slot(keys, slots, out_keys[i])
            idx = slots[s]
            if idx >= 0 and ng >= g[idx]:
                continue
            # A new node, or a cheaper way to a stored one (often one still queued).
            if lazy:
                h = kernel_first_bound(params, out_keys[i])
            else:
                h = kernel_heuristic(params, out_keys[i])
            fc = g_weight * ng + h_weight * h
            if fc >= f_cap and h < DEAD:
                # No path through it costs less than the known cost: neither
                # stored nor queued (reached again more cheaply, it is looked at again).
                stats[CAPPED] += 1
                continue
            if idx < 0:
                idx = stats[NODES]
                copy_key(keys[idx], out_keys[i])
                slots[s] = idx
                stats[NODES] += 1
                if h >= DEAD:
                    g[idx] = ng
                    parent[idx] = node
                    closed[idx] = 1  # remembered, never expanded
                    stats[PRUNED] += 1
                    continue
            elif h >= DEAD:
                continue
            g[idx] = ng
            parent[idx] = node
            closed[idx] = 0
            stats[OPEN] = heap_push(hf, hg, hn, stats[OPEN], fc, ng, -idx - 1 if lazy else idx)
    if stats[CAPPED] > 0 and f_cap > fstats[F_LOWER]:
        # Every node under the cap was expanded, none a goal: the cap bounds the optimum.
        fstats[F_LOWER] = f_cap
    return EXHAUSTED


class BestFirstSearch:
    """Engine state of an A* / weighted A* / greedy run."""

    progress_label = "f"

    def __init__(self, puzzle, weight: float = 1.0, greedy: bool = False):
        self.puzzle = puzzle
        self.weight = float(weight)
        self.greedy = greedy
        self.name = "greedy" if greedy else ("astar" if self.weight == 1.0 else "wastar")
        #: Accept a goal only at its exact f (see the module doc): on when a
        #: search backwards fills the goal set while a bounded search runs.
        self.requeue_goals = False
        #: Lazy A* (see the module doc): A* over a heuristic with a dear half.
        self.lazy = (not greedy and self.weight == 1.0 and puzzle.lazy_bound)
        #: refine every n-th unrefined node taken (0: not lazy)
        self.refine_every = 1 if self.lazy else 0
        #: A* given a known cost: nodes whose f reaches it are not queued.
        self.f_cap = np.inf
        self._window_start = (0, 0)     # REFINED, RAISED at the last look
        self.store = NodeStore(puzzle.key_words)
        self.closed = np.zeros(self.store.capacity, dtype=np.uint8)
        self.heap = Heap()
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.fstats = np.zeros(N_FSTATS, dtype=np.float64)
        self.buffers = successor_buffers(puzzle)
        root = puzzle.initial_key()
        st = self.store
        st.keys[0] = root
        st.slots[find_slot(st.keys, st.slots, root)] = 0
        self.stats[NODES] = 1
        h = int(evaluate_heuristic(puzzle.params, root))
        if h < DEAD:
            f = self.h_weight * h
            self.stats[OPEN] = heap_push(self.heap.f, self.heap.g, self.heap.node, 0, f, 0, 0)
            self.fstats[F_LOWER] = h if self.weight == 1.0 else 0.0
        else:
            self.closed[0] = 1

    @property
    def g_weight(self) -> float:
        """The weight of g in f (0 for greedy search)."""
        return 0.0 if self.greedy else 1.0

    @property
    def h_weight(self) -> float:
        """The weight α of h in f."""
        return self.weight

    def run(self, budget: int) -> int:
        """One chunk of at most ``budget`` expansions."""
        st, hp = self.store, self.heap
        if self.lazy:
            self._watch_refinements()
        return best_first_chunk(self.puzzle.params, st.keys, st.g, st.parent,
                                self.closed, st.slots, hp.f, hp.g, hp.node,
                                self.stats, self.fstats, self.g_weight,
                                self.h_weight, self.requeue_goals, self.refine_every,
                                self.f_cap, budget, *self.buffers)

    def cap_costs(self, cost: float) -> None:
        """A solution of ``cost`` is known (``Limits.cost_below``): A* need
        not queue a node whose f reaches it, since no path through it is
        cheaper (memory and time saved; the lower bound proves the known
        solution optimal as before).  Only A* over an admissible bound
        caps, and only ever lower: nodes left out are not queued again."""
        if self.lower_bound() is not None:
            self.f_cap = min(self.f_cap, float(cost))

    def _watch_refinements(self) -> None:
        """Refine every node, or a sample, as the last window's share of
        useful refinements says (see :data:`REFINE_WINDOW`)."""
        refined, raised = int(self.stats[REFINED]), int(self.stats[RAISED])
        done = refined - self._window_start[0]
        if done >= REFINE_WINDOW:
            useful = (raised - self._window_start[1]) / done
            self.refine_every = 1 if useful >= USEFUL_SHARE else SAMPLE_EVERY
            self._window_start = (refined, raised)

    def load_kernels(self) -> None:
        """Compile or load every kernel a run may call (see the driver)."""
        self.run(0)
        self.store.load_kernels()

    def nbytes(self) -> int:
        """Bytes held now."""
        return self.store.nbytes() + self.closed.nbytes + self.heap.nbytes()

    def grow_nbytes(self, code: int) -> int:
        """Bytes that would be held after serving ``code``."""
        if code == GROW_NODES:
            return self.nbytes() + self.store.nbytes() + self.closed.nbytes
        return self.nbytes() + self.heap.nbytes()

    def grow(self, code: int) -> None:
        """Make room as ``code`` asks."""
        if code == GROW_NODES:
            self.store.grow(int(self.stats[NODES]))
            closed = np.zeros(self.store.capacity, dtype=np.uint8)
            closed[:self.closed.shape[0]] = self.closed
            self.closed = closed
        else:
            self.heap.grow()

    def solution_keys(self) -> list[np.ndarray]:
        """The states from the start to the goal found."""
        return [self.store.keys[i].copy() for i in self.store.path_to(int(self.stats[GOAL]))]

    def report(self) -> dict:
        """Lazy A*'s figures (none when it does not defer): the nodes whose
        dear bound was computed, of those the ones whose f it raised or that
        it proved dead, and whether it refines every node (1) or samples
        (:data:`SAMPLE_EVERY`) at the end; with a known cost, the nodes left
        out (``capped``, :meth:`cap_costs`)."""
        out = {}
        if self.lazy:
            out.update(refined=int(self.stats[REFINED]), refined_raised=int(self.stats[RAISED]),
                       refine_every=self.refine_every)
        if self.f_cap < np.inf:
            out["capped"] = int(self.stats[CAPPED])
        return out

    def lower_bound(self) -> float | None:
        """The largest f expanded so far bounds the optimum (A* only)."""
        if self.greedy or self.weight != 1.0 or not self.puzzle.heuristic_admissible:
            return None
        return float(self.fstats[F_LOWER])
