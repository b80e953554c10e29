"""The grid formats of Sokoban levels: XSB (with the Sokoban wiki's letters
and run-length rows, and SOK files' notes) and seed 002's legend.

A text is read line by line into boards (:class:`GridBlock`: rows and
title), then each board is built into a :class:`~pdbsearch.sokoban.model.Level`
on its own; :mod:`.slcformat` builds its rows the same way, and
:mod:`.gridscan` finds one board of a large text without reading the rest.
"""

from __future__ import annotations

import re
import string
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from pdbsearch.errors import PuzzleFormatError
from pdbsearch.sokoban.model import MAX_SIDE, Level

# Bit flags of what a character puts on its cell.
_WALL, _GOAL, _BOX, _PLAYER = 1, 2, 4, 8

XSB_LEGEND: dict[str, int] = {
    "#": _WALL, " ": 0, "-": 0, "_": 0, "$": _BOX, ".": _GOAL,
    "*": _BOX | _GOAL, "@": _PLAYER, "+": _PLAYER | _GOAL,
    "b": _BOX, "B": _BOX | _GOAL, "p": _PLAYER, "P": _PLAYER | _GOAL,
}
SEED002_LEGEND: dict[str, int] = {
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
COMMENT_START = re.compile(r"^[ \t]*comment[ \t]*:[ \t]*$", re.IGNORECASE | re.MULTILINE)
_COMMENT_END = re.compile(r"^\s*comment[-_ ]?end\s*:?\s*$", re.IGNORECASE)
#: a content line (not a ; comment, not Key: metadata)
CONTENT_LINE = r"^(?![^\S\n]*;)(?![^\S\n]*[A-Za-z][A-Za-z0-9 _-]*?[^\S\n]*:)"


class InvalidLevel(NamedTuple):
    """A level of a collection that breaks a rule of the model (more boxes
    than the limit, no player, an open border ...): its title, if any, and
    the error naming its line and the problem."""

    title: str | None
    error: PuzzleFormatError


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
    * as in SOK files, a line of text right after a blank line and right
      above a board (``Level 12``) is that board's title, unless a title
      line gives it one (above it or below it);
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
    return _parse_grid_collection(text, source, XSB_LEGEND, "#", "XSB")


def parse_seed002(text: str, source: str = "<string>") -> list[Level]:
    """Parse levels in seed 002's legend (``*`` wall, ``.`` floor, ``%`` goal,
    ``o`` box, ``@`` player, ``G`` box on goal, ``+`` player on goal).

    The collection layout is the same as XSB's (blank lines between levels,
    ``;`` comments, titles); a board row is a line containing ``*``.
    """
    return _parse_grid_collection(text, source, SEED002_LEGEND, "*",
                                  "seed 002")


class GridBlock:
    """A board being collected: its rows (line number, text) and title;
    ``columns``, when given, the 1-based column where each row's text
    starts in its line (an SLC row follows its ``<L>`` tag)."""

    def __init__(self, title: str | None = None,
                 columns: list[int] | None = None) -> None:
        self.rows: list[tuple[int, str]] = []
        self.title = title
        self.columns = columns
        #: the title is a line of text above the board, which a title line
        #: (``Title: X``) below it overrides
        self.title_is_text = False


def grid_blocks(text: str, source: str, legend: dict[str, int], wall: str, name: str,
                 first_line: int = 1) -> list[GridBlock]:
    """The boards of a grid text (rows checked, titles attached), unbuilt;
    ``first_line`` is the number of the text's first line in its file."""
    blocks: list[GridBlock] = []
    current: GridBlock | None = None      # board whose rows are being read
    previous: GridBlock | None = None     # board just above (only metadata since)
    pending_title: str | None = None   # title seen before its board
    title_line: str | None = None      # a line of text just after a blank line
    after_blank = True                 # at the start, or just after a blank line
    comment_from: int | None = None    # the line of an open Comment: block

    def set_title(title: str) -> None:
        nonlocal pending_title
        title = title or None  # "; Title:" with nothing after it
        if previous is not None and (previous.title is None or previous.title_is_text):
            previous.title, previous.title_is_text = title, False
        else:
            pending_title = title

    for number, raw in enumerate(text_lines(text), start=first_line):
        line = raw.rstrip()
        if comment_from is not None:
            if _COMMENT_END.match(line):
                comment_from = None
            continue
        if COMMENT_START.match(line):
            comment_from = number
            current = previous = title_line = None
            after_blank = False
            continue
        if not line:
            # A blank line ends the board and the paragraph; a title that
            # found no board in its paragraph is dropped (a file header).
            current = previous = None
            pending_title = title_line = None
            after_blank = True
            continue
        was_after_blank, after_blank = after_blank, False
        if is_board_row(line, legend, wall):
            if current is None:
                current = GridBlock()
                blocks.append(current)
                if pending_title is not None:
                    current.title = pending_title
                elif title_line is not None:
                    current.title, current.title_is_text = title_line, True
                pending_title = title_line = None
            decoded = _run_length_rows(line, number, source) if legend is XSB_LEGEND else None
            if decoded is None:
                check_row(line, number, legend, source, name)
                current.rows.append((number, line))
            else:
                current.rows.extend((number, row) for row in decoded)
            continue
        if current is not None:
            previous, current = current, None
        title_line = None
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
            if was_after_blank and not line.lstrip().startswith((";", "::")):
                # SOK files' title line: text alone after a blank line, just
                # above its board (a Title: line above or below it wins).
                title_line = line.strip()
    if comment_from is not None:
        # Refused rather than read as a note to the end: the levels after
        # it would be lost without a word.
        raise PuzzleFormatError("this Comment: block never ends (no Comment-End: line after it)",
                                source=source, line=comment_from)
    return blocks


def _parse_grid_collection(text: str, source: str, legend: dict[str, int],
                           wall: str, name: str) -> list[Level]:
    return all_valid(grid_levels_each(text, source, legend, wall, name))


def all_valid(levels: list[Level | InvalidLevel]) -> list[Level]:
    """The levels of a collection read one by one, when none is invalid;
    else the first invalid one's error is raised (the whole parse's error)."""
    for level in levels:
        if isinstance(level, InvalidLevel):
            raise level.error
    return levels


def grid_levels_each(text: str, source: str, legend: dict[str, int], wall: str,
                     name: str) -> list[Level | InvalidLevel]:
    """Every board of a grid text built on its own (see
    :func:`.formats.parse_levels_each`)."""
    blocks = grid_blocks(text, source, legend, wall, name)
    if not blocks:
        raise PuzzleFormatError(f"no {name} level found", source=source)
    levels: list[Level | InvalidLevel] = []
    for block in blocks:
        try:
            levels.append(build_grid_level(block, legend, source))
        except PuzzleFormatError as exc:
            levels.append(InvalidLevel(block.title, exc))
    return levels


def text_lines(text: str) -> list[str]:
    """The lines of a level text, a leading byte-order mark dropped."""
    return text.lstrip("\ufeff").splitlines()


def is_board_row(line: str, legend: dict[str, int], wall: str) -> bool:
    """A row contains a wall; a line of legend characters only (say, a
    floor-only row) is a row too.  Comments (``;``, ``::``), ``Key:``
    lines and text with a word in it (``Level #12``) never are."""
    stripped = line.lstrip()
    if stripped.startswith((";", "::")) or _METADATA.match(line):
        return False
    if wall in line:
        return not _word_pattern(wall).search(line)
    return all(ch in legend for ch in line)


@lru_cache(maxsize=None)
def _word_pattern(wall: str) -> re.Pattern:
    """Two ASCII letters side by side, not both letters of the legend whose
    wall is ``wall``: a word, which no board row holds."""
    legend = XSB_LEGEND if wall == "#" else SEED002_LEGEND
    other = "".join(ch for ch in string.ascii_letters if ch not in legend)
    return re.compile(rf"[A-Za-z][{other}]|[{other}][A-Za-z]")


def check_row(line: str, number: int, legend: dict[str, int], source: str,
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
        if ch != "|" and ch not in XSB_LEGEND:
            known = " ".join(repr(k) for k in XSB_LEGEND)
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


def build_grid_level(block: GridBlock, legend: dict[str, int], source: str) -> Level:
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


#: (legend, wall character, name) of the grid formats.
GRID_FORMATS = {"xsb": (XSB_LEGEND, "#", "XSB"),
                 "seed002": (SEED002_LEGEND, "*", "seed 002")}
