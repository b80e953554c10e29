"""The registry of puzzle domains, which feeds the API, the command line and tests.

A :class:`Domain` names a puzzle family, its vocabularies (metrics and
heuristics), how to turn a text into puzzles, and, when it has one, the
instance to solve when no file is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from .fifteen import domain as fifteen_domain
from .fifteen.vocabulary import HEURISTICS as FIFTEEN_HEURISTICS
from .fifteen.vocabulary import METRICS as FIFTEEN_METRICS
from .hakoiri import domain as hakoiri_domain
from .hakoiri.vocabulary import HEURISTICS as HAKOIRI_HEURISTICS
from .hakoiri.vocabulary import METRICS as HAKOIRI_METRICS
from .sokoban import domain as sokoban_domain
from .sokoban.vocabulary import HEURISTICS as SOKOBAN_HEURISTICS
from .sokoban.vocabulary import METRICS as SOKOBAN_METRICS
from .vocabulary import Vocabulary


@dataclass(frozen=True)
class Domain:
    """A puzzle family as the API and the command line see it."""

    name: str
    summary: str
    metrics: Vocabulary
    heuristics: Vocabulary
    #: ``load(text, source, *, level, metric, heuristic, db_dir, pdb, log,
    #: progress, **options)`` -> a puzzle, or a list of them; raises
    #: PdbsearchError on bad input
    load: Callable
    #: ``(text, source)`` of the instance solved when no file is given
    default: tuple[str, str] | None = None


DOMAINS: dict[str, Domain] = {d.name: d for d in [
    Domain("hakoiri", "Hakoiri-musume (Klotski) sliding blocks", HAKOIRI_METRICS,
           HAKOIRI_HEURISTICS, hakoiri_domain.load,
           (hakoiri_domain.DEFAULT_TEXT, hakoiri_domain.DEFAULT_SOURCE)),
    Domain("sokoban", "Sokoban (XSB and SLC collections, ICPC Push!! maps, seed 002's legend)",
           SOKOBAN_METRICS, SOKOBAN_HEURISTICS, sokoban_domain.load),
    Domain("fifteen", "N x M sliding-tile puzzles (8-, 15-, 24-puzzle; boards of numbers, "
                      "Korf's collection format)",
           FIFTEEN_METRICS, FIFTEEN_HEURISTICS, fifteen_domain.load),
]}

#: The domain of the instance solved when neither a file nor a domain is given.
DEFAULT_DOMAIN = "hakoiri"


def detect_domain(text: str) -> str:
    """The domain a puzzle text is closest to, read from the whole text
    (one regular-expression scan per clue, so a long file costs little).

    A Hakoiri board declares its exit (``exit: ...``); a text with
    run-length encoded XSB rows (``5#|#@$.#``) and a box or the player among
    them is Sokoban; a text with XSB rows (``#`` walls among XSB
    characters), a Push!! header or seed 002 rows is Sokoban; a text whose
    rows are all piece letters (``BAAC``) is a Hakoiri board that forgot
    its exit, so that the error it gets is the one that
    helps (no exit declared); a text whose lines are all whole numbers (or
    a collection's ``id optimal tiles`` lines, ``-`` for an unknown optimum)
    is a sliding-tile board or collection (a board may have a ``goal:`` line),
    unless it reads as a Push!! map (its
    first line two numbers, and its numbers not all different); anything
    else goes to the Sokoban parser.
    """
    if _EXIT_LINE.search(text):
        return "hakoiri"
    if _RUN_LENGTH_ROW.search(text) and _PIECES_ROW.search(text):
        return "sokoban"
    if _is_number_grid(text):
        return "fifteen"
    from .sokoban.formats import detect_format
    if _XSB_ROW.search(text) or detect_format(text) != "xsb":
        return "sokoban"
    if _PIECE_ROW.search(text):
        return "hakoiri"
    return "sokoban"


_EXIT_LINE = re.compile(r"^[ \t]*exit[ \t]*:", re.M | re.I)
#: the characters of XSB rows (with the Sokoban wiki's letters), as a regex class body
_XSB = r"-_#$.*@+pPbB"
#: an XSB board row: '#' walls and XSB characters only
_XSB_ROW = re.compile(rf"^[ \t]*[{_XSB} ]*#[{_XSB} ]*$", re.M)
#: a run-length encoded XSB row (``5#``, ``#@2$.#|5#``): a count before a
#: board character, '#' in it ('#' also starts a sliding-tile comment, so
#: ``5#`` alone could be the number 5: see the next clue)
_RUN_LENGTH_ROW = re.compile(rf"^[ \t]*(?=[^\n]*[0-9][{_XSB}])[{_XSB} |0-9]*#[{_XSB} |0-9]*$",
                             re.M)
#: an XSB row, plain or run-length, with a box or the player in it
_PIECES_ROW = re.compile(rf"^[ \t]*(?=[^\n]*[$*@+pPbB])[{_XSB} |0-9]*#[{_XSB} |0-9]*$", re.M)
#: a row of Hakoiri pieces: letters, digits and the piece symbols, '.' empty
_PIECE_ROW = re.compile(r"^[ \t]*(?=[^\n]*[A-Za-z0-9])[A-Za-z0-9@$%&*+=?!<>^~.]{2,}[ \t]*$", re.M)


#: a line of whole numbers (or blank, or a '#' comment)
_NUMBER_LINE = re.compile(r"[ \t]*(\d+([ \t]+\d+)*)?[ \t]*(#.*)?|[ \t]*#.*")
#: a line of a sliding-tile collection: an id (any word), the optimal length
#: or ``-``, then the tiles
_INSTANCE_LINE = re.compile(r"[ \t]*\S+[ \t]+(\d+|-)([ \t]+\d+){3,}[ \t]*(#.*)?")
#: a sliding-tile board's ``goal:`` line, its tiles on it or on the rows below
_GOAL_LINE = re.compile(r"[ \t]*goal[ \t]*:[ \t]*(\d+([ \t]+\d+)*)?[ \t]*(#.*)?", re.I)


def _is_number_grid(text: str) -> bool:
    """True for a sliding-tile text: every line whole numbers (``#``
    comments aside), and not a Push!! map, whose first line is two numbers
    (its width and height) and whose cells repeat the numbers 0 to 4; a
    board whose rows all have two numbers, all different, is a 2-column
    sliding-tile board."""
    lines = text.lstrip("\ufeff").splitlines()
    goal_lines = [_GOAL_LINE.fullmatch(line) is not None for line in lines]
    if not lines or not all(is_goal or _NUMBER_LINE.fullmatch(line)
                            or _INSTANCE_LINE.fullmatch(line)
                            for line, is_goal in zip(lines, goal_lines)):
        return False
    if any(goal_lines):
        return True     # a board with its own goal (no Push!! map has one)
    rows = [line.split("#")[0].split() for line in lines]
    rows = [row for row in rows if row]
    if not rows:
        return False
    if len(rows[0]) == 2:
        flat = [t for row in rows for t in row]
        return len(set(flat)) == len(flat) and all(len(row) == 2 for row in rows)
    return True
