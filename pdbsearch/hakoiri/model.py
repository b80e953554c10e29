"""The Hakoiri-musume board: pieces, geometry, and the rules' plain-Python model.

A board is ``width`` columns × ``height`` rows.  Pieces are 1×1, 1×2 (one row,
two columns: horizontal), 2×1 (two rows, one column: vertical) and exactly one
2×2 (the "daughter").  The goal is the 2×2 standing with its top-left cell at
:attr:`Board.exit`.

This module is the *reference* model: simple Python over sets of cells.  The
jitted kernels (:mod:`pdbsearch.hakoiri.kernels`) are tested against it, and
it replays every solution the program reports.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass, field, replace

from ..errors import IllegalMoveError

#: Largest supported board side (cells are numbered in 12 bits in move codes).
MAX_SIDE = 64


class Shape(enum.IntEnum):
    """Piece shapes; the values are the kernels' 2-bit cell codes (SQUARE aside)."""

    SINGLE = 1       #: 1×1
    HORIZONTAL = 2   #: 1×2: one row, two columns
    VERTICAL = 3     #: 2×1: two rows, one column
    SQUARE = 4       #: 2×2, the daughter

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in cells."""
        return _SIZES[self]

    @property
    def label(self) -> str:
        """The conventional name, e.g. ``"2x1"`` (rows x columns)."""
        w, h = self.size
        return f"{h}x{w}"


_SIZES = {Shape.SINGLE: (1, 1), Shape.HORIZONTAL: (2, 1),
          Shape.VERTICAL: (1, 2), Shape.SQUARE: (2, 2)}
SHAPE_BY_SIZE = {v: k for k, v in _SIZES.items()}

DIRECTIONS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


@dataclass(frozen=True)
class Piece:
    """A piece at column ``x``, row ``y`` (its top-left cell)."""

    shape: Shape
    x: int
    y: int
    label: str = ""

    def cells(self, x: int | None = None, y: int | None = None) -> list[tuple[int, int]]:
        """The (column, row) cells covered, at the piece's place or at (x, y)."""
        x = self.x if x is None else x
        y = self.y if y is None else y
        w, h = self.shape.size
        return [(x + i, y + j) for j in range(h) for i in range(w)]


@dataclass(frozen=True)
class Board:
    """A Hakoiri-musume position with its geometry and exit."""

    width: int
    height: int
    exit: tuple[int, int]
    pieces: tuple[Piece, ...]
    comments: tuple[str, ...] = field(default=(), compare=False)

    @property
    def square(self) -> Piece:
        """The 2×2 piece."""
        return next(p for p in self.pieces if p.shape is Shape.SQUARE)

    def occupied(self) -> dict[tuple[int, int], int]:
        """Map of covered cell -> index of the piece covering it."""
        return {c: i for i, p in enumerate(self.pieces) for c in p.cells()}

    def empty_cells(self) -> list[tuple[int, int]]:
        """The empty cells, row by row."""
        occ = self.occupied()
        return [(x, y) for y in range(self.height) for x in range(self.width)
                if (x, y) not in occ]

    def count(self, shape: Shape) -> int:
        """How many pieces of a shape the board has."""
        return sum(p.shape is shape for p in self.pieces)

    def is_solved(self) -> bool:
        """True when the 2×2 stands at the exit."""
        sq = self.square
        return (sq.x, sq.y) == self.exit

    def canonical(self) -> frozenset[tuple[Shape, int, int]]:
        """The position with same-shape pieces made interchangeable."""
        return frozenset((p.shape, p.x, p.y) for p in self.pieces)

    def inside(self, x: int, y: int) -> bool:
        """True when (x, y) is a cell of the board."""
        return 0 <= x < self.width and 0 <= y < self.height

    # -- the rules ---------------------------------------------------------

    def placements(self, index: int, metric: str) -> list[tuple[int, int]]:
        """Where piece ``index`` can go in one move under ``metric``."""
        piece = self.pieces[index]
        occ = self.occupied()

        def fits(x: int, y: int) -> bool:
            return all(self.inside(cx, cy) and occ.get((cx, cy), index) == index
                       for cx, cy in piece.cells(x, y))

        result = []
        if metric == "free":
            seen = {(piece.x, piece.y)}
            queue = deque(seen)
            while queue:
                x, y = queue.popleft()
                for dx, dy in DIRECTIONS.values():
                    nxt = (x + dx, y + dy)
                    if nxt not in seen and fits(*nxt):
                        seen.add(nxt)
                        queue.append(nxt)
                        result.append(nxt)
            return result
        for dx, dy in DIRECTIONS.values():
            k = 1
            while fits(piece.x + k * dx, piece.y + k * dy):
                result.append((piece.x + k * dx, piece.y + k * dy))
                if metric == "unit":
                    break
                k += 1
        return result

    def moves(self, metric: str) -> list[tuple[int, int, int]]:
        """Every legal move as (piece index, new x, new y)."""
        return [(i, x, y) for i in range(len(self.pieces))
                for x, y in self.placements(i, metric)]

    def moved(self, index: int, x: int, y: int) -> Board:
        """The board after moving piece ``index`` to (x, y) (not checked)."""
        pieces = list(self.pieces)
        pieces[index] = replace(pieces[index], x=x, y=y)
        return replace(self, pieces=tuple(pieces))

    def play(self, index: int, x: int, y: int, metric: str) -> Board:
        """The board after a legal move; raises IllegalMoveError otherwise."""
        if (x, y) not in self.placements(index, metric):
            p = self.pieces[index]
            raise IllegalMoveError(
                f"piece {p.label} ({p.shape.label}) at column {p.x}, row {p.y} cannot "
                f"move to column {x}, row {y} in one {metric} move")
        return self.moved(index, x, y)

    def piece_at(self, x: int, y: int) -> int:
        """Index of the piece whose top-left cell is (x, y); -1 if none."""
        for i, p in enumerate(self.pieces):
            if (p.x, p.y) == (x, y):
                return i
        return -1


def describe_move(piece: Piece, x: int, y: int, metric: str) -> str:
    """Text for moving ``piece`` to (x, y), e.g. ``"B down"`` or ``"C right 2"``."""
    dx, dy = x - piece.x, y - piece.y
    if dx == 0 or dy == 0:
        name = next(n for n, (ux, uy) in DIRECTIONS.items()
                    if (ux, uy) == ((dx > 0) - (dx < 0), (dy > 0) - (dy < 0)))
        dist = abs(dx) + abs(dy)
        return f"{piece.label} {name}" + (f" {dist}" if dist > 1 else "")
    return f"{piece.label} to {x},{y}"
