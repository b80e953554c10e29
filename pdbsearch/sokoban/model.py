"""The immutable Sokoban level: walls, goals, the start position.

Cells are numbered ``row * width + col``.  Three kinds of non-wall cells
exist:

* **floor**: a non-wall cell enclosed by walls, i.e. not connected (through
  non-wall cells) to the edge of the board.  Boxes, goals and the player may
  only stand on floor.
* **outside**: a non-wall cell connected to the board edge, such as the
  blanks left of the first wall of a row or the padding of short rows.
* A floor cell may still be unreachable for the player (a sealed pocket);
  :meth:`Level.playable_cells` gives the cells the player can ever walk on.

Because outside cells touch the edge and floor cells do not, every floor
cell has four neighbours inside the grid: ``cell +- 1`` and
``cell +- width`` never wrap around or leave the board.  The move helpers
rely on that.

A level is checked when it is built (see :meth:`Level.from_parts`); the
parsers pass a function mapping cells to text positions so that errors point
at the right line and column.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np

from pdbsearch.errors import PuzzleFormatError

#: Largest board side (columns or rows), walls included.
MAX_SIDE = 64
#: Largest number of boxes in a level.
MAX_BOXES = 255

#: The four directions in LURD order: name -> (row delta, column delta).
DIRECTIONS: dict[str, tuple[int, int]] = {
    "l": (0, -1),
    "u": (-1, 0),
    "r": (0, 1),
    "d": (1, 0),
}

#: Maps a cell index to its (line, column) in the source text, or Nones.
Locator = Callable[[int], tuple[int | None, int | None]]


def _no_location(cell: int) -> tuple[int | None, int | None]:
    return None, None


@dataclass(frozen=True, eq=False)
class Level:
    """A Sokoban level: the fixed board and the start position.

    ``walls`` is a read-only ``bool`` array of shape ``(height, width)``;
    ``goals`` and ``boxes`` are frozensets of cell indices and ``player`` is
    a cell index.  ``title`` is the level's title when the file gives one;
    ``source`` names the file it came from (not part of equality).

    Construction validates the level and raises
    :class:`~pdbsearch.errors.PuzzleFormatError` when it is not playable;
    parsers use :meth:`from_parts`, which adds text positions to the errors.
    """

    width: int
    height: int
    walls: np.ndarray = field(repr=False)
    goals: frozenset[int]
    boxes: frozenset[int]
    player: int
    title: str | None = None
    source: str | None = field(default=None, repr=False)
    #: read-only bool array (height, width): True on floor cells
    floor: np.ndarray = field(init=False, repr=False)
    _floor_set: frozenset[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        walls = np.array(self.walls, dtype=bool, copy=True)
        walls.setflags(write=False)
        set_ = object.__setattr__  # the dataclass is frozen
        set_(self, "width", int(self.width))
        set_(self, "height", int(self.height))
        set_(self, "walls", walls)
        set_(self, "goals", frozenset(int(g) for g in self.goals))
        set_(self, "boxes", frozenset(int(b) for b in self.boxes))
        set_(self, "player", int(self.player))
        if walls.shape != (self.height, self.width):
            raise ValueError(f"walls has shape {walls.shape}, expected "
                             f"{(self.height, self.width)}")
        _validate(walls, sorted(self.goals), sorted(self.boxes), [self.player],
                  self.source or "<level>", None, _no_location)
        floor = _floor_mask(walls)
        floor.setflags(write=False)
        set_(self, "floor", floor)
        set_(self, "_floor_set", frozenset(np.flatnonzero(floor).tolist()))

    # -- construction -----------------------------------------------------

    @classmethod
    def from_parts(cls, walls: np.ndarray, goals: Iterable[int],
                   boxes: Iterable[int], players: Sequence[int],
                   title: str | None = None, *, source: str = "<string>",
                   line: int | None = None,
                   locate: Locator | None = None) -> Level:
        """Validate the pieces a parser found and build the level.

        ``players`` lists every player mark found (so that "no player" and
        "several players" can be reported); ``line`` is the first line of
        the level in ``source`` (used for errors about the level as a
        whole); ``locate`` maps a cell to its (line, column) in the text.

        Raises :class:`PuzzleFormatError` for: a board over the size limit,
        no player or several players, no boxes, more than the box limit, a
        box count different from the goal count, a player who can walk out
        of the level, a box or goal outside the walls.
        """
        walls = np.asarray(walls, dtype=bool)
        goals, boxes = sorted(goals), sorted(boxes)
        _validate(walls, goals, boxes, list(players), source, line,
                  locate or _no_location)
        return cls(width=walls.shape[1], height=walls.shape[0], walls=walls,
                   goals=frozenset(goals), boxes=frozenset(boxes),
                   player=players[0], title=title, source=source)

    def with_state(self, boxes: Iterable[int] | None = None,
                   player: int | None = None) -> Level:
        """A copy of this level with another start position (validated)."""
        return dataclasses.replace(
            self, boxes=self.boxes if boxes is None else frozenset(boxes),
            player=self.player if player is None else player)

    # -- equality (numpy arrays do not compare as a single bool) ----------

    def _key(self) -> tuple:
        return (self.width, self.height, self.walls.tobytes(), self.goals,
                self.boxes, self.player, self.title)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Level):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    # -- geometry ---------------------------------------------------------

    def cell(self, row: int, col: int) -> int:
        """The index of the cell at ``(row, col)``."""
        return row * self.width + col

    def row_col(self, cell: int) -> tuple[int, int]:
        """The ``(row, col)`` of a cell index."""
        return divmod(cell, self.width)

    def delta(self, direction: str) -> int:
        """The index offset of one step in a LURD direction (either case)."""
        dr, dc = DIRECTIONS[direction.lower()]
        return dr * self.width + dc

    def is_floor(self, cell: int) -> bool:
        """True if ``cell`` is a floor cell (enclosed, not a wall)."""
        return cell in self._floor_set

    def floor_cells(self) -> tuple[int, ...]:
        """All floor cells (the interior of the walls), in increasing order."""
        return tuple(sorted(self._floor_set))

    def playable_cells(self) -> frozenset[int]:
        """The cells the player can ever stand on: the player's area with
        the boxes ignored.  A box can only ever move inside this set too."""
        return self.reachable(self.player, ())

    def neighbors(self, cell: int) -> list[int]:
        """The floor cells next to ``cell``, in LURD order."""
        w = self.width
        return [n for n in (cell - 1, cell - w, cell + 1, cell + w)
                if n in self._floor_set]

    # -- positions --------------------------------------------------------

    def reachable(self, player: int | None = None,
                  boxes: Iterable[int] | None = None) -> frozenset[int]:
        """The floor cells the player can walk to (boxes block the way).

        Defaults are the start position of the level.
        """
        start = self.player if player is None else player
        blocked = self.boxes if boxes is None else frozenset(boxes)
        floor, w = self._floor_set, self.width
        seen = {start}
        todo = [start]
        while todo:
            c = todo.pop()
            for n in (c - 1, c - w, c + 1, c + w):
                if n in floor and n not in blocked and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return frozenset(seen)

    def normalized_player(self, player: int | None = None,
                          boxes: Iterable[int] | None = None) -> int:
        """The smallest cell index the player can reach: one representative
        for all player cells that are equivalent at push level."""
        return min(self.reachable(player, boxes))

    def is_solved(self, boxes: Iterable[int] | None = None) -> bool:
        """True if every box stands on a goal (default: the start boxes)."""
        current = self.boxes if boxes is None else frozenset(boxes)
        return current == self.goals


# -- validation helpers ------------------------------------------------------


def _floor_mask(walls: np.ndarray) -> np.ndarray:
    """Non-wall cells that cannot reach the board edge through non-walls."""
    height, width = walls.shape
    outside = np.zeros_like(walls)
    todo: deque[tuple[int, int]] = deque()
    for r in range(height):
        for c in range(width):
            on_edge = r in (0, height - 1) or c in (0, width - 1)
            if on_edge and not walls[r, c]:
                outside[r, c] = True
                todo.append((r, c))
    while todo:
        r, c = todo.popleft()
        for dr, dc in DIRECTIONS.values():
            nr, nc = r + dr, c + dc
            if (0 <= nr < height and 0 <= nc < width and not walls[nr, nc]
                    and not outside[nr, nc]):
                outside[nr, nc] = True
                todo.append((nr, nc))
    return ~walls & ~outside


def _escape_cell(walls: np.ndarray, start: int) -> int | None:
    """A board-edge cell the player at ``start`` can walk to, or None."""
    height, width = walls.shape
    seen = {start}
    todo = deque([start])
    while todo:
        r, c = divmod(todo.popleft(), width)
        if r in (0, height - 1) or c in (0, width - 1):
            return r * width + c
        for dr, dc in DIRECTIONS.values():
            nr, nc = r + dr, c + dc
            n = nr * width + nc
            if not walls[nr, nc] and n not in seen:
                seen.add(n)
                todo.append(n)
    return None


def _validate(walls: np.ndarray, goals: list[int], boxes: list[int],
              players: list[int], source: str, line: int | None,
              locate: Locator) -> None:
    """Raise PuzzleFormatError if the pieces do not make a playable level."""

    def fail(message: str, cell: int | None = None) -> None:
        where_line, where_col = (line, None) if cell is None else locate(cell)
        raise PuzzleFormatError(message, source=source, line=where_line,
                                column=where_col)

    def at(cell: int) -> str:
        r, c = locate(cell)
        if r is None:
            row, col = divmod(cell, walls.shape[1])
            return f"row {row + 1}, column {col + 1} of the board"
        return f"line {r}, column {c}"

    if walls.ndim != 2 or walls.size == 0:
        fail("the level has no board")
    height, width = walls.shape
    if width > MAX_SIDE or height > MAX_SIDE:
        fail(f"the level is {width} x {height} cells; the limit is "
             f"{MAX_SIDE} x {MAX_SIDE} (walls included)")
    n_cells = width * height
    for kind, cells in (("player", players), ("box", boxes), ("goal", goals)):
        for cell in cells:
            if not 0 <= cell < n_cells:
                raise ValueError(f"{kind} cell {cell} is off the "
                                 f"{width} x {height} board")
            if walls.flat[cell]:
                fail(f"a {kind} stands on a wall", cell)
    if not players:
        fail("the level has no player")
    if len(players) > 1:
        fail(f"the level has {len(players)} players (the first at "
             f"{at(players[0])}); exactly one is allowed", players[1])
    if len(set(boxes)) != len(boxes):
        raise ValueError("two boxes on the same cell")
    if not boxes:
        fail("the level has no boxes")
    if len(boxes) > MAX_BOXES:
        fail(f"the level has {len(boxes)} boxes; the limit is {MAX_BOXES}")
    if len(boxes) != len(set(goals)):
        n_goals = len(set(goals))
        fail(f"the level has {len(boxes)} box{'es' if len(boxes) != 1 else ''}"
             f" but {n_goals} goal{'s' if n_goals != 1 else ''}; "
             "the counts must be equal")
    player = players[0]
    if player in set(boxes):
        fail("the player stands on a box", player)
    escape = _escape_cell(walls, player)
    if escape is not None:
        fail(f"the player can walk out of the level: nothing walls it in on "
             f"the way to the board edge at {at(escape)}", player)
    floor = _floor_mask(walls)
    for kind, cells in (("box", boxes), ("goal", goals)):
        for cell in cells:
            if not floor.flat[cell]:
                fail(f"a {kind} lies outside the walls of the level", cell)
