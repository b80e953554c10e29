"""The sliding-tile board and collection formats, and telling them apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdbsearch.domains import detect_domain
from pdbsearch.errors import PuzzleFormatError
from pdbsearch.fifteen.formats import format_board, is_collection, parse_board, \
    parse_collection, pick
from pdbsearch.fifteen.model import Board

KORF = Path(__file__).resolve().parents[2] / "puzzles" / "fifteen" / "korf100.txt"
EIGHT = "# an 8-puzzle\n8 6 7\n2 5 4\n3 0 1\n"


def test_board_round_trip():
    board = parse_board(EIGHT, "e.txt")
    assert (board.width, board.height) == (3, 3)
    assert board.tiles == (8, 6, 7, 2, 5, 4, 3, 0, 1)
    assert board.comments == ("an 8-puzzle",)
    assert parse_board(format_board(board)) == board


def test_non_square_board():
    board = parse_board("1 2 3\n4 0 5\n", "r.txt")
    assert (board.width, board.height) == (3, 2)


@pytest.mark.parametrize("text, line, words", [
    ("1 2 3\n4 0\n6 7 8\n", 2, "ragged"),
    ("1 2 3\n4 0 x\n6 7 8\n", 2, "'x' is not a tile number"),
    ("1 2 3\n4 0 4\n6 7 8\n", 2, "tile 4 appears twice"),
    ("1 2 3\n4 0 9\n6 7 8\n", 2, "tile 9 on a 3x3 board"),
    ("2 1 3\n4 0 5\n6 7 8\n", 1, "unsolvable"),
    ("1 0\n", 1, "each side must be"),
    ("# nothing\n", None, "no board rows"),
])
def test_board_errors_name_line_and_problem(text, line, words):
    with pytest.raises(PuzzleFormatError) as info:
        parse_board(text, "bad.txt")
    assert info.value.source == "bad.txt" and info.value.line == line
    assert words in str(info.value)


def test_korf_collection():
    text = KORF.read_text()
    assert is_collection(text) and detect_domain(text) == "fifteen"
    instances = parse_collection(text, "korf100.txt")
    assert len(instances) == 100
    assert sum(i.optimal for i in instances) == 5305
    assert all(i.board.width == 4 and i.board.is_solvable() for i in instances)
    assert instances[0].board.tiles[:4] == (14, 13, 15, 7)
    assert pick(instances, 3, "k").id == "3" and pick(instances, "100", "k").optimal == 54
    with pytest.raises(PuzzleFormatError, match="no instance"):
        pick(instances, 101, "k")


@pytest.mark.parametrize("line, words", [
    ("1 57 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 3", "tiles: a collection holds square"),
    ("1 57 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 10", "tile 10 appears twice"),
    ("1 x 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "'x' is not a tile number"),
    ("1 57 13 14 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "unsolvable"),
])
def test_collection_errors(line, words):
    text = "2 55 13 5 4 10 9 12 8 14 2 3 7 1 0 15 11 6\n" + line + "\n"
    with pytest.raises(PuzzleFormatError) as info:
        parse_collection(text, "c.txt")
    assert info.value.line == 2 and words in str(info.value)


@pytest.mark.parametrize("text, collection", [
    ("a - 1 0 2 3 4 5 6 7 8\n", True),          # one instance: its id and optimum say so
    ("7 - 1 0 2 3 4 5 6 7 8\n", True),
    ("x 9 1 0 2 3 4 5 6 7 8\n", True),
    ("9 10 1 0 2 3 4 5 6 7 8\n", False),        # all different numbers: a board row
    ("1 31 1 0 2 3 4 5 6 7 8\n2 5 1 0 2 3 4 5 6 7 8\n", True),
    ("1 2 3\n4 0 5\n7 8 6\n", False),
])
def test_what_reads_as_a_collection(text, collection):
    assert is_collection(text) is collection


def test_a_collection_goal_line_gives_every_instance_its_goal():
    text = "# blank last\ngoal: 1 2 3 4 5 6 7 8 0\n1 1 1 2 3 4 5 6 7 0 8\n2 - 1 2 3 4 0 5 7 8 6\n"
    assert is_collection(text)
    instances = parse_collection(text, "c.txt")
    assert [i.board.goal for i in instances] == [(1, 2, 3, 4, 5, 6, 7, 8, 0)] * 2


@pytest.mark.parametrize("text, line, words", [
    ("goal: 1 2 3 0\n1 - 1 2 0 3\ngoal: 1 2 3 0\n", 3, "a second goal (the first on line 1)"),
    ("1 - 1 0 2 3\ngoal: 1 2 3 0\n", 2, "must come before the instances"),
    ("goal: 1 2 3\n1 - 1 2 0 3\n", 1, "the goal has 3 tiles"),
    ("goal: 1 2 3 0\n1 - 2 1 0 3\n", 2, "its goal cannot be reached"),
])
def test_collection_goal_errors(text, line, words):
    with pytest.raises(PuzzleFormatError) as info:
        parse_collection(text, "c.txt")
    assert info.value.line == line and words in str(info.value)


def test_detection_keeps_the_other_domains():
    repo = KORF.parents[2]
    assert detect_domain((repo / "puzzles/push/sample_map1_only.in").read_text()) == "sokoban"
    assert detect_domain((repo / "puzzles/hakoiri/classic.txt").read_text()) == "hakoiri"
    assert detect_domain(EIGHT) == "fifteen"
    # a collection whose optimum is unknown ('-'), ids that are words, a goal line
    assert detect_domain("a - 1 0 2 3 4 5 6 7 8\nb 1 1 0 2 3 4 5 6 7 8\n") == "fifteen"
    assert detect_domain("goal: 1 2 3 0\n1 - 1 2 0 3\n") == "fifteen"
    assert detect_domain("0 1\n2 3\n") == "fifteen"


QUICK = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@QUICK
@given(st.lists(st.sampled_from([*"0123456789 \n#x-", "goal:", "\ngoal: ", "Goal:\n"]),
                max_size=80))
def test_fuzz_board_parser(chars):
    """Any text, ``goal:`` lines among it: a board that keeps the model's
    promises, or a PuzzleFormatError."""
    text = "".join(chars)
    try:
        board = parse_board(text, "fuzz.txt")
    except PuzzleFormatError as exc:
        assert exc.source == "fuzz.txt" and len(str(exc)) < 400
        return
    assert sorted(board.tiles) == list(range(board.cells)) and board.is_solvable()
    assert sorted(board.target) == list(range(board.cells))
    assert parse_board(format_board(board)) == board


@QUICK
@given(st.integers(0, 10**6), st.integers(1, 6))
def test_fuzz_collection_parser(seed, edits):
    """Korf's file with random edits: parsed instances are valid boards, or a
    PuzzleFormatError names the file."""
    import random
    rng = random.Random(seed)
    lines = KORF.read_text().splitlines()[:12]
    if rng.random() < 0.5:      # every instance given the blank-last goal
        lines.insert(rng.randrange(len(lines)), "goal: " + " ".join(map(str, [*range(1, 16), 0])))
    chars = list("\n".join(lines))
    for _ in range(edits):
        i = rng.randrange(len(chars))
        kind = rng.randrange(3)
        if kind == 0:
            chars[i] = rng.choice("0123456789 x\n-")
        elif kind == 1:
            del chars[i]
        else:
            chars.insert(i, rng.choice("0123456789 "))
    text = "".join(chars)
    detect_domain(text)
    try:
        instances = parse_collection(text, "fuzz.txt")
    except PuzzleFormatError as exc:
        assert exc.source == "fuzz.txt" and len(str(exc)) < 400
        return
    for inst in instances:
        assert sorted(inst.board.tiles) == list(range(inst.board.cells))
        assert sorted(inst.board.target) == list(range(inst.board.cells))
        assert inst.board.is_solvable()


def test_model_moves_and_parity():
    board = Board(3, 3, (1, 2, 3, 4, 0, 5, 6, 7, 8))
    assert len(board.moves()) == 4
    for nxt in board.neighbours():
        assert nxt.is_solvable()
