"""The domain-neutral model of a picture: what to draw, not how.

A :class:`Film` is a :class:`Scene` (what stays put: the board's size,
walls, floor and target cells) and one or more :class:`Frame` s (what
moves: the :class:`Block` s, a caption).  Cells are ``(column, row)``
pairs, 0-based from the top-left.  The domains build films from their
states (see ``Puzzle.picture`` and ``Puzzle.solution_film``); the writers
(:mod:`.raster`, :mod:`.svg`, :mod:`.html`) draw them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Cell = tuple[int, int]

#: Kinds of block: an ordinary piece (its own colour), the piece that must
#: reach the exit (Hakoiri's 2x2), a box and the player (Sokoban).
PIECE, MAIN, BOX, PLAYER = "piece", "main", "box", "player"
KINDS = (PIECE, MAIN, BOX, PLAYER)


@dataclass(frozen=True)
class Block:
    """Something drawn over the board: a rectangle of cells (a circle for
    the player), in its own colour, with a letter."""

    ident: int                   #: stable across frames: the same piece keeps its colour
    label: str                   #: the letter drawn on it ("" for none)
    cells: tuple[Cell, ...]      #: the cells it covers (a rectangle)
    kind: str = PIECE            #: one of :data:`KINDS`
    highlight: bool = False      #: it just moved (a Hakoiri move, a Sokoban push)
    on_target: bool = False      #: a box on a goal

    def bounds(self) -> tuple[int, int, int, int]:
        """``(x0, y0, x1, y1)``: the first and one-past-last column and row."""
        xs = [c[0] for c in self.cells]
        ys = [c[1] for c in self.cells]
        return min(xs), min(ys), max(xs) + 1, max(ys) + 1


@dataclass(frozen=True)
class Frame:
    """One picture of the film: the blocks and the caption under them."""

    blocks: tuple[Block, ...]
    caption: str = ""
    solved: bool = False         #: the position is a goal (the domain's own test)


@dataclass(frozen=True)
class Scene:
    """What every frame shares: the grid and its fixed marks."""

    width: int                   #: columns
    height: int                  #: rows
    floor: frozenset[Cell]       #: cells drawn as floor (the rest is background)
    walls: frozenset[Cell] = frozenset()
    targets: frozenset[Cell] = frozenset()   #: goals, or the exit's cells
    target_name: str = "goal"    #: what the targets are ("goal", "exit")
    title: str = ""


@dataclass(frozen=True)
class Film:
    """A scene and its frames (one frame for a still picture)."""

    scene: Scene
    frames: tuple[Frame, ...] = field(default_factory=tuple)

    def with_frames(self, frames) -> "Film":
        """The same scene with other frames."""
        return Film(self.scene, tuple(frames))
