"""A pattern database's histogram: how many entries hold each value."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .figures import check_png_path, pyplot, save_png

#: The value of entries whose abstract state cannot reach a goal.
UNREACHABLE = 255


def plot_histogram(counts: Sequence[int], path: str | Path, title: str = "") -> None:
    """Draw entries per value (0..254, as bars; the unreachable entries,
    value 255, said in the legend) into a PNG (needs matplotlib).  The
    count axis is logarithmic when the counts span over two decades, so the
    rare largest values stay visible."""
    check_png_path(path)
    plt = pyplot(path)
    finite = [(v, c) for v, c in enumerate(counts[:UNREACHABLE]) if c]
    unreachable = counts[UNREACHABLE] if len(counts) > UNREACHABLE else 0
    fig, ax = plt.subplots(figsize=(7, 4))
    if finite:
        values, heights = zip(*finite)
        ax.bar(values, heights, width=0.85, color="tab:blue",
               label=f"{sum(heights):,} entries with a value")
        if max(heights) > 100 * min(heights):
            ax.set_yscale("log")
    if unreachable:
        ax.bar([], [], color="tab:gray", label=f"{unreachable:,} unreachable (255)")
    ax.set_xlabel("value (lower bound on the cost to a goal)")
    ax.set_ylabel("entries")
    ax.set_title(title)
    ax.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    save_png(fig, path)
