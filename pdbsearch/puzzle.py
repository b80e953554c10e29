"""The generic puzzle interface that every domain implements.

A domain has two halves:

* **The jitted half** (what the search engines call, once per node, inside
  numba).  A domain defines a ``NamedTuple`` class holding everything its
  kernels need (board geometry, tables, the chosen heuristic, a pattern
  database ...) and registers three jitted kernels for that class with
  :func:`register_kernels`.  A class marked with
  :func:`pdbsearch.byref.by_reference` and passed through
  :func:`~pdbsearch.byref.to_ref` reaches the kernels as one pointer
  instead of by value (Sokoban's: about 75 arrays, which made each kernel
  that took them slow to compile):

  ``expand(params, key, out_keys, out_costs, out_moves) -> int``
      Writes the successors of the state ``key`` (a ``uint64[K]`` row) into
      ``out_keys[i, :]`` with their edge costs and integer move codes, and
      returns how many there are (at most :attr:`Puzzle.max_successors`).
  ``heuristic(params, key) -> int``
      A lower bound on the cost to a goal (when the heuristic is
      admissible), or :data:`DEAD` when the state provably cannot reach a
      goal; the engines then drop the state.
  ``is_goal(params, key) -> bool``

  A domain whose heuristic is the larger of a cheap bound and a dear one
  may also register the two halves (``first_bound`` and ``refine``, each
  ``(params, key) -> int`` with the same DEAD convention): A* then computes
  the dear one only for the nodes it is about to expand, not for every
  node it generates (lazy A*, see :mod:`pdbsearch.search.bestfirst`).

  The engines call them through :func:`kernel_expand`, :func:`kernel_heuristic`,
  :func:`kernel_is_goal`, :func:`kernel_first_bound` and
  :func:`kernel_refine`, which numba resolves at compile time from the
  type of ``params``.  This gives one A* for all puzzles, no Python call per
  node, and, unlike passing jitted functions as arguments, it works with
  numba's on-disk cache (a function that takes a dispatcher argument is
  recompiled in every new process).

* **The Python half** (:class:`Puzzle`): the initial key, rendering,
  describing moves, and replaying a solution with an independent checker
  that does not use the kernels.

States are canonical: two positions that are the same for the rules (for
example, interchangeable pieces swapped) have the same key, so the engines
can detect duplicates by comparing keys.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

import warnings

import numba as nb
import numpy as np
from numba.core.errors import NumbaIRAssumptionWarning
from numba.core.registry import CPUDispatcher
from numba.extending import overload

from ._jit_cache import tolerate_unreadable_indexes
from .compile_time import listen_for_compiles
from .errors import InternalError, PdbsearchError

if TYPE_CHECKING:  # pragma: no cover
    from .pictures.frame import Film

# Inlining the domain kernels into the engines makes numba's internal
# pedantic SSA check complain about variables it renamed; the code is fine.
warnings.filterwarnings("ignore", category=NumbaIRAssumptionWarning)

# The engines are generic: a domain defined in a test or a user's script
# must not leave an index the next process cannot read.
tolerate_unreadable_indexes()
# Every compile from the first on is tallied (time limits leave it out) and
# the first tells the command's note (pdbsearch.compile_time).
listen_for_compiles()

#: Heuristic value meaning "no goal can be reached from here": prune.
DEAD = 1 << 30

#: Compile options of the per-node kernels a domain does not inline into the
#: engines (and of the engines themselves).  Without numba's reference
#: counting (``_nrt=False``): a call that passes a params tuple otherwise
#: increments and decrements the count of every array in it, on entry and
#: exit: 71 arrays for Sokoban, several hundred nanoseconds a call, paid by
#: every expansion and every child's bound.  Such kernels must allocate
#: nothing, which is what a per-node kernel should do anyway: an allocation
#: fails to compile ("NRT required but not enabled") rather than leaking.
# nogil: a portfolio runs engines in threads of their own (search.portfolio).
KERNEL_JIT_OPTIONS = {"cache": True, "_nrt": False, "nogil": True}


class _JittedOnlyDispatcher(CPUDispatcher):
    """A dispatcher compiled without the wrappers Python needs to call it."""

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.py_func.__module__}.{self.py_func.__qualname__} is compiled "
                        "for jitted callers only; call it through a jitted function")


def jitted_only(**options) -> Callable:
    """``numba.njit(**options)`` (default ``cache=True``) for a function only
    jitted code calls: without numba's CPython and cfunc wrappers.

    Numba builds both wrappers for every function it compiles, whether
    Python ever calls it or not, and a wrapper unboxes every array of the
    arguments: for a kernel that takes Sokoban's params tuple (about 70
    arrays) they were about 40 % of its compile time, and a first ``--algo
    fess`` run compiles dozens of such kernels (``scripts/bench_compile.py``).
    A call from Python raises TypeError (numba itself would crash: it has no
    entry point for such a function); Python reaches these kernels through a
    jitted function (e.g. :func:`pdbsearch.search.fess_protocol.stuck_check_once`).
    """
    options = {"cache": True, **options, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}

    def decorate(function: Callable) -> Callable:
        dispatcher = nb.njit(**options)(function)
        dispatcher.__class__ = _JittedOnlyDispatcher
        return dispatcher
    return decorate


#: The decorator of a per-node kernel: :data:`KERNEL_JIT_OPTIONS`, jitted callers only.
kernel_jit = jitted_only(**KERNEL_JIT_OPTIONS)

_KERNELS: dict[type, dict[str, Callable]] = {}


@kernel_jit
def no_refinement(params, key):
    """The dear half of a heuristic that has none: no bound (0)."""
    return 0


def register_kernels(params_class: type, *, expand: Callable,
                     heuristic: Callable, is_goal: Callable,
                     first_bound: Callable | None = None,
                     refine: Callable | None = None) -> None:
    """Register the jitted kernels of a domain for its params class.

    ``first_bound`` and ``refine`` (both or neither) split ``heuristic``
    into a cheap and a dear bound whose larger is ``heuristic``'s value
    (see the module doc); without them the first bound is the heuristic and
    there is nothing to refine.  Must be called at import time of the
    domain module, before any engine is compiled for that params class.
    """
    if (first_bound is None) != (refine is None):
        raise InternalError("a domain registers both halves of its heuristic or neither")
    _KERNELS[params_class] = {"expand": expand, "heuristic": heuristic,
                              "is_goal": is_goal,
                              "first_bound": first_bound or heuristic,
                              "refine": refine or no_refinement}


def _lookup(params_type, name: str) -> Callable:
    cls = getattr(params_type, "instance_class", None)
    if cls not in _KERNELS:
        raise TypeError(f"no puzzle kernels registered for {params_type}")
    return _KERNELS[cls][name]


def kernel_expand(params, key, out_keys, out_costs, out_moves):
    """Successors of ``key`` (dispatched to the domain's kernel inside numba)."""
    raise NotImplementedError("only callable from jitted code")


def kernel_heuristic(params, key):
    """Heuristic value of ``key`` (dispatched to the domain's kernel)."""
    raise NotImplementedError("only callable from jitted code")


def kernel_is_goal(params, key):
    """Goal test of ``key`` (dispatched to the domain's kernel)."""
    raise NotImplementedError("only callable from jitted code")


def kernel_first_bound(params, key):
    """The cheap half of the heuristic of ``key`` (dispatched)."""
    raise NotImplementedError("only callable from jitted code")


def kernel_refine(params, key):
    """The dear half of the heuristic of ``key`` (dispatched)."""
    raise NotImplementedError("only callable from jitted code")


@overload(kernel_expand, jit_options=KERNEL_JIT_OPTIONS, inline="always")
def _overload_expand(params, key, out_keys, out_costs, out_moves):
    fn = _lookup(params, "expand")

    def impl(params, key, out_keys, out_costs, out_moves):
        return fn(params, key, out_keys, out_costs, out_moves)
    return impl


def _state_kernel_overload(name: str) -> Callable:
    """The overload of a ``(params, key)`` kernel: the domain's kernel
    ``name`` for the type of ``params``."""
    def overload_for(params, key):
        fn = _lookup(params, name)

        def impl(params, key):
            return fn(params, key)
        return impl
    return overload_for


for _stub, _name in ((kernel_heuristic, "heuristic"), (kernel_is_goal, "is_goal"),
                     (kernel_first_bound, "first_bound"), (kernel_refine, "refine")):
    overload(_stub, jit_options=KERNEL_JIT_OPTIONS, inline="always")(_state_kernel_overload(_name))


@nb.njit(**KERNEL_JIT_OPTIONS)
def expand_into(params, key, out_keys, out_costs, out_moves):
    """The domain successors of one state (called from Python, rarely)."""
    return kernel_expand(params, key, out_keys, out_costs, out_moves)


def successor_buffers(puzzle: "Puzzle") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Output arrays large enough for one expansion of ``puzzle``."""
    n = puzzle.max_successors
    return (np.zeros((n, puzzle.key_words), dtype=np.uint64),
            np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int64))


@nb.njit(cache=True, inline="always")
def copy_key(dst, src):
    """Copy the words of key ``src`` into ``dst`` (kernels and engines).  A
    loop, not ``dst[:] = src``: numba's slice assignment checks for overlap
    and may copy through a temporary array, an allocation per state."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@dataclass(frozen=True)
class Step:
    """One move of a solution, as the Python side describes it."""

    code: int          #: the kernel's integer move code
    cost: int          #: its edge cost
    text: str          #: human-readable description, e.g. ``"B down 2"``


class Puzzle(ABC):
    """A puzzle instance that the generic search engines can solve.

    Subclasses set :attr:`domain`, :attr:`metric`, :attr:`params` (the
    registered NamedTuple instance), :attr:`key_words` and
    :attr:`max_successors`, and implement the abstract methods.
    """

    domain: str = ""
    metric: str = ""
    _params: Any = None
    #: name of the heuristic in use (``"zero"`` means none)
    heuristic_name: str = "zero"
    #: True when the heuristic is a lower bound (the engines then report
    #: optimality / bounds honestly)
    heuristic_admissible: bool = True
    #: True when the domain registered a dear half of its heuristic
    #: (``refine``) and the heuristic chosen uses it: A* then defers it to
    #: the nodes it expands (lazy A*)
    lazy_bound: bool = False
    #: True when every edge costs 1 (BFS is optimal only then)
    unit_costs: bool = True
    key_words: int = 1
    max_successors: int = 1

    @property
    def params(self) -> Any:
        """The registered NamedTuple the kernels read (prepared on first use)."""
        if self._params is None:
            self.prepare()
        return self._params

    @params.setter
    def params(self, value: Any) -> None:
        self._params = value

    def prepare(self, deadline: float | None = None, memory_limit: int | None = None) -> None:
        """Make :attr:`params` ready, obtaining what is costly (a pattern
        database found or built) within ``deadline`` (a
        :func:`time.perf_counter` value) and ``memory_limit`` (bytes of
        process memory); raises :class:`~pdbsearch.errors.ResourceLimit`
        when they stop it.  The search calls it (unless the start is
        solved already), so that its limits cover this work; it does
        nothing once done."""
        if self._params is None:
            self._params = self.make_params(deadline, memory_limit)

    def make_params(self, deadline: float | None, memory_limit: int | None) -> Any:
        """Build the params (see :meth:`prepare`); domains override it."""
        raise NotImplementedError

    @abstractmethod
    def start_is_goal(self) -> bool:
        """True when the start position is solved (plain Python: no table
        is needed, or built, to tell)."""

    def tune(self, algo: str, weight: float) -> None:
        """Called by :func:`pdbsearch.search.solve` once :attr:`params` are
        ready, with the algorithm chosen: a domain may set its kernels'
        params for it (Sokoban learns deadlocks only where that pays).
        Nothing by default."""

    def make_unit_costs(self) -> bool:
        """Make every move cost 1, where the domain can without losing a
        solution or an optimum (for BFS, which counts moves); True when
        every move then costs 1.  By default nothing changes:
        :attr:`unit_costs` answers."""
        return self.unit_costs

    def check_algorithm(self, algo: str) -> None:
        """Raise :class:`~pdbsearch.errors.PdbsearchError` when this puzzle
        cannot be searched by ``algo`` (called before any table is built);
        every algorithm is accepted by default."""

    def backward_search(self, limits) -> Any:
        """An engine that searches backwards from the goal, breadth-first,
        beside A*, or None (the default): the positions it
        stores become goals of the forward search, their heuristic their
        exact distance, and every position it does not hold gets at least
        its depth + 1 (Sokoban's perimeter, :mod:`pdbsearch.search.bidirectional`).
        Created when the search starts, after :meth:`tune`; besides the
        engine protocol it answers ``floor_raised()``, how many bounds its
        floor raised so far (its share of the time follows that)."""
        return None

    def incumbent_finder(self) -> "tuple[str, Puzzle] | None":
        """A fast solver that A* may ask for a solution, whose cost then
        bounds the optimum from above (:mod:`pdbsearch.search.incumbent`):
        ``(algorithm, a fresh copy of this puzzle)``, or None (the default).
        The copy's moves must be this puzzle's (its solutions are replayed
        here)."""
        return None

    def capped_finder(self) -> str | None:
        """The algorithm that looks, on the copy :meth:`incumbent_finder`
        made, for a solution cheaper than a given cost (``Limits.cost_below``),
        when A*'s lower bound is below the incumbent's cost; None (the
        default): none is asked."""
        return None

    def complete_solution(self, keys: list[np.ndarray],
                          codes: list[int]) -> tuple[list[np.ndarray], list[int]]:
        """The states and moves of a solution whose search ended on a state
        known to reach the goal (Sokoban's perimeter) carried on to the
        goal; the path as it is by default."""
        return keys, codes

    @abstractmethod
    def initial_key(self) -> np.ndarray:
        """The start state as a ``uint64[key_words]`` array."""

    @abstractmethod
    def render(self, key: np.ndarray) -> str:
        """A multi-line text picture of a state."""

    @abstractmethod
    def check_solution(self, move_codes: Sequence[int]) -> tuple[list[Step], int]:
        """Replay ``move_codes`` from the start with an independent checker.

        Returns the described steps and the total cost.  Raises
        :class:`~pdbsearch.errors.IllegalMoveError` if a move is illegal or
        the last state is not a goal.  The checker must not use the jitted
        kernels: it is the second opinion on every reported solution.
        """

    def solution_path(self, steps: Sequence[Step]) -> list[np.ndarray]:
        """The start and the state after each of a replayed solution's
        ``steps``, as keys (:meth:`solution_states` after the start)."""
        return [self.initial_key()] + self.solution_states(steps)

    def solution_states(self, steps: Sequence[Step]) -> list[np.ndarray]:
        """The state after each of a replayed solution's ``steps`` (what
        :meth:`check_solution` returned), as keys.

        The default follows the kernels' own moves from the start, each step
        the successor that carries its code; a domain whose steps split the
        kernels' moves (Sokoban: a step is one push, a tunnel macro several)
        overrides it.  Raises :class:`~pdbsearch.errors.InternalError` when a
        step is no move of the kernels.
        """
        out_keys, out_costs, out_moves = successor_buffers(self)
        key = self.initial_key()
        states = []
        for number, step in enumerate(steps, start=1):
            count = expand_into(self.params, key, out_keys, out_costs, out_moves)
            hits = np.flatnonzero(out_moves[:count] == step.code)
            if hits.size == 0:
                raise InternalError(f"step {number} ({step.text}) is no move of the kernels")
            key = out_keys[hits[0]].copy()
            states.append(key)
        return states

    def segment_puzzle(self, start: np.ndarray, end: np.ndarray) -> "Puzzle | None":
        """A puzzle of the same board whose start is the state ``start`` and
        whose goal is the state ``end`` (its moves the same codes as this
        puzzle's), for re-solving a stretch of a solution; None (the
        default) when the domain cannot pose one (its goal is fixed).

        A domain that poses one promises that when ``end`` is a goal state,
        the segment's goals are exactly this puzzle's (Sokoban: the boxes of
        a solved position stand on every goal): re-solving a whole solution
        from the start then proves it optimal
        (:mod:`pdbsearch.search.shorten`)."""
        return None

    def render_path(self, keys: Sequence[np.ndarray], steps: Sequence[Step]) -> list[str]:
        """Pictures of the states along a solution (domains may keep piece
        names consistent with the step descriptions)."""
        return [self.render(key) for key in keys]

    # -- pictures (pdbsearch.pictures draws what these return) --------------

    def picture(self, key: np.ndarray) -> "Film":
        """A still picture of the state ``key``: a one-frame
        :class:`~pdbsearch.pictures.frame.Film` of the board's cells (piece
        ids and letters, walls, goals, exit, player).  Domains that can be
        drawn override it."""
        raise PdbsearchError(f"{self.domain} puzzles cannot be drawn")

    def start_picture(self) -> "Film":
        """A still picture of the start position (a domain whose keys drop
        detail, such as Sokoban's normalised player, draws it from the
        level instead)."""
        return self.picture(self.initial_key())

    def solution_film(self, steps: Sequence[Step]) -> "Film":
        """The frames of a solution, from the start to the goal, replayed
        by the independent checker (not the kernels), each captioned with
        its move number and the cost so far; raises
        :class:`~pdbsearch.errors.IllegalMoveError` if it does not replay."""
        raise PdbsearchError(f"{self.domain} solutions cannot be drawn")

    # -- wording of reports (the command line's one formatter asks these) --

    #: unit of a cost in "the optimum is at least N <unit>"
    cost_unit: str = "moves"

    def optimality_word(self) -> str:
        """What a proven-optimal solution is called, e.g. ``"optimal"``."""
        return "optimal"

    def cost_text(self, result) -> str:
        """A solved result's cost in words, e.g. ``"90 moves"``."""
        return f"{result.cost} moves"

    def limit_hint(self, algo: str) -> str | None:
        """A line of advice for a search by ``algo`` that a limit stopped
        (another algorithm that would likely do better); none by default."""
        return None

    def result_fields(self, result) -> dict[str, Any]:
        """Domain fields added to the result's dict (``--json``); none by default."""
        return {}

    def solution_lines(self, result) -> list[str]:
        """The lines that print a solved result's solution."""
        return ["moves: " + (", ".join(result.moves) if result.moves else "(none)")]

    def describe(self) -> str:
        """One line naming the instance (size, metric, heuristic)."""
        return f"{self.domain} ({self.metric} metric, heuristic {self.heuristic_name})"

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.describe()}>"
