"""A solved result, or a start position, drawn into a file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..errors import IllegalMoveError, InternalError, PdbsearchError
from .frame import Film
from .layout import durations, layout_for, thinned
from .output import ANIMATIONS, STILLS, output_kind, write_film

if TYPE_CHECKING:  # pragma: no cover
    from ..puzzle import Puzzle
    from ..search.result import SearchResult


@dataclass
class Drawing:
    """What was drawn: where, how many frames of how many, the cell size,
    and the notes on limits that applied (also said to ``log``)."""

    path: Path
    frames: int
    positions: int               #: frames of the whole solution (before any limit)
    cell: int                    #: pixels
    notes: list[str] = field(default_factory=list)


def check_animation_path(path: str | Path) -> str:
    """The writer an animation at ``path`` needs (GIF, SVG, HTML), or a
    :class:`PdbsearchError` naming the file; see :func:`.output.output_kind`."""
    return output_kind(path, ANIMATIONS)


def check_picture_path(path: str | Path) -> str:
    """The writer a still picture at ``path`` needs (PNG, SVG, GIF, HTML)."""
    return output_kind(path, STILLS)


def solution_film(puzzle: "Puzzle", result: "SearchResult") -> Film:
    """The frames of a solved result, replayed by the puzzle's independent
    checker; a solution that does not replay, or ends unsolved, is a bug
    (:class:`InternalError`), since the search replayed it already."""
    from ..search.result import Status

    if result.status is not Status.SOLVED:
        raise PdbsearchError(f"nothing to animate: the search ended {result.status.value}"
                             + (f" ({result.stop_reason})" if result.stop_reason else ""))
    try:
        film = puzzle.solution_film(result.steps)
    except IllegalMoveError as exc:
        raise InternalError(f"the solution does not replay for its animation: {exc}") from exc
    if not film.frames or not film.frames[-1].solved:
        raise InternalError("the solution's last frame is not solved")
    return film


def animate(puzzle: "Puzzle", result: "SearchResult", path: str | Path,
            log: Callable[[str], None] | None = None) -> Drawing:
    """Draw ``result``'s solution into ``path``: GIF, SVG or HTML by the
    extension, one frame per move (Sokoban: per player step)."""
    kind = check_animation_path(path)
    return _draw(solution_film(puzzle, result), kind, path, log)


def draw_start(puzzle: "Puzzle", path: str | Path,
               log: Callable[[str], None] | None = None) -> Drawing:
    """Draw ``puzzle``'s start position into ``path``: PNG, SVG, GIF or HTML."""
    kind = check_picture_path(path)
    return _draw(puzzle.start_picture(), kind, path, log)


def _draw(film: Film, kind: str, path: str | Path,
          log: Callable[[str], None] | None) -> Drawing:
    """Lay ``film`` out, keep it within the limits, and write it."""
    layout = layout_for(film)
    pixels = layout.width * layout.height if kind == "gif" else None
    kept, dropped = thinned(film, pixels)
    notes = layout.notes + dropped
    for note in notes:
        if log is not None:
            log(f"pdbsearch: {path}: {note}")
    write_film(kept, kind, layout, durations(len(kept.frames)), path)
    return Drawing(Path(path), len(kept.frames), len(film.frames), layout.cell, notes)
