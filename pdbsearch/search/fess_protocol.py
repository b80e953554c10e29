"""The FESS protocol: what a domain supplies to the feature space search
(:mod:`.fess`), and the registry through which the engine finds it.

**The domain protocol.**  A domain supplies its features and macro moves
through jitted kernels registered for its params class with
:func:`register_fess_kernels` (dispatched at compile time like the kernels
of :mod:`pdbsearch.puzzle`, so numba's on-disk cache works):

``expand(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank, out_flags) -> n``
    The macro moves of the position ``key``: child ``i`` has the key
    ``out_keys[i]``, an opaque int64 descriptor ``out_desc[i]`` from which
    :func:`fess_child_key` rebuilds the key later (children are stored as
    descriptors, not keys, until they are chosen), the cost ``out_cost[i]``
    (e.g. pushes), the features ``out_feat[i, :F]`` (smaller is better; the
    first ``cell_features`` of them name the cell), the rank
    ``out_rank[i]`` in ``[0, 2**62)`` (the domain's whole quality order,
    smaller is better: used to pick the best ancestor, to break ties
    between moves and to find the best cell) and ``out_flags[i]``
    (:data:`ADVISED`: a domain advisor recommends it; :data:`GOAL_CHILD`: a
    goal).  It also writes the position's own rank and features into
    ``self_info`` (``[rank, f0, f1, ...]``).  Cheap deadlock tests belong
    here (a dead child is simply not written).
``child_key(p, parent_key, desc, out_key)``
    The key of the child with descriptor ``desc``.
``late_check(p, key) -> bool``
    True when the position is dead: the expensive tests, run only on the
    move chosen for expansion (Festival's lazy deadlock check).
``stuck_check(p, key, again) -> int`` (optional)
    :data:`PROVED_DEAD` when the position is dead, by a costlier test that
    may learn something (Festival's stuck patterns); the engine asks it of
    a position once :data:`SUBTREE_CHECK` expansions have been made under
    it, and a dead verdict drops the position's whole subtree.
    :data:`NOT_PROVED` when it proves nothing; :data:`ASK_LATER` when a
    test could not run for want of budget.  The engine then keeps the
    position among the :data:`.fess_stuck.MAX_DEFERRED` best-ranked ones deferred and
    asks again (``again`` = 1: the domain may skip what it ran the first
    time) before the first test of a position ranked worse, and every
    :data:`.fess_stuck.RETRY_EVERY` expansions.  So when tests are rationed, the best
    positions get them: those are where the search keeps coming back, and
    a dead one among them holds the whole search (the best position FESS
    had reached on a level of 11 boxes, dead, proved so by 382 positions
    of the probe, was never tested: the budget was spent when its
    subtree reached the mark).

The engine (:mod:`.fess`) adds the generic *feature advisors* itself;
special advisors (out-of-plan, opener, ...) set :data:`ADVISED` in the
domain.

The Python side of a domain is a :class:`FessDomain`, returned by the
puzzle's ``fess_domain(limits)``: the params, the feature counts, the
per-level preparation (run in slices inside the search's time, so limits
and Ctrl-C hold during it) and the move codes of a macro edge for the
replay.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.extending import overload

from ..puzzle import KERNEL_JIT_OPTIONS, kernel_jit

#: ``out_flags`` bits of a child.
ADVISED = 1       #: a domain advisor recommends this move (weight 0)
GOAL_CHILD = 2    #: the child is a goal position

#: Ranks are below 2**RANK_BITS; the move weight (0/1) sits above them.
RANK_BITS = 62
RANK_MASK = (1 << RANK_BITS) - 1
#: Largest value of a cell feature (each takes 16 bits of the cell key).
MAX_CELL_FEATURE = (1 << 16) - 1
#: Most features that name a cell.
MAX_CELL_FEATURES = 4

#: Expansions under a position after which the domain's ``stuck_check``
#: runs on it (Festival's 64).
SUBTREE_CHECK = 64

#: Verdicts of a domain's ``stuck_check``.
NOT_PROVED = 0    #: no test proved the position dead
PROVED_DEAD = 1   #: the position is dead
ASK_LATER = 2     #: a test could not run now (its budget is spent)

_KERNELS: dict[type, dict] = {}


@kernel_jit
def never_stuck(p, key, again):
    """The ``stuck_check`` of a domain that has none."""
    return NOT_PROVED


def register_fess_kernels(params_class: type, *, expand, child_key, late_check,
                          stuck_check=never_stuck) -> None:
    """Register a domain's FESS kernels for its params class (see the
    module docstring); call it at import time of the domain module."""
    _KERNELS[params_class] = {"expand": expand, "child_key": child_key,
                              "late_check": late_check, "stuck_check": stuck_check}


def _lookup(params_type, name: str):
    cls = getattr(params_type, "instance_class", None)
    if cls not in _KERNELS:
        raise TypeError(f"no FESS kernels registered for {params_type}")
    return _KERNELS[cls][name]


def fess_expand(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank,
                out_flags):
    """The domain's macro moves (dispatched inside numba)."""
    raise NotImplementedError("only callable from jitted code")


def fess_child_key(p, parent_key, desc, out_key):
    """The domain's child key from a descriptor (dispatched inside numba)."""
    raise NotImplementedError("only callable from jitted code")


def fess_late_check(p, key):
    """The domain's lazy deadlock check (dispatched inside numba)."""
    raise NotImplementedError("only callable from jitted code")


def fess_stuck_check(p, key, again):
    """The domain's stuck test (dispatched inside numba)."""
    raise NotImplementedError("only callable from jitted code")


@overload(fess_expand, jit_options=KERNEL_JIT_OPTIONS, inline="always")
def _overload_expand(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank,
                     out_flags):
    fn = _lookup(p, "expand")

    def impl(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank, out_flags):
        return fn(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank,
                  out_flags)
    return impl


@overload(fess_child_key, jit_options=KERNEL_JIT_OPTIONS, inline="always")
def _overload_child_key(p, parent_key, desc, out_key):
    fn = _lookup(p, "child_key")

    def impl(p, parent_key, desc, out_key):
        fn(p, parent_key, desc, out_key)
    return impl


@overload(fess_late_check, jit_options=KERNEL_JIT_OPTIONS, inline="always")
def _overload_late_check(p, key):
    fn = _lookup(p, "late_check")

    def impl(p, key):
        return fn(p, key)
    return impl


@overload(fess_stuck_check, jit_options=KERNEL_JIT_OPTIONS, inline="always")
def _overload_stuck_check(p, key, again):
    fn = _lookup(p, "stuck_check")

    def impl(p, key, again):
        return fn(p, key, again)
    return impl


@nb.njit(**KERNEL_JIT_OPTIONS)
def stuck_check_once(p, key, again=0):
    """The domain's stuck test of one position (called from Python): its
    verdict, :data:`PROVED_DEAD`, :data:`NOT_PROVED` or :data:`ASK_LATER`."""
    return fess_stuck_check(p, key, again)


@nb.njit(**KERNEL_JIT_OPTIONS)
def expand_once(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank,
                out_flags):
    """The domain's FESS expansion of one position (called from Python:
    tests and tools)."""
    return fess_expand(p, key, self_info, out_keys, out_desc, out_cost, out_feat, out_rank,
                       out_flags)


@nb.njit(**KERNEL_JIT_OPTIONS)
def child_key_once(p, parent_key, desc, out_key):
    """The domain's child key of one descriptor (called from Python)."""
    fess_child_key(p, parent_key, desc, out_key)


@nb.njit(**KERNEL_JIT_OPTIONS)
def late_check_once(p, key):
    """The domain's lazy deadlock check of one position (called from Python)."""
    return fess_late_check(p, key)


class FessDomain:
    """The Python half of a domain's FESS support (subclass it).

    Attributes: ``params`` (registered with :func:`register_fess_kernels`;
    it may be replaced by :meth:`prepare`, keeping its type),
    ``n_features`` (F), ``cell_features`` (how many of them name a cell,
    at most :data:`MAX_CELL_FEATURES`), ``max_children`` (most children of
    one expansion), ``key_words``, ``complete`` (False when the moves may
    miss every solution: an exhausted search then proves nothing, and
    ends as :data:`.common.STALLED`), ``bound_feature`` (the index of a
    feature that is an admissible bound on a position's cost to a goal, so
    that a search can be capped, :meth:`.fess.FessSearch.cap_costs`;
    None: none is).
    """

    params = None
    puzzle = None
    n_features = 1
    cell_features = 1
    max_children = 1
    key_words = 1
    complete = True
    bound_feature: int | None = None

    def initial_key(self) -> np.ndarray:
        """The root's key (by default the puzzle's start)."""
        return self.puzzle.initial_key()

    def prepare(self, seconds: float) -> bool:
        """Do up to about ``seconds`` of per-level work; True once done (the
        search calls it between chunks until then)."""
        return True

    def load_kernels(self) -> None:
        """Compile (or load) the preparation and replay kernels now."""

    def codes_between(self, parent_key: np.ndarray, child_key: np.ndarray) -> list[int]:
        """The puzzle's move codes of one macro edge, for the replay."""
        raise NotImplementedError

    def describe(self) -> dict:
        """What the preparation found (for reports); empty by default."""
        return {}
