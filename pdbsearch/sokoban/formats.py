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
import string
from bisect import bisect_left
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

import numpy as np

from pdbsearch.errors import PuzzleFormatError, quote
from pdbsearch.io import decode_text
from pdbsearch.sokoban.model import MAX_SIDE, Level
from pdbsearch.sokoban.slcformat import read_slc_boards

# Bit flags of what a character puts on its cell.
_WALL, _GOAL, _BOX, _PLAYER = 1, 2, 4, 8

_XSB_LEGEND: dict[str, int] = {
    "#": _WALL, " ": 0, "-": 0, "_": 0, "$": _BOX, ".": _GOAL,
    "*": _BOX | _GOAL, "@": _PLAYER, "+": _PLAYER | _GOAL,
    "b": _BOX, "B": _BOX | _GOAL, "p": _PLAYER, "P": _PLAYER | _GOAL,
}
_SEED002_LEGEND: dict[str, int] = {
    "*": _WALL, ".": 0, " ": 0, "%": _GOAL, "o": _BOX, "G": _BOX | _GOAL,
    "@": _PLAYER, "+": _PLAYER | _GOAL,
}

#: ``; Title: X`` (a comment carrying the title).
_COMMENT_TITLE = re.compile(r"^\s*;\s*title\s*:\s*(.*?)\s*$", re.IGNORECASE)
#: ``Key: value`` metadata lines (``Title: X``, ``Author: Y`` ...).  No board
#: character is a letter followed by ``:``, so these never look like rows.
_METADATA = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 _-]*?)\s*:\s*(.*?)\s*$")
#: A SOK file's multi-line note: ``Comment:`` alone on its line, up to
#: ``Comment-End:``; every line between is text, whatever it holds.
_COMMENT_START = re.compile(r"^[ \t]*comment[ \t]*:[ \t]*$", re.IGNORECASE | re.MULTILINE)
_COMMENT_END = re.compile(r"^\s*comment[-_ ]?end\s*:?\s*$", re.IGNORECASE)

FORMATS = ("xsb", "slc", "push", "seed002")


# -- grid formats (XSB, seed 002) --------------------------------------------


def parse_xsb_collection(text: str, source: str = "<string>") -> list[Level]:
    """Parse XSB text holding one level or a collection of levels.

    Layout rules:

    * a level is a run of consecutive board rows; blank lines (or any
      non-board line) end it, so levels are separated by blank lines;
    * lines starting with ``;`` or ``::`` are comments, and so are the
      lines of a ``Comment:`` ... ``Comment-End:`` block (SOK files' notes);
      ``; Title: X`` and a plain
      ``Title: X`` line give a title: to the board just above it if only
      metadata lines lie between them and that board has no title yet,
      otherwise to the next board of the same paragraph (block of non-blank
      lines); a title with no board in its paragraph is ignored;
    * other ``Key: value`` lines (``Author:`` ...) and free-text lines
      without any ``#`` are ignored;
    * a line containing ``#`` is a board row: every character must belong to
      the XSB legend, otherwise the error names its line and column; unless
      it holds a word (two letters side by side, not both of the legend's
      ``p P b B``): then it is text (``Level #12``), as no board row holds one;
    * a board row may be run-length encoded: digits give the count of the
      character after them, ``|`` ends a row (so one line may hold several
      rows, or a whole level); an error in such a line names its column,
      and an error about a cell of the level names the line and the column
      in the decoded row;
    * rows may be ragged: short rows are padded with outside cells.

    Raises :class:`PuzzleFormatError` if the text holds no level or any
    level is malformed.
    """
    return _parse_grid_collection(text, source, _XSB_LEGEND, "#", "XSB")


def parse_seed002(text: str, source: str = "<string>") -> list[Level]:
    """Parse levels in seed 002's legend (``*`` wall, ``.`` floor, ``%`` goal,
    ``o`` box, ``@`` player, ``G`` box on goal, ``+`` player on goal).

    The collection layout is the same as XSB's (blank lines between levels,
    ``;`` comments, titles); a board row is a line containing ``*``.
    """
    return _parse_grid_collection(text, source, _SEED002_LEGEND, "*",
                                  "seed 002")


class _Block:
    """A board being collected: its rows (line number, text) and title;
    ``columns``, when given, the 1-based column where each row's text
    starts in its line (an SLC row follows its ``<L>`` tag)."""

    def __init__(self, title: str | None = None,
                 columns: list[int] | None = None) -> None:
        self.rows: list[tuple[int, str]] = []
        self.title = title
        self.columns = columns


def _grid_blocks(text: str, source: str, legend: dict[str, int], wall: str, name: str,
                 first_line: int = 1) -> list[_Block]:
    """The boards of a grid text (rows checked, titles attached), unbuilt;
    ``first_line`` is the number of the text's first line in its file."""
    blocks: list[_Block] = []
    current: _Block | None = None      # board whose rows are being read
    previous: _Block | None = None     # board just above (only metadata since)
    pending_title: str | None = None   # title seen before its board
    comment_from: int | None = None    # the line of an open Comment: block

    def set_title(title: str) -> None:
        nonlocal pending_title
        title = title or None  # "; Title:" with nothing after it
        if previous is not None and previous.title is None:
            previous.title = title
        else:
            pending_title = title

    for number, raw in enumerate(_lines(text), start=first_line):
        line = raw.rstrip()
        if comment_from is not None:
            if _COMMENT_END.match(line):
                comment_from = None
            continue
        if _COMMENT_START.match(line):
            comment_from = number
            current = previous = None
            continue
        if not line:
            # A blank line ends the board and the paragraph; a title that
            # found no board in its paragraph is dropped (a file header).
            current = previous = None
            pending_title = None
            continue
        if _is_board_row(line, legend, wall):
            if current is None:
                current = _Block()
                blocks.append(current)
                current.title, pending_title = pending_title, None
            decoded = _run_length_rows(line, number, source) if legend is _XSB_LEGEND else None
            if decoded is None:
                _check_row(line, number, legend, source, name)
                current.rows.append((number, line))
            else:
                current.rows.extend((number, row) for row in decoded)
            continue
        if current is not None:
            previous, current = current, None
        comment_title = _COMMENT_TITLE.match(line)
        meta = _METADATA.match(line)
        if comment_title:
            set_title(comment_title.group(1))
        elif meta and not line.lstrip().startswith(";"):
            if meta.group(1).lower() == "title":
                set_title(meta.group(2))
        else:
            # A plain comment (say "; 12") or free text separates a board
            # from what follows: a later title belongs to the next board.
            previous = None
    if comment_from is not None:
        # Refused rather than read as a note to the end: the levels after
        # it would be lost without a word.
        raise PuzzleFormatError("this Comment: block never ends (no Comment-End: line after it)",
                                source=source, line=comment_from)
    return blocks


def _parse_grid_collection(text: str, source: str, legend: dict[str, int],
                           wall: str, name: str) -> list[Level]:
    levels = _grid_levels_each(text, source, legend, wall, name)
    for level in levels:
        if isinstance(level, InvalidLevel):
            raise level.error
    return levels


def _grid_levels_each(text: str, source: str, legend: dict[str, int], wall: str,
                      name: str) -> list["Level | InvalidLevel"]:
    """Every board of a grid text built on its own (see :func:`parse_levels_each`)."""
    blocks = _grid_blocks(text, source, legend, wall, name)
    if not blocks:
        raise PuzzleFormatError(f"no {name} level found", source=source)
    levels: list[Level | InvalidLevel] = []
    for block in blocks:
        try:
            levels.append(_grid_level(block, legend, source))
        except PuzzleFormatError as exc:
            levels.append(InvalidLevel(block.title, exc))
    return levels


def _lines(text: str) -> list[str]:
    return text.lstrip("\ufeff").splitlines()


def _is_board_row(line: str, legend: dict[str, int], wall: str) -> bool:
    """A row contains a wall; a line of legend characters only (say, a
    floor-only row) is a row too.  Comments (``;``, ``::``), ``Key:``
    lines and text with a word in it (``Level #12``) never are."""
    stripped = line.lstrip()
    if stripped.startswith((";", "::")) or _METADATA.match(line):
        return False
    if wall in line:
        return not re.search(_word_pattern(wall), line)
    return all(ch in legend for ch in line)


@lru_cache(maxsize=None)
def _word_pattern(wall: str) -> str:
    """Two ASCII letters side by side, not both letters of the legend whose
    wall is ``wall``: a word, which no board row holds."""
    legend = _XSB_LEGEND if wall == "#" else _SEED002_LEGEND
    other = "".join(ch for ch in string.ascii_letters if ch not in legend)
    return rf"[A-Za-z][{other}]|[{other}][A-Za-z]"


def _check_row(line: str, number: int, legend: dict[str, int], source: str,
               name: str, first_column: int = 1) -> None:
    for col, ch in enumerate(line, start=first_column):
        if ch not in legend:
            known = " ".join(repr(k) for k in legend)
            raise PuzzleFormatError(
                f"unknown character {ch!r} in a board row "
                f"(the {name} legend is {known})", source=source, line=number,
                column=col)


def _run_length_rows(line: str, number: int, source: str) -> list[str] | None:
    """The rows of a run-length encoded XSB line (``3#|#@$.#``: a count
    repeats the character after it, ``|`` ends a row), or None for a plain
    row (no digit, no ``|``).  Raises :class:`PuzzleFormatError` at the
    column of a character outside the legend, of a count with no character
    after it, or of a count longer than a row may be."""
    if "|" not in line and not any(ch.isdigit() for ch in line):
        return None
    rows: list[str] = []
    row: list[str] = []
    count, count_col = "", 0
    for col, ch in enumerate(line, start=1):
        if ch.isascii() and ch.isdigit():
            if not count:
                count_col = col
            count += ch
            continue
        if ch != "|" and ch not in _XSB_LEGEND:
            known = " ".join(repr(k) for k in _XSB_LEGEND)
            raise PuzzleFormatError(
                f"unknown character {ch!r} in a run-length encoded XSB row (the legend "
                f"is {known}, with counts and '|' between rows)", source=source,
                line=number, column=col)
        if ch == "|":
            if count:
                raise PuzzleFormatError(
                    f"the count {count} is not followed by a board character",
                    source=source, line=number, column=count_col)
            rows.append("".join(row))
            row = []
            continue
        # A long count is refused before int() reads it (Python caps that at
        # 4300 digits), and quoted short.
        if len(count) > len(str(MAX_SIDE)) or (count and int(count) > MAX_SIDE):
            shown = count if len(count) <= 6 else f"{count[:6]}... ({len(count)} digits)"
            raise PuzzleFormatError(
                f"a run of {shown} cells is longer than a row may be ({MAX_SIDE})",
                source=source, line=number, column=count_col)
        row.append(ch * (int(count) if count else 1))
        count = ""
    if count:
        raise PuzzleFormatError(f"the count {count} is not followed by a board character",
                                source=source, line=number, column=count_col)
    rows.append("".join(row))
    return [r.rstrip() for r in rows]


def _grid_level(block: _Block, legend: dict[str, int], source: str) -> Level:
    first_line = block.rows[0][0]
    height = len(block.rows)
    width = max(len(text) for _, text in block.rows)
    if width > MAX_SIDE or height > MAX_SIDE:
        # Checked here too so that a huge board fails before being built.
        raise PuzzleFormatError(
            f"the level is {width} x {height} cells; the limit is "
            f"{MAX_SIDE} x {MAX_SIDE} (walls included)", source=source,
            line=first_line)
    walls = np.zeros((height, width), dtype=bool)
    goals: list[int] = []
    boxes: list[int] = []
    players: list[int] = []
    for r, (_, text) in enumerate(block.rows):
        for c, ch in enumerate(text):
            flags = legend[ch]
            cell = r * width + c
            walls[r, c] = bool(flags & _WALL)
            if flags & _GOAL:
                goals.append(cell)
            if flags & _BOX:
                boxes.append(cell)
            if flags & _PLAYER:
                players.append(cell)

    def locate(cell: int) -> tuple[int, int]:
        r, c = divmod(cell, width)
        first_column = block.columns[r] if block.columns else 1
        return block.rows[r][0], first_column + c   # a run-length line holds several rows

    return Level.from_parts(walls, goals, boxes, players, block.title,
                            source=source, line=first_line, locate=locate)


# -- SLC (XML) ------------------------------------------------------------------


def parse_slc(text: str, source: str = "<string>") -> list[Level]:
    """Parse an SLC collection (XML: a ``<Level Id="title">`` per level, an
    ``<L>`` per board row in the XSB legend, run-length encoding aside).

    The level's ``Id`` is its title.  Errors name the line and column in
    the file: of the XML fault, or of the board character at fault.
    """
    levels = _slc_levels_each(text, source)
    for level in levels:
        if isinstance(level, InvalidLevel):
            raise level.error
    return levels


def _slc_levels_each(text: str, source: str) -> list["Level | InvalidLevel"]:
    """Every level of an SLC text built on its own (see :func:`parse_levels_each`)."""
    boards = read_slc_boards(text, source)
    if not boards:
        raise PuzzleFormatError("no SLC level found (no <Level> element)", source=source)
    levels: list[Level | InvalidLevel] = []
    for board in boards:
        block = _Block(board.title, [column for _, column, _ in board.rows])
        for line, column, row in board.rows:
            _check_row(row, line, _XSB_LEGEND, source, "SLC", column)
            block.rows.append((line, row.rstrip()))
        try:
            levels.append(_grid_level(block, _XSB_LEGEND, source))
        except PuzzleFormatError as exc:
            levels.append(InvalidLevel(block.title, exc))
    return levels


# -- ICPC "Push!!" ------------------------------------------------------------

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
    lines = _lines(text)
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
    first = _FIRST_CONTENT.search(text.lstrip("\ufeff"))
    if first and re.fullmatch(r"\s*\d+\s+\d+\s*", first.group()):
        return "push"
    if _XSB_HINT.search(text):
        return "xsb"
    return "seed002" if _SEED002_ROW.search(text) else "xsb"


_FIRST_CONTENT = re.compile(r"^[^\S\n]*\S.*$", re.M)
#: a content line (not a ; comment, not Key: metadata)
_CONTENT = r"^(?![^\S\n]*;)(?![^\S\n]*[A-Za-z][A-Za-z0-9 _-]*?[^\S\n]*:)"
_XSB_HINT = re.compile(_CONTENT + r"[^\n]*[#$]", re.M)
_SEED002_ROW = re.compile(_CONTENT + r"(?=[^\n]*\*)(?=[^\n]*[o%G])[*. %oG@+]+[^\S\n]*$", re.M)


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


class InvalidLevel(NamedTuple):
    """A level of a collection that breaks a rule of the model (more boxes
    than the limit, no player, an open border ...): its title, if any, and
    the error naming its line and the problem."""

    title: str | None
    error: PuzzleFormatError


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
    if fmt in _GRID_FORMATS:
        return _grid_levels_each(text, source, *_GRID_FORMATS[fmt])
    if fmt == "slc":
        return _slc_levels_each(text, source)
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
    if fmt in _GRID_FORMATS:
        lazy = _LazyGrid.of(text, source, fmt)
        if lazy is not None:
            return lazy.select(spec)
    return select_level(parse_levels(text, source, fmt), spec, source)


#: (legend, wall character, name) of the grid formats.
_GRID_FORMATS = {"xsb": (_XSB_LEGEND, "#", "XSB"),
                 "seed002": (_SEED002_LEGEND, "*", "seed 002")}
#: Characters the fast scan does not follow exactly (line breaks of
#: str.splitlines other than \n, whitespace of str.rstrip other than blanks and tabs).
_SLOW_CHARS = "\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _row_pattern(legend: dict[str, int], wall: str) -> str:
    """A regular expression matching exactly the lines :func:`_is_board_row`
    accepts (ASCII text, ``\n`` line breaks, trailing blanks and tabs)."""
    chars = re.escape("".join(legend))
    solid = re.escape("".join(ch for ch in legend if ch != " "))
    return (r"^(?![ \t]*;)(?![ \t]*::)(?![ \t]*[A-Za-z][A-Za-z0-9 _-]*[ \t]*:)"
            rf"(?:(?![^\n]*(?:{_word_pattern(wall)}))[^\n]*{re.escape(wall)}[^\n]*"
            rf"|[{chars}]*[{solid}][ \t]*)$")


class _LazyGrid:
    """One regular-expression scan of a grid collection: where each board starts."""

    _runs: dict[str, re.Pattern] = {}

    def __init__(self, text: str, source: str, fmt: str):
        self.text, self.source, self.fmt = text, source, fmt
        self.legend, self.wall, self.name = _GRID_FORMATS[fmt]
        if fmt not in self._runs:
            row = _row_pattern(self.legend, self.wall)
            self._runs[fmt] = re.compile(rf"(?:{row}(?:\n|\Z))+", re.M)
        self.runs = self._runs[fmt]

    @classmethod
    def of(cls, text: str, source: str, fmt: str) -> "_LazyGrid | None":
        """The scanner of ``text``, or None when only the full parse reads it exactly."""
        text = text.lstrip("\ufeff")
        if not text.isascii():
            return None
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        if any(ch in text for ch in _SLOW_CHARS):   # str.find: much quicker than a regex
            return None
        if fmt == "xsb" and _RUN_LENGTH_HINT.search(text):
            return None   # the scan reads plain rows only
        if _COMMENT_START.search(text):
            return None   # nor does it skip Comment: blocks
        return cls(text, source, fmt)

    def line_of(self, pos: int) -> int:
        """The 1-based line number of a position in the text."""
        return self.text.count("\n", 0, pos) + 1

    def paragraph(self, pos: int) -> tuple[int, int]:
        """``(begin, end)`` of the paragraph (lines between blank lines)
        around the position ``pos``."""
        text = self.text
        begin = text.rfind("\n", 0, pos) + 1
        while begin > 0:
            prev = text.rfind("\n", 0, begin - 1) + 1
            if not text[prev:begin - 1].strip(" \t"):
                break
            begin = prev
        blank = _BLANK_LINE.search(text, pos)
        return begin, blank.start() if blank else len(text)

    def levels_of_paragraph(self, begin: int, end: int) -> dict[int, Level]:
        """The levels of a paragraph, by the line number of their first row
        (the exact parser, on that paragraph only)."""
        blocks = _grid_blocks(self.text[begin:end], self.source, self.legend, self.wall,
                              self.name, first_line=self.line_of(begin))
        return {b.rows[0][0]: _grid_level(b, self.legend, self.source) for b in blocks}

    def build(self, start: int) -> Level:
        """The level whose first board row is at position ``start``."""
        return self.levels_of_paragraph(*self.paragraph(start))[self.line_of(start)]

    def select(self, spec: int | str) -> Level:
        """The level of a number or title (errors as :func:`select_level`)."""
        if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
            number = int(spec)
            if number >= 1:
                match = next(islice(self.runs.finditer(self.text), number - 1, None), None)
                if match is not None:
                    return self.build(match.start())
            total = sum(1 for _ in self.runs.finditer(self.text))
            if total == 0:
                raise PuzzleFormatError(f"no {self.name} level found", source=self.source)
            raise PuzzleFormatError(f"level {number} does not exist: the file has "
                                    f"{_levels(total)} (numbered 1 to {total})",
                                    source=self.source)
        return self._by_title(spec)

    def _by_title(self, spec: str) -> Level:
        """The level titled ``spec``: only the paragraphs holding a line
        that mentions it go through the parser."""
        starts = [m.start() for m in self.runs.finditer(self.text)]
        if not starts:
            raise PuzzleFormatError(f"no {self.name} level found", source=self.source)
        wanted = spec.strip().casefold()
        titled: list[tuple[int, Level]] = []    # (number, level)
        done: set[int] = set()
        for match in re.finditer(r"^.*$", self.text, re.M):
            if wanted not in match.group().casefold() or "title" not in match.group().lower():
                continue
            begin, end = self.paragraph(match.start())
            if begin in done:
                continue
            done.add(begin)
            levels = self.levels_of_paragraph(begin, end)
            for index in range(bisect_left(starts, begin), bisect_left(starts, end)):
                level = levels[self.line_of(starts[index])]
                if level.title is not None and level.title.strip().casefold() == wanted:
                    titled.append((index + 1, level))
        matches = [(n, lv) for n, lv in titled if lv.title == spec] or titled
        if not matches:
            raise PuzzleFormatError(f"no level titled {quote(spec)} among the file's "
                                    f"{_levels(len(starts))}", source=self.source)
        if len(matches) > 1:
            numbers = ", ".join(str(n) for n, _ in sorted(matches, key=lambda m: m[0]))
            raise PuzzleFormatError(
                f"{len(matches)} levels are titled {quote(spec)} (numbers {numbers}); "
                "select one by number", source=self.source)
        return matches[0][1]


_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|\Z)")
#: A content line that may be run-length encoded: a count before a board
#: character, or a ``|`` (free text such as "Level 12 by X" may match: it
#: only sends the text to the full parse).
_RUN_LENGTH_HINT = re.compile(_CONTENT + r"[^\n]*(?:[0-9][-_#$.*@+ pPbB]|\|)", re.M)


def _levels(count: int) -> str:
    return f"{count} level{'s' if count != 1 else ''}"


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
