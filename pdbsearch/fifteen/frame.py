"""A board with its own goal, seen in Korf's frame.

The kernels and the pattern databases know one goal, Korf's: the blank on
the top-left cell, tile ``t`` on cell ``t``.  A goal whose blank is in a
*corner* is Korf's goal in disguise: mirror the board so that the corner
comes top-left (left-right, top-bottom, or both: symmetries of every
rectangle), then rename each tile after the cell its goal lands on.  The
puzzle is then searched in that frame, with every table built for Korf's
goal, and the moves are read back in the board's own frame (the tile's own
number, the direction mirrored back).

A goal whose blank is elsewhere (the centre of the 8-puzzle, as in
Nilsson's textbook) has no such frame: :func:`korf_frame` returns None and
the puzzle is searched as it is, with a Manhattan distance to its own goal.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from .model import Board

#: Direction codes mirrored left-right and top-bottom (the codes of
#: model.DIRECTIONS: up, down, left, right).
_MIRROR_X = (0, 1, 3, 2)
_MIRROR_Y = (1, 0, 2, 3)


@dataclass(frozen=True)
class KorfFrame:
    """The mirror and the renaming that take a board's goal to Korf's."""

    width: int
    height: int
    mirror_x: bool                  #: columns reversed
    mirror_y: bool                  #: rows reversed
    to_korf: tuple[int, ...]        #: [own tile] -> its name in Korf's frame

    @cached_property
    def from_korf(self) -> tuple[int, ...]:
        """[tile in Korf's frame] -> its own number (``to_korf`` inverted)."""
        inverse = [0] * len(self.to_korf)
        for own, korf in enumerate(self.to_korf):
            inverse[korf] = own
        return tuple(inverse)

    def cell(self, cell: int) -> int:
        """The mirrored cell (the mirror is its own inverse)."""
        x, y = cell % self.width, cell // self.width
        if self.mirror_x:
            x = self.width - 1 - x
        if self.mirror_y:
            y = self.height - 1 - y
        return y * self.width + x

    def direction(self, code: int) -> int:
        """The mirrored direction code (its own inverse too)."""
        if self.mirror_x:
            code = _MIRROR_X[code]
        if self.mirror_y:
            code = _MIRROR_Y[code]
        return code

    def korf_board(self, board: Board) -> Board:
        """``board`` seen in Korf's frame (its goal then Korf's)."""
        tiles = [0] * len(board.tiles)
        for c, t in enumerate(board.tiles):
            tiles[self.cell(c)] = self.to_korf[t]
        return Board(self.width, self.height, tuple(tiles), board.comments)

    def own_board(self, board: Board, goal: tuple[int, ...] | None) -> Board:
        """A board of Korf's frame seen in the board's own frame, with ``goal``."""
        tiles = [0] * len(board.tiles)
        for c, t in enumerate(board.tiles):
            tiles[self.cell(c)] = self.from_korf[t]
        return Board(self.width, self.height, tuple(tiles), board.comments, goal)

    def own_move(self, tile: int, code: int) -> tuple[int, int]:
        """A move (tile, direction) of Korf's frame in the board's own frame."""
        return self.from_korf[tile], self.direction(code)


def korf_frame(board: Board) -> KorfFrame | None:
    """The frame taking ``board``'s goal to Korf's, or None when its blank is
    not in a corner."""
    w, h = board.width, board.height
    home = board.target.index(0)
    x, y = home % w, home // w
    if x not in (0, w - 1) or y not in (0, h - 1):
        return None
    mirror = KorfFrame(w, h, x != 0, y != 0, ())
    to_korf = [0] * board.cells
    for c, t in enumerate(board.target):
        to_korf[t] = mirror.cell(c)     # each tile named after its goal cell, mirrored
    return replace(mirror, to_korf=tuple(to_korf))
