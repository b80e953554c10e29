"""The sliding-tile family as the domain registry sees it: loading a board or
an instance of a collection."""

from __future__ import annotations

from typing import Callable

from ..errors import PdbsearchError
from .formats import is_collection, parse_board, parse_collection, pick
from .puzzle import FifteenPuzzle


def load(text: str, source: str, *, level: int | str | None = None, metric: str | None = None,
         heuristic: str | None = None, db_dir=None, pdb=None,
         log: Callable[[str], None] | None = None, progress: bool = False,
         partition: str | None = None) -> FifteenPuzzle:
    """The puzzle of a board text, or of instance ``level`` (1-based number
    or id; default the first) of a collection.  ``partition`` names the
    pattern groups (see :func:`.database.parse_partition`)."""
    if is_collection(text):
        inst = pick(parse_collection(text, source), level, source)
        board, name = inst.board, f"#{inst.id}"
    else:
        if level is not None:
            raise PdbsearchError(f"{source}: a board file holds one board; a level number "
                                 f"applies to collections")
        board, name = parse_board(text, source), None
    groups = None
    if partition is not None:
        from .database import parse_partition
        groups = parse_partition(partition, board.width, board.height)
    try:
        return FifteenPuzzle(board, metric, heuristic, partition=groups, db_dir=db_dir,
                             pdb_path=pdb, log=log, progress=progress, name=name)
    except PdbsearchError as exc:    # a choice this board does not allow: say which board
        raise PdbsearchError(f"{source}: {exc}") from None
