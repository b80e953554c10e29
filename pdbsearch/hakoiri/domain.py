"""The Hakoiri family as the domain registry sees it: loading a board."""

from __future__ import annotations

from typing import Callable

from ..errors import PdbsearchError
from .builtin import CLASSIC_SOURCE, CLASSIC_TEXT
from .formats import parse_board
from .puzzle import HakoiriPuzzle

#: The instance solved when no file is given.
DEFAULT_TEXT, DEFAULT_SOURCE = CLASSIC_TEXT, CLASSIC_SOURCE


def load(text: str, source: str, *, level: int | str | None = None, metric: str | None = None,
         heuristic: str | None = None, db_dir=None, pdb=None,
         log: Callable[[str], None] | None = None, progress: bool = False) -> HakoiriPuzzle:
    """The puzzle of a board text (``level`` is refused: a file holds one board)."""
    if level is not None:
        raise PdbsearchError(f"{source}: a Hakoiri file holds one board; a level number "
                             f"applies to Sokoban collections")
    return HakoiriPuzzle(parse_board(text, source), metric, heuristic, db_dir=db_dir,
                         pdb_path=pdb, log=log, progress=progress)
