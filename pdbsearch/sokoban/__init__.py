"""Sokoban on the generic puzzle interface.

* :mod:`.model` -- the immutable :class:`Level` (walls, goals, start);
* :mod:`.formats` -- XSB collections, ICPC "Push!!" maps, seed 002's
  legend, and the XSB writer;
* :mod:`.checker` -- the independent LURD replayer that checks every solution;
* :mod:`.vocabulary` -- the metric and heuristic names;
* :mod:`.tables`, :mod:`.deadlocks`, :mod:`.matching` -- the static tables,
  deadlock rules and assignment solver the kernels use;
* :mod:`.kernels` (successors) and :mod:`.bounds` (lower bounds) -- the jitted
  half of :class:`~.puzzle.SokobanPuzzle`;
* :mod:`.abstraction` and :mod:`.database` -- the k-box pattern databases.

The plain-Python oracles the tests use are in :mod:`pdbsearch.testing.sokoban`.
"""

from pdbsearch.sokoban.checker import check_solution, replay_lurd
from pdbsearch.sokoban.formats import (FORMATS, InvalidLevel, detect_format, format_xsb,
                                       format_xsb_collection, load_levels,
                                       parse_levels, parse_levels_each, parse_push,
                                       parse_seed002, parse_slc, parse_xsb_collection,
                                       read_level, select_level)
from pdbsearch.sokoban.model import DIRECTIONS, MAX_BOXES, MAX_SIDE, Level

__all__ = [
    "DIRECTIONS", "FORMATS", "InvalidLevel", "MAX_BOXES", "MAX_SIDE", "Level",
    "check_solution", "detect_format", "format_xsb", "format_xsb_collection", "load_levels",
    "parse_levels", "parse_levels_each", "parse_push", "parse_seed002", "parse_slc",
    "parse_xsb_collection",
    "read_level", "replay_lurd", "select_level",
]
