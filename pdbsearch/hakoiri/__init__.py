"""The Hakoiri-musume (Klotski) family: boards, file format, kernels, generator.

* :mod:`.model` -- the board, its pieces and the rules in plain Python;
* :mod:`.formats` -- the board file format;
* :mod:`.vocabulary` -- the metric and heuristic names;
* :mod:`.kernels` (key, successors, goal) and :mod:`.bounds` (lower bounds) --
  the jitted half of :class:`~.puzzle.HakoiriPuzzle`;
* :mod:`.abstraction` and :mod:`.database` -- the relaxed-problem PDB;
* :mod:`.generator` -- seeded random boards proved solvable.
"""

from .formats import format_board, load_board, parse_board
from .model import Board, Piece, Shape
from .puzzle import HakoiriPuzzle
from .vocabulary import HEURISTICS, METRICS

__all__ = ["HEURISTICS", "METRICS", "Board", "Piece", "Shape", "HakoiriPuzzle", "format_board",
           "load_board", "parse_board"]
