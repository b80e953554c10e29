"""The ICPC "Push!!" maps: ``w h``, then ``h`` rows of ``w`` integers (0
floor, 1 wall, 2 box, 3 goal, 4 player), repeated, then ``0 0``."""

from __future__ import annotations

import re

import numpy as np

from pdbsearch.errors import PuzzleFormatError
from pdbsearch.sokoban.gridformat import text_lines
from pdbsearch.sokoban.model import MAX_SIDE, Level

_PUSH_TILES = {0: "floor", 1: "wall", 2: "box", 3: "goal", 4: "player"}


def parse_push(text: str, source: str = "<string>") -> list[Level]:
    """Parse ICPC "Push!!" maps: ``w h``, then ``h`` rows of ``w`` integers
    (0 floor, 1 wall, 2 box, 3 goal, 4 player), repeated, then ``0 0``.

    Each row of the map must be on its own line (blank lines are skipped).
    Each map needs exactly one box, one goal and one player.  The border of
    the map acts as a wall, so the grid is wrapped in walls: the level is
    ``(w + 2) x (h + 2)`` and map cell (r, c) becomes level cell
    ``(r + 1) * (w + 2) + c + 1``.  Sides up to ``MAX_SIDE - 2`` are
    accepted (the contest itself has ``w, h <= 7``).

    Lenient on one point: the ``0 0`` terminator may be missing at the end
    of the text (many copies of the sample omit it), but a map cut short is
    an error, and so is any text after ``0 0``.
    """
    lines = text_lines(text)
    levels: list[Level] = []
    i = 0

    def next_line(start: int) -> int:
        while start < len(lines) and not lines[start].strip():
            start += 1
        return start

    while True:
        i = next_line(i)
        if i == len(lines):
            break  # EOF without "0 0": accepted (see the docstring)
        header_line = i + 1
        fields = _tokens(lines[i])
        if len(fields) != 2:
            raise PuzzleFormatError(
                f"expected a map header 'w h' (two integers), found "
                f"{len(fields)} value(s)", source=source, line=header_line,
                column=fields[0][0] if fields else None)
        w, h = (_int_token(tok, col, header_line, source, "a map size")
                for col, tok in fields)
        i += 1
        if (w, h) == (0, 0):
            rest = next_line(i)
            if rest < len(lines):
                raise PuzzleFormatError(
                    "text after the terminating '0 0' line", source=source,
                    line=rest + 1)
            break
        limit = MAX_SIDE - 2
        if not (1 <= w <= limit and 1 <= h <= limit):
            raise PuzzleFormatError(
                f"map size {w} x {h} is out of range (1 to {limit} each)",
                source=source, line=header_line)
        rows: list[tuple[int, list[tuple[int, int]]]] = []
        for _ in range(h):
            i = next_line(i)
            if i == len(lines):
                raise PuzzleFormatError(
                    f"the map declared here ({w} x {h}) is cut short: only "
                    f"{len(rows)} of its {h} rows are present",
                    source=source, line=header_line)
            fields = _tokens(lines[i])
            if len(fields) != w:
                raise PuzzleFormatError(
                    f"map row has {len(fields)} values, expected {w}",
                    source=source, line=i + 1,
                    column=fields[w][0] if len(fields) > w else None)
            values = [(col, _tile(tok, col, i + 1, source))
                      for col, tok in fields]
            rows.append((i + 1, values))
            i += 1
        levels.append(_push_level(rows, w, h, header_line, source))
    if not levels:
        raise PuzzleFormatError("no Push!! map found", source=source)
    return levels


def _tokens(line: str) -> list[tuple[int, str]]:
    """Whitespace-separated fields with their 1-based columns."""
    return [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", line)]


#: Most digits a Push!! integer may have (far beyond any valid size).
_MAX_DIGITS = 6


def _int_token(tok: str, col: int, line: int, source: str, what: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", tok):
        shown = tok if len(tok) <= 20 else tok[:20] + "..."
        raise PuzzleFormatError(f"{what} must be an integer, found {shown!r}",
                                source=source, line=line, column=col)
    digits = tok.lstrip("+-").lstrip("0") or "0"   # leading zeros: any number of them
    if len(digits) > _MAX_DIGITS:
        raise PuzzleFormatError(f"{what} has {len(digits)} digits: far too large",
                                source=source, line=line, column=col)
    return -int(digits) if tok.startswith("-") else int(digits)


def _tile(tok: str, col: int, line: int, source: str) -> int:
    value = _int_token(tok, col, line, source, "a map cell")
    if value not in _PUSH_TILES:
        raise PuzzleFormatError(
            f"map cell value {value} is not one of 0 floor, 1 wall, 2 box, "
            "3 goal, 4 player", source=source, line=line, column=col)
    return value


def _push_level(rows: list[tuple[int, list[tuple[int, int]]]], w: int,
                h: int, header_line: int, source: str) -> Level:
    width, height = w + 2, h + 2
    walls = np.ones((height, width), dtype=bool)
    found: dict[int, list[int]] = {2: [], 3: [], 4: []}
    where: dict[int, tuple[int, int]] = {}
    for r, (line, values) in enumerate(rows, start=1):
        for c, (col, value) in enumerate(values, start=1):
            cell = r * width + c
            where[cell] = (line, col)
            walls[r, c] = value == 1
            if value in found:
                if found[value]:
                    raise PuzzleFormatError(
                        f"a second {_PUSH_TILES[value]} ({value}); a Push!! "
                        "map has exactly one box, one goal and one player",
                        source=source, line=line, column=col)
                found[value].append(cell)
    for value, cells in found.items():
        if not cells:
            raise PuzzleFormatError(
                f"the map has no {_PUSH_TILES[value]} ({value})",
                source=source, line=header_line)

    def locate(cell: int) -> tuple[int | None, int | None]:
        return where.get(cell, (None, None))

    return Level.from_parts(walls, found[3], found[2], found[4],
                            source=source, line=header_line, locate=locate)
