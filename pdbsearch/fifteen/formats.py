"""The sliding-tile file formats: one board, or a collection of instances.

**One board** (``.txt``)::

    # Korf's instance 1
    14 13 15  7
    11 12  9  5
     6  0  2  1
     4  8 10  3

* Lines starting with ``#`` are comments (kept), as is the end of a line
  from a ``#``; blank lines are skipped.
* Every other line is a row of whole numbers separated by spaces or tabs,
  all rows of the same length (2 to 8 columns, 2 to 8 rows); ``0`` is the
  blank, and the numbers are exactly ``0 .. n − 1`` once each.
* The goal is Korf's convention unless the file gives its own: the blank in
  the top-left corner and tile ``t`` on cell ``t`` (cells numbered row by
  row from 0).
* A line ``goal:`` after the rows gives the board's own goal: its tiles row
  by row, on that line (``goal: 1 2 3 4 5 6 7 8 0``) or as rows below it
  like the board's::

      1 2 3
      4 0 5
      7 8 6
      goal:
      1 2 3
      4 5 6
      7 8 0

* A board its goal cannot be reached from (the wrong permutation parity) is
  refused.

**A collection** (Korf's 100, ``korf100.txt``): one instance a line,
``id optimal t0 t1 … t(n−1)`` (tiles row by row, 0 the blank), ``#``
comments.  ``n`` must be a square (4, 9, 16, 25 …: a square board);
``optimal`` is the recorded optimal solution length (``-`` if unknown), which
``pdbsearch levels`` checks its answers against.  Its instances have Korf's
goal unless a ``goal: t0 t1 …`` line before them gives every instance that
goal.

A text is a collection when it is not one board: its numbers are not a
permutation and every line holds ``2 + s²`` numbers (:func:`is_collection`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import PuzzleFormatError, quote
from .model import MAX_SIDE, MIN_SIDE, Board


@dataclass(frozen=True)
class Instance:
    """One line of a collection."""

    id: str
    optimal: int | None       #: the recorded optimal length, None when unknown
    board: Board
    line: int                 #: its line in the file (1-based)


_INT = re.compile(r"\d+")


def _content(text: str) -> list[tuple[int, str]]:
    """(line number, text) of every line that is neither blank nor a comment,
    without a ``#`` comment at its end (its leading spaces kept, so that
    columns count from the line's start)."""
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.replace("\ufeff", " ").split("#")[0].rstrip()
        if line.strip():
            lines.append((number, line))
    return lines


def _numbers(line: str, number: int, source: str) -> list[int]:
    """The whole numbers of a line, or PuzzleFormatError naming the first bad token."""
    values: list[int] = []
    column = 1
    for token in line.split():
        column = line.index(token, column - 1) + 1
        if _INT.fullmatch(token) and token.isascii() and len(token) <= 3:
            values.append(int(token))
        else:
            raise PuzzleFormatError(f"{quote(token)} is not a tile number (whole numbers, "
                                    f"0 for the blank)", source, number, column)
        column += len(token)
    return values


def _check_set(tiles: list[int], width: int, height: int, source: str, line_of_cell,
               where: str = "") -> None:
    """The tile set must be 0 .. n-1 once each (``where``: " in the goal" or "")."""
    n = width * height
    seen: dict[int, int] = {}
    for cell, t in enumerate(tiles):
        if t >= n:
            raise PuzzleFormatError(f"tile {t}{where} on a {width}x{height} board (tiles are 0 "
                                    f"to {n - 1}, 0 the blank)", source, *line_of_cell(cell))
        if t in seen:
            raise PuzzleFormatError(f"tile {t} appears twice{where}", source,
                                    *line_of_cell(cell))
        seen[t] = cell


def _check_tiles(tiles: list[int], width: int, height: int, source: str,
                 line_of_cell, goal: tuple[int, ...] | None = None) -> None:
    """The tile set must be 0 .. n-1 once each, and the goal (default
    Korf's, already checked) reachable."""
    _check_set(tiles, width, height, source, line_of_cell)
    board = Board(width, height, tuple(tiles), goal=goal)
    if not board.is_solvable():
        goal_text = "the goal (blank top-left, tiles in order)" if board.goal is None \
            else "its goal"
        raise PuzzleFormatError(f"unsolvable: {goal_text} cannot be reached from this board "
                                f"(wrong permutation parity)", source, line_of_cell(0)[0])


_GOAL = re.compile(r"\s*goal\s*:", re.I)


def _split_goal(lines: list[tuple[int, str]], source: str):
    """(the board's lines, the goal's lines or None, the ``goal:`` line's
    number): the text of the ``goal:`` line after its colon is the goal's
    first line when it holds numbers."""
    for i, (number, line) in enumerate(lines):
        found = _GOAL.match(line)
        if not found:
            continue
        for later, text in lines[i + 1:]:
            if _GOAL.match(text):
                raise PuzzleFormatError(f"a second goal (the first on line {number})",
                                        source, later)
        # the numbers after the colon, padded so that columns stay the line's
        rest = " " * found.end() + line[found.end():]
        goal_lines = ([(number, rest)] if rest.strip() else []) + lines[i + 1:]
        if not goal_lines:
            raise PuzzleFormatError("the goal has no tiles: write them after 'goal:' or as "
                                    "rows below it", source, number)
        return lines[:i], goal_lines, number
    return lines, None, None


def _parse_goal(goal_lines: list[tuple[int, str]], width: int, height: int,
                source: str) -> tuple[int, ...]:
    """The goal's tiles: one line of ``width × height`` numbers, or
    ``height`` rows of ``width``."""
    rows = [(number, _numbers(line, number, source)) for number, line in goal_lines]
    n = width * height
    if len(rows) == 1:
        number, tiles = rows[0]
        if len(tiles) != n:
            raise PuzzleFormatError(f"the goal has {len(tiles)} tiles; the board has {n} "
                                    f"cells", source, number)
        line_of_cell = lambda cell: (number, None)      # noqa: E731
    else:
        for number, row in rows:
            if len(row) != width:
                raise PuzzleFormatError(f"ragged goal rows: this row has {len(row)} numbers, "
                                        f"the board's rows have {width}", source, number)
        if len(rows) != height:
            raise PuzzleFormatError(f"the goal has {len(rows)} rows; the board has {height}",
                                    source, rows[-1][0])
        tiles = [t for _, row in rows for t in row]
        line_of_cell = lambda cell: (rows[cell // width][0], None)      # noqa: E731
    _check_set(tiles, width, height, source, line_of_cell, " in the goal")
    return tuple(tiles)


def parse_board(text: str, source: str = "<string>") -> Board:
    """Parse one board; raises PuzzleFormatError naming the line and column."""
    comments = tuple(line.strip()[1:].strip() for line in text.splitlines()
                     if line.strip().startswith("#"))
    lines, goal_lines, goal_line = _split_goal(_content(text), source)
    if not lines:
        raise PuzzleFormatError("no board rows found (rows of tile numbers, 0 the blank)",
                                source, goal_line)
    rows = [(number, _numbers(line, number, source)) for number, line in lines]
    width = len(rows[0][1])
    for number, row in rows:
        if len(row) != width:
            raise PuzzleFormatError(f"ragged rows: this row has {len(row)} numbers, the first "
                                    f"row has {width}", source, number)
    height = len(rows)
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise PuzzleFormatError(f"the board is {width} x {height}; each side must be from "
                                f"{MIN_SIDE} to {MAX_SIDE}", source, rows[0][0])
    tiles = [t for _, row in rows for t in row]
    goal = None if goal_lines is None else _parse_goal(goal_lines, width, height, source)
    _check_tiles(tiles, width, height, source,
                 lambda cell: (rows[cell // width][0], None), goal)
    return Board(width, height, tuple(tiles), comments, goal)


def is_collection(text: str) -> bool:
    """True when ``text`` reads as a collection rather than one board: every
    line has ``2 + s²`` tokens (s ≥ 2), and either its numbers are not each
    different or some line's id or optimum is not a tile number (a word, or
    ``-`` for an unknown optimum: a board row holds numbers only)."""
    lines = [(n, line) for n, line in _content(text) if not _GOAL.match(line)]
    if not lines:
        return False
    tokens = [line.split() for _, line in lines]
    if not all(len(row) >= 6 and math.isqrt(len(row) - 2) ** 2 == len(row) - 2
               for row in tokens):
        return False
    flat = [t for row in tokens for t in row]
    return len(set(flat)) < len(flat) or any(not _INT.fullmatch(t) for row in tokens
                                             for t in row[:2])


def parse_collection(text: str, source: str = "<string>") -> list[Instance]:
    """Parse a collection (``id optimal t0 … t(n−1)`` a line); raises
    PuzzleFormatError naming the line and what is wrong."""
    instances = []
    ids: dict[str, int] = {}
    size = None
    goal_line, goal_text, goal = None, None, None
    for number, line in _content(text):
        found = _GOAL.match(line)
        if found:
            if goal_line is not None:
                raise PuzzleFormatError(f"a second goal (the first on line {goal_line})",
                                        source, number)
            if instances:
                raise PuzzleFormatError("the goal line must come before the instances",
                                        source, number)
            goal_line, goal_text = number, " " * found.end() + line[found.end():]
            continue
        tokens = line.split()
        if len(tokens) < 6:
            raise PuzzleFormatError(f"{len(tokens)} fields; a collection line is 'id optimal "
                                    f"t0 t1 ...' (tiles row by row, 0 the blank)", source, number)
        ident = tokens[0]
        if len(ident) > 40 or not ident.isprintable():
            raise PuzzleFormatError(f"bad id {quote(ident)}", source, number, 1)
        if ident in ids:
            raise PuzzleFormatError(f"the id {quote(ident)} is used twice (first on line "
                                    f"{ids[ident]})", source, number, 1)
        ids[ident] = number
        optimal = None if tokens[1] == "-" else _numbers(tokens[1], number, source)[0]
        tiles = _numbers(" ".join(tokens[2:]), number, source)
        side = math.isqrt(len(tiles))
        if side * side != len(tiles) or not MIN_SIDE <= side <= MAX_SIDE:
            raise PuzzleFormatError(f"{len(tiles)} tiles: a collection holds square boards of "
                                    f"4 to {MAX_SIDE * MAX_SIDE} cells (2x2 to "
                                    f"{MAX_SIDE}x{MAX_SIDE})", source, number)
        if size is not None and side != size:
            raise PuzzleFormatError(f"a {side}x{side} board among {size}x{size} ones",
                                    source, number)
        if size is None and goal_text is not None:     # the first instance sets the size
            goal = _parse_goal([(goal_line, goal_text)], side, side, source)
        size = side
        _check_tiles(tiles, side, side, source, lambda cell: (number, None), goal)
        instances.append(Instance(ident, optimal, Board(side, side, tuple(tiles), goal=goal),
                                  number))
    if not instances:
        raise PuzzleFormatError("no instances found (one a line: id optimal t0 t1 ...)", source)
    return instances


def pick(instances: list[Instance], level: int | str | None, source: str) -> Instance:
    """The instance a ``level`` names: its 1-based position, or its id."""
    if level is None:
        return instances[0]
    text = str(level).strip()
    for inst in instances:
        if inst.id == text:
            return inst
    if text.isascii() and text.isdigit() and 1 <= int(text) <= len(instances):
        return instances[int(text) - 1]
    raise PuzzleFormatError(f"no instance {quote(text)}: the collection has "
                            f"{len(instances)} (ids {instances[0].id} ... {instances[-1].id})",
                            source)


def format_board(board: Board) -> str:
    """A board as text (a file :func:`parse_board` reads back)."""
    width = len(str(board.cells - 1))
    lines = [f"# {c}" for c in board.comments]
    grids = [board.tiles] if board.goal is None else [board.tiles, board.goal]
    for number, tiles in enumerate(grids):
        if number:
            lines.append("goal:")
        for y in range(board.height):
            row = tiles[y * board.width:(y + 1) * board.width]
            lines.append(" ".join(f"{t:>{width}}" for t in row))
    return "\n".join(lines) + "\n"


def load_board(path: str | Path) -> Board:
    """Read one board file."""
    from ..io import read_text
    return parse_board(read_text(path), str(path))
