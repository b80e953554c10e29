"""The N×M sliding-tile puzzle (8-, 15-, 24-puzzle): geometry and the rules in plain Python.

A board is ``width`` columns × ``height`` rows of cells numbered row by row
(``cell = row × width + column``); it holds the tiles ``1 .. n − 1`` and the
blank ``0`` (``n = width × height``).  The goal is Korf's convention unless
the board names its own: the blank in the top-left corner and tile ``t`` on
cell ``t`` (``0 1 2 3 / 4 5 6 7 / ...``).  A board may carry any other
arrangement as its goal (``Board.goal``, e.g. the blank last:
``1 2 3 / 4 5 6 / 7 8 0``).  A move slides a tile next to the blank into
it; every move costs 1.

This module is the *reference* model: simple Python over tuples.  The
jitted kernels (:mod:`.kernels`) are tested against it, and it replays every
solution the program reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import IllegalMoveError

#: Smallest and largest side of a board (64 cells at most: a tile number
#: then fits in 6 bits of the key, see :mod:`.kernels`).
MIN_SIDE, MAX_SIDE = 2, 8

#: The directions a *tile* moves in, by code: (name, dx, dy).
DIRECTIONS = (("up", 0, -1), ("down", 0, 1), ("left", -1, 0), ("right", 1, 0))


def goal_tiles(width: int, height: int) -> tuple[int, ...]:
    """The goal (Korf's): the blank on cell 0, tile t on cell t."""
    return tuple(range(width * height))


def permutation_parity(values) -> int:
    """0 for an even permutation of ``0 .. n-1``, 1 for an odd one
    (counted by cycles: n minus the number of cycles)."""
    values = list(values)
    seen = [False] * len(values)
    swaps = 0
    for i in range(len(values)):
        j, length = i, 0
        while not seen[j]:
            seen[j] = True
            j = values[j]
            length += 1
        swaps += max(0, length - 1)
    return swaps & 1


def solvable(tiles, width: int, goal=None) -> bool:
    """True when ``goal`` (default Korf's) can be reached: every move is one
    transposition of the permutation (cells -> tiles) and moves the blank by
    one cell, so the parity of the permutation taking the goal to the board
    must equal the parity of the blank's Manhattan distance to its goal cell."""
    goal = tuple(range(len(tiles))) if goal is None else tuple(goal)
    blank, home = list(tiles).index(0), goal.index(0)
    distance = abs(blank % width - home % width) + abs(blank // width - home // width)
    return permutation_parity(tiles) ^ permutation_parity(goal) == distance & 1


@dataclass(frozen=True)
class Board:
    """A position: ``tiles[cell]`` is the tile on that cell (0 = blank)."""

    width: int
    height: int
    tiles: tuple[int, ...]
    comments: tuple[str, ...] = field(default=(), compare=False)
    #: the goal arrangement (tiles by cell), None for Korf's (:func:`goal_tiles`)
    goal: tuple[int, ...] | None = None

    def __post_init__(self):
        # one spelling of Korf's goal, so that boards compare equal however it was given
        if self.goal is not None:
            goal = tuple(self.goal)
            object.__setattr__(self, "goal",
                               None if goal == goal_tiles(self.width, self.height) else goal)

    @property
    def target(self) -> tuple[int, ...]:
        """The goal's tiles by cell: :attr:`goal`, or Korf's when it is None."""
        return goal_tiles(self.width, self.height) if self.goal is None else self.goal

    def goal_cells(self) -> list[int]:
        """``goal_cells()[t]`` is tile t's cell in the goal (0 = the blank)."""
        return Board(self.width, self.height, self.target).positions()

    @property
    def cells(self) -> int:
        """Number of cells (tiles + the blank)."""
        return self.width * self.height

    @property
    def blank(self) -> int:
        """The blank's cell."""
        return self.tiles.index(0)

    def positions(self) -> list[int]:
        """``positions()[t]`` is the cell of tile t (0 = the blank)."""
        pos = [0] * self.cells
        for c, t in enumerate(self.tiles):
            pos[t] = c
        return pos

    def is_solved(self) -> bool:
        """True in the goal position (:attr:`target`)."""
        return self.tiles == self.target

    def is_solvable(self) -> bool:
        """True when the goal is reachable (see :func:`solvable`)."""
        return solvable(self.tiles, self.width, self.goal)

    def manhattan(self) -> int:
        """Sum of the tiles' Manhattan distances to their goal cells (not the blank)."""
        w, home = self.width, self.goal_cells()
        return sum(abs(c % w - home[t] % w) + abs(c // w - home[t] // w)
                   for c, t in enumerate(self.tiles) if t)

    def moves(self) -> list[tuple[int, int]]:
        """Every legal move as (tile, direction code of the tile's move)."""
        b, w = self.blank, self.width
        result = []
        for code, (_, dx, dy) in enumerate(DIRECTIONS):
            # the tile that moves in direction (dx, dy) stands on the other side of the blank
            x, y = b % w - dx, b // w - dy
            if 0 <= x < w and 0 <= y < self.height:
                result.append((self.tiles[y * w + x], code))
        return result

    def neighbours(self) -> list["Board"]:
        """The positions one move away."""
        return [self.play(tile, code) for tile, code in self.moves()]

    def play(self, tile: int, code: int) -> "Board":
        """The board after sliding ``tile`` in direction ``code``;
        IllegalMoveError unless the blank is on that side of the tile."""
        if not (1 <= tile < self.cells) or not (0 <= code < 4):
            raise IllegalMoveError(f"no tile {tile} moving {code}")
        name, dx, dy = DIRECTIONS[code]
        w = self.width
        c = self.tiles.index(tile)
        x, y = c % w + dx, c // w + dy
        if not (0 <= x < w and 0 <= y < self.height) or self.tiles[y * w + x] != 0:
            raise IllegalMoveError(f"tile {tile} cannot move {name}: the blank is not there")
        tiles = list(self.tiles)
        tiles[y * w + x], tiles[c] = tile, 0
        return Board(self.width, self.height, tuple(tiles), self.comments, self.goal)


def describe_move(tile: int, code: int) -> str:
    """Text of a move, e.g. ``"5 left"``."""
    return f"{tile} {DIRECTIONS[code][0]}"
