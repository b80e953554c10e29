"""An α sweep (seed 003's Table 1): its runs as a batch, the table and the plot.

The runs themselves come from :func:`pdbsearch.compare`, in this process
or, one task per weight, on a Dask cluster (:func:`compare_as_batch`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from .search.result import SearchResult, Status

if TYPE_CHECKING:  # pragma: no cover
    from .puzzle import Puzzle

#: Seconds past its time limit before a run's child is killed.
GRACE_SECONDS = 10.0


def solve_with_weight(puzzle: Puzzle, weight: float, limits: dict) -> SearchResult:
    """One run of a sweep (the body of its batch job); ``limits`` holds
    ``time_limit``, ``node_limit`` and ``memory_limit`` as
    :func:`pdbsearch.compare` takes them.  The solution is kept as the
    search found it, as :func:`pdbsearch.compare` keeps it."""
    from .search import Limits, solve
    return solve(puzzle, None, weight, Limits(time_seconds=limits.get("time_limit"),
                                              nodes=limits.get("node_limit"),
                                              memory_mb=limits.get("memory_limit")), shorten=0)


def weight_failure(puzzle: Puzzle, weight: float, status: str, stop_reason: str | None,
                   error: str | None) -> SearchResult:
    """The result of a run that did not end by itself (killed, lost, interrupted)."""
    from .search import choose_algorithm
    algo, weight = choose_algorithm(None, weight)
    note = f"{status}: {error}" if error else status
    return SearchResult(Status.LIMIT, algo, weight, puzzle.domain, puzzle.metric,
                        puzzle.heuristic_name, stop_reason=stop_reason or status, note=note)


def compare_as_batch(puzzle: Puzzle, weights: Sequence[float], dask: str, *,
                     time_limit: float | None, node_limit: int | None,
                     memory_limit: int | None,
                     on_run: Callable[[SearchResult], None] | None) -> list[SearchResult]:
    """The sweep's runs as one batch on the Dask cluster ``dask``, in the order
    of ``weights``; a run Ctrl-C stopped is reported with status ``limit``."""
    from .batch import Job, WarmUp, run_batch
    limits = {"time_limit": time_limit, "node_limit": node_limit,
              "memory_limit": memory_limit}
    deadline = None if time_limit is None else time_limit + GRACE_SECONDS
    jobs = [Job(i, solve_with_weight, (puzzle, w, limits), partial(weight_failure, puzzle, w),
                deadline) for i, w in enumerate(weights)]
    runs: dict[int, SearchResult] = {}

    def arrived(outcome) -> None:
        runs[outcome.key] = outcome.record
        if on_run is not None:
            on_run(outcome.record)

    # Each worker solves the puzzle for one node first: its children are then
    # forked with the kernels loaded and the pattern database in memory.
    warm_up = WarmUp(f"compare {uuid.uuid4().hex}", solve_with_weight,
                     (puzzle, 1.0, {"node_limit": 1}))
    run_batch(jobs, arrived, dask=dask, warm_up=warm_up)
    return [runs.get(i) or weight_failure(puzzle, w, "interrupted", "interrupted", None)
            for i, w in enumerate(weights)]


def optimum_of(runs: Sequence[SearchResult], known: int | None) -> int | None:
    """The optimal cost: given, or proven by one of the runs."""
    if known is not None:
        return known
    for r in runs:
        if r.optimal:
            return r.cost
    return None


def format_table(runs: Sequence[SearchResult], known_optimum: int | None = None,
                 unit: str = "moves") -> str:
    """The table α | seconds | expanded | cost | cost / optimal, the cost
    counted in ``unit`` (the puzzle's :attr:`~pdbsearch.puzzle.Puzzle.cost_unit`:
    ``moves``, or a Sokoban metric's ``pushes``)."""
    opt = optimum_of(runs, known_optimum)
    rows = [("alpha", "seconds", "expanded", unit, f"{unit}/optimal")]
    for r in runs:
        solved = r.status is Status.SOLVED
        rows.append((f"{r.weight:g}", f"{r.seconds:.3f}", f"{r.expanded:,}",
                     str(r.cost) if solved else r.status.value + (f" ({r.stop_reason})"
                                                                  if r.stop_reason else ""),
                     f"{r.cost / opt:.3f}" if solved and opt else "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = [" | ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in rows]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    if opt is None:
        lines.append("(optimum unknown: run alpha = 1 to completion, or give --optimum)")
    return "\n".join(lines)


def plot_runs(runs: Sequence[SearchResult], path: str | Path, title: str = "",
              unit: str = "moves") -> None:
    """Draw seconds and the solutions' cost (in ``unit``) against α into a
    PNG (needs matplotlib)."""
    from .pictures.figures import check_png_path, pyplot, save_png

    check_png_path(path)
    plt = pyplot(path)
    solved = [r for r in runs if r.status is Status.SOLVED]
    fig, ax1 = plt.subplots(figsize=(7, 4))
    ax1.plot([r.weight for r in runs], [r.seconds for r in runs], "o-", color="tab:blue")
    ax1.set_xlabel("weight α")
    ax1.set_ylabel("search seconds", color="tab:blue")
    ax2 = ax1.twinx()
    ax2.plot([r.weight for r in solved], [r.cost for r in solved], "s--", color="tab:red")
    ax2.set_ylabel(f"solution {unit}", color="tab:red")
    ax1.set_title(title)
    fig.tight_layout()
    save_png(fig, path)
