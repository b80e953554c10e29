"""The plain-text Hakoiri board format.

Example (the classic board)::

    # Hakoiri-musume, the classic 4 x 5 board
    exit: 1 3
    ABBC
    ABBC
    DEEF
    DGHF
    I..J

* Lines starting with ``#`` are comments (kept, and written back).
* ``exit: X Y`` gives the column and row (0-based, from the top-left) of the
  2×2 piece's top-left cell when the puzzle is solved.  ``exit: bottom`` is
  short for the middle of the bottom edge.
* Every other non-blank line is a row of the board, all of the same length.
  ``.`` is an empty cell; every piece is drawn as a rectangle of its own
  character (a letter, a digit, or one of ``@$%&*+=?!<>^~``).  Two touching
  pieces must use different characters; pieces that do not touch may share one.
"""

from __future__ import annotations

import string
from pathlib import Path

from ..errors import PdbsearchError, PuzzleFormatError, quote
from ..io import read_text
from .model import MAX_SIDE, SHAPE_BY_SIZE, Board, Piece, Shape

PIECE_CHARS = string.ascii_uppercase + string.ascii_lowercase + string.digits + "@$%&*+=?!<>^~"
EMPTY = "."


def parse_board(text: str, source: str = "<string>") -> Board:
    """Parse a board from text; raises PuzzleFormatError naming line and column."""
    comments: list[str] = []
    rows: list[tuple[int, str]] = []     # (line number, row text)
    exit_spec: tuple[int, str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            comments.append(line.lstrip()[1:].strip())
            continue
        if ":" in line:
            name, _, value = line.partition(":")
            if name.strip().lower() != "exit":
                raise PuzzleFormatError(f"unknown setting {quote(name.strip())} (only 'exit' is "
                                        f"known)",
                                        source, number, 1)
            if exit_spec is not None:
                raise PuzzleFormatError("the exit is declared twice", source, number, 1)
            exit_spec = (number, value.strip())
            continue
        rows.append((number, line))

    if not rows:
        raise PuzzleFormatError("no board rows found", source)
    width = len(rows[0][1])
    for number, row in rows:
        if len(row) != width:
            raise PuzzleFormatError(
                f"ragged rows: this row has {len(row)} cells, the first row has {width}",
                source, number, min(len(row), width) + 1)
        for col, ch in enumerate(row, start=1):
            if ch != EMPTY and ch not in PIECE_CHARS:
                raise PuzzleFormatError(f"unknown character {ch!r} (use '.' for empty cells, "
                                        f"letters, digits or {PIECE_CHARS[62:]} for pieces)",
                                        source, number, col)
    height = len(rows)
    if not (2 <= width <= MAX_SIDE and 2 <= height <= MAX_SIDE):
        raise PuzzleFormatError(f"the board is {width} x {height}; each side must be "
                                f"from 2 to {MAX_SIDE} cells", source, rows[0][0], 1)

    grid = [row for _, row in rows]
    line_of = [number for number, _ in rows]
    pieces = _find_pieces(grid, line_of, source)

    squares = [p for p in pieces if p.shape is Shape.SQUARE]
    if len(squares) != 1:
        raise PuzzleFormatError(f"the board must have exactly one 2x2 piece, it has {len(squares)}",
                                source, line_of[squares[1].y] if len(squares) > 1 else None,
                                squares[1].x + 1 if len(squares) > 1 else None)
    if all(ch != EMPTY for row in grid for ch in row):
        raise PuzzleFormatError("the board has no empty cell, so nothing can move", source)

    if exit_spec is None:
        raise PuzzleFormatError("no exit declared: add a line 'exit: X Y' (the 2x2's top-left "
                                "column and row when solved) or 'exit: bottom'", source)
    exit_xy = _parse_exit(exit_spec, width, height, source)
    return Board(width, height, exit_xy, tuple(pieces), tuple(comments))


def _parse_exit(spec: tuple[int, str], width: int, height: int, source: str) -> tuple[int, int]:
    number, value = spec
    try:
        return exit_cell(value, width, height)
    except PdbsearchError as exc:
        raise PuzzleFormatError(str(exc), source, number) from None


def exit_cell(value: str, width: int, height: int) -> tuple[int, int]:
    """The 2x2's exit cell of a width x height board from ``bottom`` (the
    middle of the bottom edge) or ``X Y`` / ``X,Y`` (0-based column and
    row, plain digits); raises :class:`PdbsearchError` saying what is wrong."""
    if value.strip().lower() == "bottom":
        return (width - 2) // 2, height - 2
    parts = value.replace(",", " ").split()
    shown = value if len(value) <= 40 else value[:40] + "..."
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
        raise PdbsearchError(f"bad exit {shown!r}: expected 'X Y' (0-based column and row, "
                             f"e.g. '1 3') or 'bottom'")
    if any(len(p) > 3 for p in parts):
        raise PdbsearchError(f"the exit {shown!r} is off a {width} x {height} board")
    x, y = int(parts[0]), int(parts[1])
    if not (0 <= x <= width - 2 and 0 <= y <= height - 2):
        raise PdbsearchError(
            f"the 2x2 piece cannot stand at the exit column {x}, row {y} on a "
            f"{width} x {height} board (columns 0-{width - 2}, rows 0-{height - 2} fit)")
    return x, y


def _find_pieces(grid: list[str], line_of: list[int], source: str) -> list[Piece]:
    """Split the grid into same-character connected rectangles."""
    height, width = len(grid), len(grid[0])
    seen = [[False] * width for _ in range(height)]
    pieces = []
    for y in range(height):
        for x in range(width):
            ch = grid[y][x]
            if ch == EMPTY or seen[y][x]:
                continue
            # Flood the connected region of this character.
            region = []
            stack = [(x, y)]
            seen[y][x] = True
            while stack:
                cx, cy = stack.pop()
                region.append((cx, cy))
                for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                    if 0 <= nx < width and 0 <= ny < height and not seen[ny][nx] \
                            and grid[ny][nx] == ch:
                        seen[ny][nx] = True
                        stack.append((nx, ny))
            xs = [c[0] for c in region]
            ys = [c[1] for c in region]
            w, h = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
            if (w, h) not in SHAPE_BY_SIZE or len(region) != w * h:
                raise PuzzleFormatError(
                    f"piece {ch!r} covers {len(region)} cells in a {h}x{w} box; a piece must be "
                    f"a 1x1, 1x2, 2x1 or 2x2 rectangle (touching pieces need different letters)",
                    source, line_of[min(ys)], min(xs) + 1)
            pieces.append(Piece(SHAPE_BY_SIZE[(w, h)], min(xs), min(ys), ch))
    return pieces


def assign_labels(board: Board) -> Board:
    """Give every piece a character, touching pieces different ones.

    Existing labels are kept when they are valid; otherwise unused characters
    are preferred, and a character is reused only when all are taken.
    """
    occ = board.occupied()
    neighbours: list[set[int]] = [set() for _ in board.pieces]
    for (x, y), i in occ.items():
        for n in ((x + 1, y), (x, y + 1)):
            j = occ.get(n)
            if j is not None and j != i:
                neighbours[i].add(j)
                neighbours[j].add(i)
    labels: list[str | None] = [None] * len(board.pieces)
    used: set[str] = set()
    # The 2x2 first so that it gets 'A' on fresh boards.
    order = sorted(range(len(board.pieces)),
                   key=lambda i: (board.pieces[i].shape is not Shape.SQUARE,
                                  board.pieces[i].y, board.pieces[i].x))
    for i in order:
        taken = {labels[j] for j in neighbours[i]}
        own = board.pieces[i].label
        if own and own in PIECE_CHARS and own not in taken and own not in used:
            choice = own
        else:
            fresh = [c for c in PIECE_CHARS if c not in used and c not in taken]
            choice = fresh[0] if fresh else next(c for c in PIECE_CHARS if c not in taken)
        labels[i] = choice
        used.add(choice)
    pieces = tuple(Piece(p.shape, p.x, p.y, labels[i]) for i, p in enumerate(board.pieces))
    return Board(board.width, board.height, board.exit, pieces, board.comments)


def draw(board: Board) -> list[str]:
    """The board's rows as text (pieces drawn with their labels)."""
    grid = [[EMPTY] * board.width for _ in range(board.height)]
    for p in board.pieces:
        for x, y in p.cells():
            grid[y][x] = p.label
    return ["".join(row) for row in grid]


def format_board(board: Board) -> str:
    """The board in the file format (round-trips through :func:`parse_board`)."""
    labelled = assign_labels(board)
    lines = [f"# {c}" if c else "#" for c in board.comments]
    lines.append(f"exit: {board.exit[0]} {board.exit[1]}")
    lines.extend(draw(labelled))
    return "\n".join(lines) + "\n"


def load_board(path: str | Path) -> Board:
    """Read a board file (:func:`pdbsearch.io.read_text`); a missing or
    unreadable file is a PuzzleFormatError."""
    return parse_board(read_text(path), str(path))
