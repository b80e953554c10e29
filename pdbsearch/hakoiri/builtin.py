"""The built-in classic board, used when no file is given."""

from __future__ import annotations

from .model import Board
from .formats import parse_board

CLASSIC_TEXT = """\
# Hakoiri-musume, the classic 4 x 5 board (built in)
exit: 1 3
BAAC
BAAC
DEEF
DGHF
I..J
"""


CLASSIC_SOURCE = "<built-in classic board>"


def classic_board() -> Board:
    """The classic 4×5 Hakoiri-musume start position."""
    return parse_board(CLASSIC_TEXT, CLASSIC_SOURCE)
