"""Presenting an α sweep (seed 003's Table 1): the table and the plot.

The runs themselves come from :func:`pdbsearch.compare`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .search.result import SearchResult, Status


def optimum_of(runs: Sequence[SearchResult], known: int | None) -> int | None:
    """The optimal cost: given, or proven by one of the runs."""
    if known is not None:
        return known
    for r in runs:
        if r.optimal:
            return r.cost
    return None


def format_table(runs: Sequence[SearchResult], known_optimum: int | None = None) -> str:
    """The table α | seconds | expanded | steps | steps / optimal."""
    opt = optimum_of(runs, known_optimum)
    rows = [("alpha", "seconds", "expanded", "steps", "steps/optimal")]
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


def plot_runs(runs: Sequence[SearchResult], path: str | Path, title: str = "") -> None:
    """Draw seconds and steps against α into a PNG (needs matplotlib)."""
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
    ax2.set_ylabel("solution steps", color="tab:red")
    ax1.set_title(title)
    fig.tight_layout()
    save_png(fig, path)
