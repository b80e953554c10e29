"""The result object every search returns, and the limits a search obeys."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field, replace
from typing import Any

from ..machine import usable_cores
from ..puzzle import Step


class Status(str, enum.Enum):
    """How a search ended."""

    SOLVED = "solved"            #: a goal was reached; moves are valid
    UNSOLVABLE = "unsolvable"    #: the whole reachable space was exhausted
    LIMIT = "limit"              #: stopped by a time, node or memory limit, or Ctrl-C


def default_memory_limit_mb() -> int:
    """Half of the machine's physical memory, at most 8 GiB."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 4 << 30
    return int(min(total // 2, 8 << 30) >> 20)


@dataclass(frozen=True)
class Limits:
    """Resource limits; ``None`` means unlimited (memory: the default cap).

    ``time_seconds`` covers the whole solve (finding or building pattern
    databases included); ``memory_mb`` the whole process (interpreter,
    numba, pattern databases and the search's tables): the search stops
    before growing its tables past it.
    """

    time_seconds: float | None = None
    nodes: int | None = None          #: expanded nodes
    memory_mb: int | None = None      #: memory of the whole process
    #: CPU seconds of search (benchmarks on a shared machine: steadier than
    #: wall time, which other work inflates)
    cpu_seconds: float | None = None
    #: threads a search may run at once (None: one per core this process may
    #: use); only the ``--algo fess`` portfolio runs more than one
    threads: int | None = None
    #: stop once the search proves that no solution costs less than this (a
    #: solution of this cost is known: the shortening's windows)
    cost_below: float | None = None

    def memory_bytes(self) -> int:
        """The memory limit in bytes (the default cap when unset)."""
        mb = self.memory_mb if self.memory_mb is not None else default_memory_limit_mb()
        return int(mb) << 20

    def thread_count(self) -> int:
        """The threads a search may run (the cores it may use when unset)."""
        if self.threads is not None:
            return max(1, int(self.threads))
        return usable_cores()


@dataclass
class SearchResult:
    """Everything a search reports.

    ``bound`` is the guarantee on ``cost`` relative to the optimum: 1.0 means
    proven optimal, α means ``cost <= α × optimal``, ``None`` means no
    guarantee (greedy search, or an inadmissible heuristic).
    ``lower_bound`` is a proven lower bound on the optimal cost when the search
    stopped early (or the optimum when solved optimally), if known.
    """

    status: Status
    algo: str
    weight: float
    domain: str
    metric: str
    heuristic: str
    steps: list[Step] = field(default_factory=list)
    cost: int | None = None
    bound: float | None = None
    lower_bound: float | None = None
    expanded: int = 0
    generated: int = 0
    stored: int = 0                   #: peak stored states
    memory_bytes: int = 0             #: peak memory of the search tables
    seconds: float = 0.0              #: search time, compile time excluded
    #: CPU time of the search in this process: unlike ``seconds``, other
    #: work on a busy machine hardly inflates it, so rates per core use it
    cpu_seconds: float = 0.0
    compile_seconds: float = 0.0      #: jit compile (or cache load) time
    #: time spent obtaining the puzzle's tables (finding or building PDBs)
    #: before the search; the time limit covers it
    setup_seconds: float = 0.0
    #: "time", "nodes", "memory", "interrupted", "bound" (nothing cheaper
    #: than ``Limits.cost_below``), or "incomplete" (the search ran out of
    #: moves, but its moves may miss a solution: nothing proved)
    stop_reason: str | None = None
    note: str | None = None           #: what a limit stopped, when it was not the search
    path_keys: list[Any] = field(default_factory=list, repr=False)
    #: A solution a fast helper found (replayed, of cost ``extra["incumbent"]
    #: ["cost"]``) that the optimal search stopped before proving optimal:
    #: kept so that a run stopped by a limit loses nothing it found
    #: (:mod:`pdbsearch.search.incumbent`); empty otherwise.
    incumbent_steps: list[Step] = field(default_factory=list, repr=False)
    #: the domain's own fields of the result (Sokoban: pushes, steps, lurd)
    extra: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        cost = f" cost={self.cost}" if self.cost is not None else ""
        why = f" ({self.stop_reason})" if self.stop_reason else ""
        weight = f" weight={self.weight:g}" if self.algo == "wastar" else ""
        return (f"<SearchResult {self.status.value}{why}{cost} optimal={self.optimal} "
                f"algo={self.algo}{weight} expanded={self.expanded}>")

    @property
    def optimal(self) -> bool:
        """True when the solution is proven optimal."""
        return self.status is Status.SOLVED and self.bound == 1.0

    @property
    def winner(self) -> str | None:
        """The portfolio member whose search ended the run (``--algo fess``;
        A* beside the perimeter), or the fast solver (its member) whose
        solution an optimal search proved (``extra["incumbent"]``); None
        when no portfolio ran or none won."""
        for report in self.extra.values():
            if isinstance(report, dict) and report.get("winner"):
                return str(report["winner"])
        return None

    def kept_solution(self) -> "SearchResult | None":
        """The solution kept apart (:attr:`incumbent_steps`) as a solved
        result of its own, with no optimality claim (``bound`` None), for
        printing, drawing and recording it as the search's solutions are;
        None when there is none."""
        if not self.incumbent_steps:
            return None
        return replace(self, status=Status.SOLVED, steps=self.incumbent_steps,
                       cost=self.extra["incumbent"]["cost"], bound=None)

    @property
    def moves(self) -> list[str]:
        """The solution's moves as text."""
        return [s.text for s in self.steps]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict: the object ``pdbsearch solve --json`` prints."""
        return {
            "status": self.status.value,
            "stop_reason": self.stop_reason,
            "domain": self.domain,
            "algo": self.algo,
            "weight": self.weight,
            "metric": self.metric,
            "heuristic": self.heuristic,
            "cost": self.cost,
            "optimal": self.optimal,
            "bound": self.bound,
            "lower_bound": self.lower_bound,
            "moves": self.moves,
            "expanded": self.expanded,
            "generated": self.generated,
            "stored": self.stored,
            "memory_bytes": self.memory_bytes,
            "seconds": round(self.seconds, 6),
            "cpu_seconds": round(self.cpu_seconds, 6),
            "compile_seconds": round(self.compile_seconds, 6),
            "setup_seconds": round(self.setup_seconds, 6),
            "note": self.note,
            **self.extra,
        }
