"""Solving every instance of a sliding-tile collection (Korf's 100) with
``pdbsearch levels``: the process-per-level runner of
:mod:`pdbsearch.sokoban.collection`, with this domain's options, records and
report.  Each answer is checked against the optimum the file records."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Sequence

from ..search import DEFAULT_SHORTCUT_DEPTH, Limits, Status, solve
from ..search import warm_up as warm_up_search
from ..batch.levels import copy_search_figures, cost_or_bounds, limits_of_one_level
from .formats import Instance
from .puzzle import FifteenPuzzle
from .vocabulary import HEURISTICS


@dataclass(frozen=True)
class FifteenRunOptions:
    """How every instance of a run is solved (the runner's hooks included)."""

    heuristic: str = HEURISTICS.default
    algo: str = "idastar"
    weight: float = 1.0
    time_limit: float | None = 60.0
    node_limit: int | None = None
    memory_mb: int | None = None
    grace: float = 10.0
    db_dir: str | None = None
    partition: tuple | None = None
    cpu_limit: float | None = None
    shorten: int = DEFAULT_SHORTCUT_DEPTH  #: shortcut depth of a non-optimal solution (0: off)

    def puzzle(self, inst: Instance) -> FifteenPuzzle:
        """The puzzle of an instance (the pattern tables are loaded once a process)."""
        return FifteenPuzzle(inst.board, None, self.heuristic, partition=self.partition,
                             db_dir=self.db_dir, name=f"#{inst.id}")

    def limits(self, jobs: int = 1) -> Limits:
        """The limits of one instance when ``jobs`` run at once."""
        return limits_of_one_level(self, jobs)

    def describe(self) -> dict:
        """The options as a JSON-ready dict."""
        return asdict(self)

    def blank_record(self, number: int, inst: Instance) -> "InstanceRecord":
        """The record of an instance not run yet."""
        return InstanceRecord(number, inst.id, inst.optimal)

    def solve_level(self, inst: Instance, number: int, limits: Limits) -> "InstanceRecord":
        """Solve one instance in this process."""
        record = self.blank_record(number, inst)
        result = solve(self.puzzle(inst), self.algo, self.weight, limits,
                       shorten=self.shorten)
        copy_search_figures(record, result)
        record.moves = " ".join(result.moves) if result.moves else None
        return record

    def warm_up_levels(self, instances: Sequence[Instance]) -> list[Instance]:
        """The instances :meth:`warm_up` needs (the first one)."""
        return list(instances[:1])

    def warm_up(self, instances: Sequence[Instance]) -> None:
        """Load the tables and the kernels in the parent, before the fork."""
        result = warm_up_search(self.puzzle(instances[0]), self.algo, self.weight, self.shorten)
        if result.stop_reason == "interrupted":
            raise KeyboardInterrupt


@dataclass
class InstanceRecord:
    """The outcome of one instance."""

    number: int
    id: str
    recorded: int | None          #: the optimum the file records
    status: str = "not run"
    optimal: bool = False         #: proven optimal by the search
    cost: int | None = None
    found_cost: int | None = None  #: the search's cost, when shortening lowered it
    lower_bound: float | None = None
    #: the cost of a fast solver's solution the search did not prove optimal
    upper_bound: int | None = None
    expanded: int = 0
    generated: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    stop_reason: str | None = None
    error: str | None = None
    moves: str | None = None

    @property
    def solved(self) -> bool:
        """True when a checked solution was found."""
        return self.status == Status.SOLVED.value

    @property
    def agrees(self) -> bool | None:
        """Whether the cost equals the recorded optimum (None: nothing to compare)."""
        if not self.solved or self.recorded is None:
            return None
        return self.cost == self.recorded


def totals(records: Sequence[InstanceRecord]) -> dict:
    """Counts and sums over a run."""
    seconds = sum(r.seconds for r in records)
    cpu = sum(r.cpu_seconds for r in records)
    expanded = sum(r.expanded for r in records)
    solved = [r for r in records if r.solved]
    return {
        "instances": len(records), "solved": len(solved),
        "optimal": sum(r.optimal for r in solved),
        "agree": sum(r.agrees is True for r in records),
        "disagree": sum(r.agrees is False for r in records),
        "unfinished": len(records) - len(solved),
        "moves": sum(r.cost for r in solved),
        "recorded_moves": sum(r.recorded or 0 for r in records),
        "expanded": expanded, "mean_expanded": round(expanded / len(records)) if records else 0,
        "generated": sum(r.generated for r in records),
        "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3),
        "wall_seconds": round(sum(r.wall_seconds for r in records), 3),
        "nodes_per_second": round(expanded / seconds) if seconds > 0 else None,
    }


def summary_table(records: Sequence[InstanceRecord]) -> str:
    """One line an instance, then the totals."""
    head = f"{'#':>4} {'id':>5} {'status':<8} {'moves':>7} {'recorded':>8} {'check':<6} " \
           f"{'expanded':>12} {'seconds':>8}"
    lines = [head, "-" * len(head)]
    for r in records:
        check = {True: "ok", False: "WRONG", None: "-"}[r.agrees]
        lines.append(f"{r.number:>4} {r.id:>5} {r.status:<8} "
                     f"{cost_or_bounds(r, r.cost):>7} "
                     f"{'-' if r.recorded is None else r.recorded:>8} {check:<6} "
                     f"{r.expanded:>12,} {r.seconds:>8.3f}")
    t = totals(records)
    lines.append("-" * len(head))
    lines.append(f"solved {t['solved']}/{t['instances']} (proven optimal {t['optimal']}, "
                 f"equal to the recorded optimum {t['agree']}, different {t['disagree']}, "
                 f"unfinished {t['unfinished']}); {t['moves']} moves (recorded "
                 f"{t['recorded_moves']}); expanded {t['expanded']:,} (mean "
                 f"{t['mean_expanded']:,}) in {t['seconds']:.2f} s of search")
    return "\n".join(lines)


def records_json(records: Sequence[InstanceRecord], **meta) -> str:
    """The run as JSON: ``meta`` keys, ``summary`` and ``instances``."""
    return json.dumps({**meta, "summary": totals(records),
                       "instances": [asdict(r) for r in records]}, indent=1) + "\n"
