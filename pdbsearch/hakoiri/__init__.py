"""The Hakoiri-musume (Klotski) family: boards, file format, kernels, generator."""

from .model import METRICS, Board, Piece, Shape
from .formats import format_board, load_board, parse_board
from .puzzle import HakoiriPuzzle

__all__ = ["METRICS", "Board", "Piece", "Shape", "HakoiriPuzzle", "format_board",
           "load_board", "parse_board"]
