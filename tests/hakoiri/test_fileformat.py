"""The Hakoiri text format: round trips and clear errors."""

import random

import pytest

from pdbsearch.errors import PuzzleFormatError
from pdbsearch.hakoiri import format_board, parse_board
from pdbsearch.hakoiri.model import Shape
from pdbsearch.hakoiri.builtin import CLASSIC_TEXT
from pdbsearch.hakoiri.generator import default_recipe, random_board


def test_classic_parses(classic_board):
    b = classic_board
    assert (b.width, b.height, b.exit) == (4, 5, (1, 3))
    counts = {s: b.count(s) for s in Shape}
    assert counts == {Shape.SQUARE: 1, Shape.VERTICAL: 4, Shape.HORIZONTAL: 1, Shape.SINGLE: 4}
    assert b.empty_cells() == [(1, 4), (2, 4)]


def test_round_trip_classic(classic_board):
    again = parse_board(format_board(classic_board))
    assert again == classic_board


@pytest.mark.parametrize("seed", range(20))
def test_round_trip_random_boards(seed):
    rng = random.Random(seed)
    w, h = rng.randint(3, 9), rng.randint(3, 9)
    board = random_board(default_recipe(w, h, rng.randint(1, 3)), rng)
    again = parse_board(format_board(board))
    assert again.canonical() == board.canonical()
    assert again.exit == board.exit


BAD = {
    "ragged": ("exit: 1 3\nBAAC\nBAAC\nDEEFX\nDGHF\nI..J\n", 4, "ragged"),
    "unknown char": ("exit: 1 3\nBAAC\nBAAC\nDE#F\nDGHF\nI..J\n", 4, "unknown character"),
    "L-shaped piece": ("exit: 1 3\nBAAC\nBAAC\nDEEF\nDEHF\nI..J\n", 4, "rectangle"),
    "3x1 piece": ("exit: 1 3\nBAAC\nBAAC\nBEEF\nDGHF\nI..J\n", 2, "rectangle"),
    "no square": ("exit: 1 3\nBKLC\nBMNC\nDEEF\nDGHF\nI..J\n", None, "exactly one 2x2"),
    "two squares": ("exit: 0 0\nAABB\nAABB\nDEEF\nDGHF\nI..J\n", 2, "exactly one 2x2"),
    "no empty": ("exit: 1 3\nBAAC\nBAAC\nDEEF\nDGHF\nIKLJ\n", None, "no empty cell"),
    "exit off board": ("exit: 3 3\nBAAC\nBAAC\nDEEF\nDGHF\nI..J\n", 1, "cannot stand"),
    "no exit": ("BAAC\nBAAC\nDEEF\nDGHF\nI..J\n", None, "no exit"),
    "bad exit": ("exit: one two\nBAAC\nBAAC\nDEEF\nDGHF\nI..J\n", 1, "bad exit"),
    "unknown setting": ("speed: 3\nexit: 1 3\nBAAC\n", 1, "unknown setting"),
    "empty file": ("# nothing\n", None, "no board rows"),
}


@pytest.mark.parametrize("name", BAD)
def test_malformed_files_are_refused_clearly(name):
    text, line, words = BAD[name]
    with pytest.raises(PuzzleFormatError) as info:
        parse_board(text, "bad.txt")
    err = info.value
    assert err.source == "bad.txt"
    assert err.line == line
    assert words in err.message
    assert str(err).startswith("bad.txt")


def test_exit_bottom_shortcut():
    board = parse_board(CLASSIC_TEXT.replace("exit: 1 3", "exit: bottom"))
    assert board.exit == (1, 3)


def test_board_files_are_read_like_every_puzzle_file(tmp_path):
    """``load_board`` reads through the one reader (:func:`pdbsearch.io.read_text`):
    a Windows-1252 comment reads right, a missing file is named."""
    from pdbsearch.hakoiri import load_board
    path = tmp_path / "board.txt"
    path.write_bytes(("# Café\n" + CLASSIC_TEXT).encode("cp1252"))
    assert load_board(path).comments[0] == "Café"
    with pytest.raises(PuzzleFormatError, match="no such file"):
        load_board(tmp_path / "missing.txt")
