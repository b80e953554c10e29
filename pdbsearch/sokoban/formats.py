"""Reading and writing Sokoban levels: XSB, SLC, ICPC "Push!!" and seed 002.

Four text formats are read:

* **XSB** (the standard): ``#`` wall, `` ``/``-``/``_`` floor, ``$`` box,
  ``.`` goal, ``*`` box on goal, ``@`` player, ``+`` player on goal; the
  letters ``b`` (box), ``B`` (box on goal), ``p`` (player) and ``P``
  (player on goal) are accepted too, and so is run-length encoding (a count
  before a character repeats it, ``|`` ends a row: ``5#|#@$.#|5#``), as
  the level format of the Sokoban wiki (sokobano.de) allows.  A file may
  hold one level or a collection (see :func:`parse_xsb_collection`), with
  the notes of SOK files between the boards.
* **SLC** (the XML collections of Sokoban YASC, JSoko and most level
  sites): ``<Level Id="title">`` elements, one ``<L>`` per row in the XSB
  legend (see :func:`parse_slc`).
* **Push!!** (ICPC, one box, see :func:`parse_push`): ``w h`` then ``h``
  rows of ``w`` integers, ``0 0`` at the end.
* **seed 002** (a magazine article's C string): ``*`` wall, ``.`` floor,
  ``%`` goal, ``o`` box, ``@`` player, ``G`` box on goal; ``+`` (player on
  goal) is accepted too, since it means nothing else in that legend.

Every malformed input raises :class:`~pdbsearch.errors.PuzzleFormatError`
with the source name and the 1-based line and column of the problem.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Sequence

from pdbsearch.errors import PuzzleFormatError, quote
from pdbsearch.io import decode_text
from pdbsearch.sokoban.gridformat import (CONTENT_LINE, GRID_FORMATS, InvalidLevel,
                                          grid_levels_each, parse_seed002, parse_xsb_collection)
from pdbsearch.sokoban.gridscan import GridScan
from pdbsearch.sokoban.model import Level
from pdbsearch.sokoban.pushformat import parse_push
from pdbsearch.sokoban.slcformat import parse_slc, slc_levels_each

__all__ = ["FORMATS", "InvalidLevel", "detect_format", "format_xsb", "format_xsb_collection",
           "load_levels", "parse_levels", "parse_levels_each", "parse_push", "parse_seed002",
           "parse_slc", "parse_xsb_collection", "read_level", "select_level"]

FORMATS = ("xsb", "slc", "push", "seed002")


# -- sniffing, loading, choosing ---------------------------------------------


def detect_format(text: str) -> str:
    """Guess a level text's format: ``"xsb"``, ``"slc"``, ``"push"`` or ``"seed002"``.

    A text that starts with ``<`` (after blanks) is XML, so SLC.  A text
    whose first non-blank line is two integers is Push!!.  A text
    with board rows made of seed 002 characters that use ``*`` walls and
    contain ``o``, ``%`` or ``G``, and no ``#`` or ``$`` anywhere in its
    rows, is seed 002.  Anything else is XSB (whose parser then reports
    what is wrong, if anything).  One regular-expression scan of each kind:
    quick on large files.
    """
    if text.lstrip("\ufeff \t\r\n").startswith("<"):
        return "slc"
    first = _FIRSTCONTENT_LINE.search(text.lstrip("\ufeff"))
    if first and re.fullmatch(r"\s*\d+\s+\d+\s*", first.group()):
        return "push"
    if _XSB_HINT.search(text):
        return "xsb"
    return "seed002" if _SEED002_ROW.search(text) else "xsb"


_FIRSTCONTENT_LINE = re.compile(r"^[^\S\n]*\S.*$", re.M)
_XSB_HINT = re.compile(CONTENT_LINE + r"[^\n]*[#$]", re.M)
_SEED002_ROW = re.compile(CONTENT_LINE + r"(?=[^\n]*\*)(?=[^\n]*[o%G])[*. %oG@+]+[^\S\n]*$", re.M)


_PARSERS = {"xsb": parse_xsb_collection, "slc": parse_slc, "push": parse_push,
            "seed002": parse_seed002}


def parse_levels(text: str, source: str = "<string>",
                 fmt: str | None = None) -> list[Level]:
    """Parse ``text`` in format ``fmt`` (one of :data:`FORMATS`), or in the
    format :func:`detect_format` guesses when ``fmt`` is None."""
    fmt = detect_format(text) if fmt is None else fmt
    if fmt not in _PARSERS:
        raise ValueError(f"unknown level format {fmt!r}; use one of "
                         f"{', '.join(FORMATS)}")
    return _PARSERS[fmt](text, source)


def parse_levels_each(text: str, source: str = "<string>",
                      fmt: str | None = None) -> list[Level | InvalidLevel]:
    """Every level of a collection, each built and checked on its own, so
    that one bad level does not hide the others: a level that breaks a rule
    of the model comes back as an :class:`InvalidLevel` in its place.

    Errors of the text itself (a character outside the legend in a board
    row, no level at all) still raise :class:`PuzzleFormatError`, and so
    does any error in a Push!! file (its maps are read as one stream).
    """
    fmt = detect_format(text) if fmt is None else fmt
    if fmt in GRID_FORMATS:
        return grid_levels_each(text, source, *GRID_FORMATS[fmt])
    if fmt == "slc":
        return slc_levels_each(text, source)
    return list(parse_levels(text, source, fmt))


def load_levels(path: str | Path, fmt: str | None = None) -> list[Level]:
    """Read every level of a file (format detected unless ``fmt`` is given).

    The bytes are read as :func:`pdbsearch.io.decode_text` says (UTF-8,
    else Windows-1252); a character outside the legend is reported with
    its position.  A missing file raises the usual :class:`OSError`.
    """
    path = Path(path)
    return parse_levels(decode_text(path.read_bytes()), str(path), fmt)


def select_level(levels: Sequence[Level], spec: int | str,
                 source: str | None = None) -> Level:
    """Pick one level of a collection by 1-based number or by title.

    ``spec`` may be an int, a string of digits (a number) or a title
    (matched exactly, else ignoring case and surrounding blanks).  Raises
    :class:`PuzzleFormatError` naming the file and its number of levels if
    the number is out of range or no level (or more than one) has that
    title.  ``source`` defaults to the source recorded in the levels.
    """
    if source is None:
        source = (levels[0].source if levels else None) or "<string>"
    count = f"{len(levels)} level{'s' if len(levels) != 1 else ''}"
    if isinstance(spec, int) or (isinstance(spec, str)
                                 and spec.strip().isdigit()):
        number = int(spec)
        if not 1 <= number <= len(levels):
            raise PuzzleFormatError(
                f"level {number} does not exist: the file has {count} "
                f"(numbered 1 to {len(levels)})", source=source)
        return levels[number - 1]
    matches = [i for i, lv in enumerate(levels) if lv.title == spec]
    if not matches:
        wanted = spec.strip().casefold()
        matches = [i for i, lv in enumerate(levels)
                   if lv.title is not None
                   and lv.title.strip().casefold() == wanted]
    if not matches:
        raise PuzzleFormatError(
            f"no level titled {quote(spec)} among the file's {count}",
            source=source)
    if len(matches) > 1:
        numbers = ", ".join(str(i + 1) for i in matches)
        raise PuzzleFormatError(
            f"{len(matches)} levels are titled {quote(spec)} (numbers {numbers}); "
            "select one by number", source=source)
    return levels[matches[0]]


def read_level(text: str, source: str, spec: int | str = 1, fmt: str | None = None) -> Level:
    """Level ``spec`` (1-based number or title, as :func:`select_level`) of
    a collection, building and checking that level only.

    On a large XSB or seed 002 collection the boards are found by one
    regular-expression scan instead of being parsed one by one, and only the
    paragraph holding the chosen one goes through the parser, so level N of
    a 10 MB file is read in a fraction of a second.  Texts the fast scan
    cannot read exactly as the parser does (non-ASCII, unusual line breaks)
    and Push!! maps take the full parse.
    """
    fmt = detect_format(text) if fmt is None else fmt
    if fmt in GRID_FORMATS:
        lazy = GridScan.of(text, source, fmt)
        if lazy is not None:
            return lazy.select(spec)
    return select_level(parse_levels(text, source, fmt), spec, source)


# -- writing ------------------------------------------------------------------


def format_xsb(level: Level, boxes: Iterable[int] | None = None,
               player: int | None = None, *, title: bool = True) -> str:
    """The level in XSB, with another position if ``boxes``/``player`` are
    given.  Trailing blanks are stripped; a ``; Title: X`` line comes first
    when the level has a title and ``title`` is true.  The text parses back
    (with :func:`parse_xsb_collection`) to an equal level.
    """
    box_set = level.boxes if boxes is None else frozenset(boxes)
    man = level.player if player is None else player
    for cell in (*box_set, man):
        if not level.is_floor(cell):
            raise ValueError(f"cell {cell} is not a floor cell")
    if man in box_set:
        raise ValueError("the player stands on a box")
    lines = []
    if title and level.title is not None:
        lines.append(f"; Title: {level.title}")
    for r in range(level.height):
        chars = []
        for c in range(level.width):
            cell = r * level.width + c
            goal = cell in level.goals
            if level.walls[r, c]:
                chars.append("#")
            elif cell == man:
                chars.append("+" if goal else "@")
            elif cell in box_set:
                chars.append("*" if goal else "$")
            else:
                chars.append("." if goal else " ")
        lines.append("".join(chars).rstrip())
    rows = lines[len(lines) - level.height:]
    # Stripped blanks would shrink the board (or, for an all-outside row,
    # end it): pad with '-', an explicit floor mark that, touching the edge
    # of the board, parses back as outside.
    for r, row in enumerate(rows):
        if not row:
            rows[r] = "-"
    if max(len(row) for row in rows) < level.width:
        rows[0] = rows[0].ljust(level.width, "-")
    lines[len(lines) - level.height:] = rows
    return "\n".join(lines) + "\n"


def format_xsb_collection(levels: Iterable[Level]) -> str:
    """Several levels as an XSB collection: a ``; N`` line before each
    level, blank lines between them."""
    parts = [f"; {n}\n{format_xsb(level)}"
             for n, level in enumerate(levels, start=1)]
    return "\n".join(parts)
