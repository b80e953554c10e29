"""Exceptions shared by every part of pdbsearch.

Each error a user can cause carries enough context to be printed as one line
(``file:line:col: message``) by the command line, which maps them to exit
code 2 (bad input or usage).
"""

from __future__ import annotations


#: Longest message an error carries (one line: quoted input is cut short).
MAX_MESSAGE = 300


def quote(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut short when long: error messages quote the user's
    input, which may be anything, in one readable line."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


class PdbsearchError(Exception):
    """Base class of every error pdbsearch raises on purpose."""


class PuzzleFormatError(PdbsearchError, ValueError):
    """A puzzle file (or text) is malformed.

    ``source`` names the file (or ``<string>``), ``line`` and ``column`` are
    1-based positions when known, ``message`` says what is wrong.
    """

    def __init__(self, message: str, source: str = "<string>",
                 line: int | None = None, column: int | None = None):
        if len(message) > MAX_MESSAGE:  # a last guard; messages quote with quote()
            message = message[:MAX_MESSAGE] + "..."
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"


class IllegalMoveError(PdbsearchError, ValueError):
    """A move (or a whole solution) does not replay on the given state."""


class PdbFileError(PdbsearchError):
    """A pattern-database file is missing, corrupt, or made for another puzzle."""


class OutputFileError(PdbsearchError):
    """A file cannot be written where it was asked for (its folder is a
    file, missing and not creatable, or not writable)."""


class InternalError(Exception):
    """A bug of pdbsearch found by one of its own checks, e.g. a solution
    that the independent checker does not replay.  Deliberately *not* a
    :class:`PdbsearchError`: the command line reports it as an internal
    error (exit 1) and asks for a report, never as bad input."""


class ResourceLimit(Exception):
    """A time or memory limit stopped work before the search (building a
    pattern database, say).  Not an error: the search reports it as status
    ``limit`` with ``stop_reason`` = :attr:`reason`."""

    def __init__(self, reason: str, message: str):
        self.reason = reason      #: "time" or "memory"
        super().__init__(message)
