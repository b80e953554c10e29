"""Geometry and timing shared by every writer: how big a cell is, where
the caption goes, how long each frame shows, and the size limits that keep
a huge level's picture a sensible file."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .frame import Film

#: Cell side in pixels on small boards.
CELL = 48
#: Longest side of the board's drawing; larger boards get smaller cells.
MAX_BOARD_PIXELS = 720
#: Smallest cell side: below it the picture would be unreadable anyway.
MIN_CELL = 6
#: Letters are drawn only on cells at least this large.
MIN_LETTER_CELL = 12
#: Narrowest picture, so that the caption fits under a small board.
MIN_WIDTH = 360
MARGIN = 8
CAPTION = 24
#: Most frames in one file: a longer solution keeps every k-th frame (and
#: the last); a GIF also keeps its frames' pixels within PIXEL_BUDGET
#: (Pillow holds every frame in memory while it writes).
MAX_FRAMES = 1200
PIXEL_BUDGET = 100_000_000

#: Frame timing in milliseconds (GIF counts in hundredths of a second).
FIRST_MS = 1000
LAST_MS = 3000
SLOWEST_MS = 500
FASTEST_MS = 50
#: The time the middle frames of a long film share, before FASTEST_MS.
MIDDLE_TOTAL_MS = 40_000


@dataclass(frozen=True)
class Layout:
    """Where things go, in pixels."""

    cell: int
    width: int                   #: the whole picture
    height: int
    left: int                    #: the board's top-left corner
    top: int
    caption_top: int             #: the caption band's top (height CAPTION)
    notes: list[str] = field(default_factory=list, compare=False)

    @property
    def letters(self) -> bool:
        """True when cells are large enough for letters."""
        return self.cell >= MIN_LETTER_CELL

    def box(self, x0: int, y0: int, x1: int, y1: int, inset: float = 0.0
            ) -> tuple[float, float, float, float]:
        """The pixel rectangle ``(left, top, right, bottom)`` of cells
        ``[x0, x1) x [y0, y1)``, shrunk by ``inset`` cells on every side."""
        pad = inset * self.cell
        return (self.left + x0 * self.cell + pad, self.top + y0 * self.cell + pad,
                self.left + x1 * self.cell - pad, self.top + y1 * self.cell - pad)


def layout_for(film: Film, captions: bool = True) -> Layout:
    """The layout of ``film``: cells of :data:`CELL` pixels, smaller when
    the board would pass :data:`MAX_BOARD_PIXELS` (a note says so)."""
    scene = film.scene
    side = max(scene.width, scene.height)
    cell = max(MIN_CELL, min(CELL, MAX_BOARD_PIXELS // side))
    notes = []
    if cell < CELL:
        notes.append(f"the {scene.width}x{scene.height} board is drawn with {cell}-pixel "
                     f"cells to stay within {MAX_BOARD_PIXELS} pixels"
                     + ("" if cell >= MIN_LETTER_CELL else ", without letters"))
    board_w, board_h = scene.width * cell, scene.height * cell
    width = max(MIN_WIDTH, board_w + 2 * MARGIN)
    caption = CAPTION if captions else 0
    return Layout(cell=cell, width=width, height=board_h + 2 * MARGIN + caption,
                  left=(width - board_w) // 2, top=MARGIN, caption_top=board_h + 2 * MARGIN,
                  notes=notes)


def durations(count: int) -> list[int]:
    """Milliseconds each of ``count`` frames shows: the start a second, the
    solved end three, the middle frames quick enough that a long solution
    plays in well under a minute (10 ms steps, as GIF counts)."""
    if count == 1:
        return [LAST_MS]
    middle = max(FASTEST_MS, min(SLOWEST_MS, MIDDLE_TOTAL_MS // max(1, count - 2)))
    middle -= middle % 10
    return [FIRST_MS] + [middle] * (count - 2) + [LAST_MS]


def thinned(film: Film, pixels_per_frame: int | None = None) -> tuple[Film, list[str]]:
    """``film`` within :data:`MAX_FRAMES` frames (and, given the pixels of
    one frame, within :data:`PIXEL_BUDGET`): every k-th frame and the last
    are kept, the captions still give the true move numbers.  Returns the
    film and the notes saying what was dropped."""
    count = len(film.frames)
    most = MAX_FRAMES
    if pixels_per_frame:
        most = min(most, max(2, PIXEL_BUDGET // pixels_per_frame))
    if count <= most:
        return film, []
    step = math.ceil((count - 1) / (most - 1))
    kept = list(film.frames[::step])
    if (count - 1) % step:
        kept.append(film.frames[-1])
    note = (f"{count} frames are too many for one file (at most {most}); drawing every "
            f"{_ordinal(step)} frame and the last ({len(kept)} frames)")
    return film.with_frames(kept), [note]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
