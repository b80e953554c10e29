"""The N×M sliding-tile puzzle (8-, 15-, 24-puzzle): boards, file formats,
kernels and disjoint additive pattern databases.

* :mod:`.model` -- the board and the rules in plain Python;
* :mod:`.formats` -- the board file and the collection (Korf's 100) formats;
* :mod:`.vocabulary` -- the metric and heuristic names;
* :mod:`.kernels` (key, successors, goal) and :mod:`.bounds` (lower bounds) --
  the jitted half of :class:`~.puzzle.FifteenPuzzle`;
* :mod:`.abstraction` and :mod:`.database` -- the additive pattern databases;
* :mod:`.collection` -- solving a whole collection (``pdbsearch levels``).
"""

from .formats import format_board, load_board, parse_board, parse_collection
from .model import Board
from .puzzle import FifteenPuzzle
from .vocabulary import HEURISTICS, METRICS

__all__ = ["HEURISTICS", "METRICS", "Board", "FifteenPuzzle", "format_board", "load_board",
           "parse_board", "parse_collection"]
