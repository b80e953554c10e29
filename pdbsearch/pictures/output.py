"""Which writer draws a file, told by the file's extension."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..errors import PdbsearchError
from .frame import Film
from .layout import Layout

#: Extensions of animations and of still pictures, and their writers.
ANIMATIONS = {".gif": "gif", ".svg": "svg", ".html": "html", ".htm": "html"}
STILLS = {".png": "png", ".svg": "svg", ".gif": "gif", ".html": "html", ".htm": "html"}
#: The writers that need Pillow (the extra ``pictures``).
NEEDS_PILLOW = {"gif", "png"}


def output_kind(path: str | Path, kinds: dict[str, str]) -> str:
    """The writer of ``path`` among ``kinds`` (by extension, any case), with
    Pillow checked for those that need it: a :class:`PdbsearchError`
    naming the file otherwise.  Called before any work, so that a bad name
    costs no search."""
    suffix = Path(path).suffix.lower()
    if suffix not in kinds:
        shown = f"the extension {suffix!r}" if suffix else "a name without an extension"
        names = sorted(k for k in kinds if k != ".htm")
        raise PdbsearchError(f"{path}: cannot tell the picture format from {shown}; use "
                             f"{', '.join(names[:-1])} or {names[-1]}")
    kind = kinds[suffix]
    if kind in NEEDS_PILLOW:
        from .raster import pillow
        pillow(path)
    return kind


def write_film(film: Film, kind: str, layout: Layout, durations: Sequence[int],
               path: str | Path) -> None:
    """Draw ``film`` into ``path`` with the writer ``kind``."""
    if kind == "gif":
        from .raster import write_gif
        write_gif(film, layout, durations, path)
    elif kind == "png":
        from .raster import write_png
        write_png(film, layout, path)
    elif kind == "svg":
        from .svg import write_svg
        write_svg(film, layout, durations, path)
    elif kind == "html":
        from .html import write_html
        write_html(film, layout, durations, path)
    else:  # pragma: no cover - output_kind gives only the kinds above
        raise ValueError(f"unknown picture kind {kind!r}")
