"""Sokoban: the level model, its file formats and plain-Python oracles.

* :mod:`.level` -- the immutable :class:`Level` (walls, goals, start);
* :mod:`.formats` -- XSB collections, ICPC "Push!!" maps, seed 002's
  legend, and the XSB writer;
* :mod:`.reference` -- a LURD replayer/checker, dead squares and
  exhaustive push- and move-optimal BFS, used as test oracles.
"""

from pdbsearch.sokoban.formats import (FORMATS, detect_format, format_xsb,
                                       format_xsb_collection, load_levels,
                                       parse_levels, parse_push,
                                       parse_seed002, parse_xsb_collection,
                                       select_level)
from pdbsearch.sokoban.level import DIRECTIONS, MAX_BOXES, MAX_SIDE, Level
from pdbsearch.sokoban.reference import (StateLimitError, bfs_min_moves,
                                         bfs_min_moves_solution,
                                         bfs_min_pushes,
                                         bfs_min_pushes_solution,
                                         check_solution, dead_squares,
                                         replay_lurd)

__all__ = [
    "DIRECTIONS", "FORMATS", "MAX_BOXES", "MAX_SIDE", "Level",
    "StateLimitError", "bfs_min_moves", "bfs_min_moves_solution",
    "bfs_min_pushes", "bfs_min_pushes_solution", "check_solution",
    "dead_squares", "detect_format", "format_xsb", "format_xsb_collection",
    "load_levels", "parse_levels", "parse_push", "parse_seed002",
    "parse_xsb_collection", "replay_lurd", "select_level",
]
