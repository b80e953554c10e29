"""Reading SLC files: the XML level collections of Sokoban YASC, JSoko and
most level sites.

An SLC file holds a ``<SokobanLevels>`` root with a title, a description
and a ``<LevelCollection>``; each ``<Level Id="..." Width=.. Height=..>``
holds one ``<L>`` element per board row, in the XSB legend::

    <Level Id="Tiny">
      <L>#####</L>
      <L>#@$.#</L>
      <L>#####</L>
    </Level>

The boards are found here (their title and rows, with the line and column
where each row's text starts in the file); their rows are checked and the
levels built as XSB text's are (:mod:`.gridformat`).  The XML is read by
the standard library's expat parser: a well-formedness error names its
line and column, and a file that declares entities is refused (a level
collection has no use for them, and their expansion is how XML files are
made to eat memory).
"""

from __future__ import annotations

from typing import NamedTuple, NoReturn
from xml.parsers import expat

from pdbsearch.errors import PuzzleFormatError, quote
from pdbsearch.sokoban.gridformat import (XSB_LEGEND, GridBlock, InvalidLevel, all_valid,
                                          build_grid_level, check_row)
from pdbsearch.sokoban.model import Level


class SlcBoard(NamedTuple):
    """One ``<Level>`` of an SLC file, unbuilt."""

    #: the ``Id`` attribute (None when missing or blank)
    title: str | None
    #: the line of the ``<Level>`` tag
    line: int
    #: one ``(line, column, text)`` per ``<L>`` row: where its text starts
    #: (1-based) and the text itself
    rows: list[tuple[int, int, str]]


def _local(name: str) -> str:
    """An element name without its namespace prefix (``slc:Level`` -> ``Level``)."""
    return name.rpartition(":")[2]


def read_slc_boards(text: str, source: str = "<string>") -> list[SlcBoard]:
    """The boards of an SLC text, in file order.

    Raises :class:`PuzzleFormatError` (with the line and column) for XML
    that is not well-formed, an entity declaration, a ``<Level>`` inside
    another or an ``<L>`` row outside any ``<Level>``, a row broken over
    several lines, and a ``<Level>`` without rows.  Elements other than
    ``<Level>`` and ``<L>`` (title, description, author ...) are skipped.
    """
    parser = expat.ParserCreate()
    boards: list[SlcBoard] = []
    level: SlcBoard | None = None
    row: list[str] | None = None          # the text pieces of the open <L>
    row_at: tuple[int, int] | None = None

    def where() -> tuple[int, int]:
        return parser.CurrentLineNumber, parser.CurrentColumnNumber + 1

    def fail(message: str, at: tuple[int, int] | None = None) -> NoReturn:
        line, column = at or where()
        raise PuzzleFormatError(message, source=source, line=line, column=column)

    def start(name: str, attributes: dict[str, str]) -> None:
        nonlocal level, row, row_at
        name = _local(name)
        if name == "Level":
            if level is not None:
                fail("a <Level> inside another <Level>")
            title = (attributes.get("Id") or "").strip() or None
            level = SlcBoard(title, parser.CurrentLineNumber, [])
        elif name == "L":
            if level is None:
                fail("an <L> board row outside any <Level>")
            if row is not None:
                fail("an <L> board row inside another")
            row, row_at = [], None

    def characters(data: str) -> None:
        nonlocal row_at
        if row is not None:
            if row_at is None:
                row_at = where()
            row.append(data)

    def end(name: str) -> None:
        nonlocal level, row, row_at
        name = _local(name)
        if name == "L" and row is not None and level is not None:
            text = "".join(row)
            at = row_at or where()
            if "\n" in text:
                fail("an <L> board row breaks over several lines: one row per <L>", at)
            level.rows.append((at[0], at[1], text))
            row, row_at = None, None
        elif name == "Level" and level is not None:
            if not level.rows:
                which = f"the level {quote(level.title)}" if level.title else "a <Level>"
                raise PuzzleFormatError(f"{which} has no <L> board rows", source=source,
                                        line=level.line)
            boards.append(level)
            level = None

    def entity(*_) -> None:
        fail("the file declares an XML entity; level files have no use for them "
             "and they are not read")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    parser.EntityDeclHandler = entity
    try:
        parser.Parse(text.lstrip("\ufeff"), True)
    except expat.ExpatError as exc:
        raise PuzzleFormatError(f"not well-formed XML: {expat.ErrorString(exc.code)}",
                                source=source, line=exc.lineno, column=exc.offset + 1) from None
    return boards


def parse_slc(text: str, source: str = "<string>") -> list[Level]:
    """Parse an SLC collection (XML: a ``<Level Id="title">`` per level, an
    ``<L>`` per board row in the XSB legend, run-length encoding aside).

    The level's ``Id`` is its title.  Errors name the line and column in
    the file: of the XML fault, or of the board character at fault.
    """
    return all_valid(slc_levels_each(text, source))


def slc_levels_each(text: str, source: str) -> list[Level | InvalidLevel]:
    """Every level of an SLC text built on its own (see
    :func:`.formats.parse_levels_each`)."""
    boards = read_slc_boards(text, source)
    if not boards:
        raise PuzzleFormatError("no SLC level found (no <Level> element)", source=source)
    levels: list[Level | InvalidLevel] = []
    for board in boards:
        block = GridBlock(board.title, [column for _, column, _ in board.rows])
        for line, column, row in board.rows:
            check_row(row, line, XSB_LEGEND, source, "SLC", column)
            block.rows.append((line, row.rstrip()))
        try:
            levels.append(build_grid_level(block, XSB_LEGEND, source))
        except PuzzleFormatError as exc:
            levels.append(InvalidLevel(block.title, exc))
    return levels
