"""matplotlib, for the plots (the α sweep, a PDB's histogram): imported
when a plot is drawn, its absence a one-line error naming the extra."""

from __future__ import annotations

import io
from pathlib import Path

from ..errors import PdbsearchError


def pyplot(path: str | Path):
    """``matplotlib.pyplot`` on the Agg backend (no display needed), or a
    :class:`PdbsearchError` saying how to install it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PdbsearchError(f"{path}: plots need matplotlib: pip install "
                             f"'pdbsearch[plot]'") from None
    return plt


def check_png_path(path: str | Path) -> None:
    """Refuse (:class:`PdbsearchError`) a plot file whose name is not ``.png``."""
    if Path(path).suffix.lower() != ".png":
        raise PdbsearchError(f"{path}: plots are drawn as PNG; name the file NAME.png")


def save_png(fig, path: str | Path) -> None:
    """Write ``fig`` as a PNG atomically (see :func:`pdbsearch.io.replacing`)
    and close it."""
    from ..io import atomic_write_bytes

    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=120)
    finally:
        pyplot(path).close(fig)
    atomic_write_bytes(path, buffer.getvalue())
