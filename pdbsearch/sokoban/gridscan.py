"""Reading one level of a large XSB or seed 002 collection quickly: one
regular-expression scan finds where each board starts, and only the
paragraph holding the chosen board goes through the parser."""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import islice

from pdbsearch.errors import PuzzleFormatError, quote
from pdbsearch.sokoban.gridformat import (COMMENT_START, CONTENT_LINE, GRID_FORMATS,
                                          build_grid_level, grid_blocks)
from pdbsearch.sokoban.model import Level


#: Characters the fast scan does not follow exactly (line breaks of
#: str.splitlines other than \n, whitespace of str.rstrip other than blanks and tabs).
_SLOW_CHARS = "\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _row_pattern(legend: dict[str, int], wall: str) -> str:
    """A regular expression matching exactly the lines
    :func:`.gridformat.is_board_row` accepts (ASCII text, ``\n`` line
    breaks, trailing blanks and tabs)."""
    chars = re.escape("".join(legend))
    solid = re.escape("".join(ch for ch in legend if ch != " "))
    letters = "".join(ch for ch in legend if ch.isascii() and ch.isalpha())
    # A line with no word (see gridformat._word_pattern), read in one pass:
    # runs of non-letters, runs of the legend's letters, lone letters.
    no_word = (rf"(?:[^A-Za-z\n]+|[{letters}]+(?![A-Za-z])|[A-Za-z](?![A-Za-z]))*+"
               if letters else r"(?:[^A-Za-z\n]+|[A-Za-z](?![A-Za-z]))*+")
    return (r"^(?![ \t]*;)(?![ \t]*::)(?![ \t]*[A-Za-z][A-Za-z0-9 _-]*[ \t]*:)"
            rf"(?:(?=[^\n]*{re.escape(wall)}){no_word}|[{chars}]*[{solid}][ \t]*)$")


class GridScan:
    """One regular-expression scan of a grid collection: where each board starts."""

    _runs: dict[str, re.Pattern] = {}

    def __init__(self, text: str, source: str, fmt: str):
        self.text, self.source, self.fmt = text, source, fmt
        self.legend, self.wall, self.name = GRID_FORMATS[fmt]
        if fmt not in self._runs:
            row = _row_pattern(self.legend, self.wall)
            self._runs[fmt] = re.compile(rf"(?:{row}(?:\n|\Z))+", re.M)
        self.runs = self._runs[fmt]

    @classmethod
    def of(cls, text: str, source: str, fmt: str) -> "GridScan | None":
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
        if COMMENT_START.search(text):
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
        blocks = grid_blocks(self.text[begin:end], self.source, self.legend, self.wall,
                              self.name, first_line=self.line_of(begin))
        return {b.rows[0][0]: build_grid_level(b, self.legend, self.source) for b in blocks}

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
        that mentions it (a title line, or a SOK file's line of text above
        its board) go through the parser."""
        starts = [m.start() for m in self.runs.finditer(self.text)]
        if not starts:
            raise PuzzleFormatError(f"no {self.name} level found", source=self.source)
        wanted = spec.strip().casefold()
        titled: list[tuple[int, Level]] = []    # (number, level)
        done: set[int] = set()
        for match in re.finditer(r"^.*$", self.text, re.M):
            if wanted not in match.group().casefold():
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
_RUN_LENGTH_HINT = re.compile(CONTENT_LINE + r"[^\n]*(?:[0-9][-_#$.*@+ pPbB]|\|)", re.M)


def _levels(count: int) -> str:
    return f"{count} level{'s' if count != 1 else ''}"
