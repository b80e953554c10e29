"""Boards with their own goal: the ``goal:`` line, Korf's frame for goals
with the blank in a corner, and the engines against a plain BFS from every
kind of goal."""

from __future__ import annotations

import random
import subprocess
import sys
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.domains import detect_domain
from pdbsearch.errors import PdbsearchError, PuzzleFormatError
from pdbsearch.fifteen.formats import format_board, parse_board
from pdbsearch.fifteen.frame import korf_frame
from pdbsearch.fifteen.model import Board, goal_tiles
from pdbsearch.fifteen.puzzle import FifteenPuzzle
from pdbsearch.search import Status, solve
from pdbsearch.testing.fifteen import distances

SIZES = [(2, 2), (2, 3), (3, 2), (3, 3)]


@lru_cache(maxsize=None)
def oracle(width, height, goal):
    """Plain BFS distances to ``goal`` (tiles by cell)."""
    return distances(width, height, goal)


def random_goal(rng, width, height, blank_cell=None):
    """A random arrangement, its blank on ``blank_cell`` when given."""
    tiles = list(range(1, width * height))
    rng.shuffle(tiles)
    cell = rng.randrange(width * height) if blank_cell is None else blank_cell
    tiles.insert(cell, 0)
    return tuple(tiles)


def test_both_spellings_of_the_goal_and_the_round_trip():
    rows = parse_board("1 2 3\n4 0 5\n7 8 6\ngoal:\n1 2 3\n4 5 6\n7 8 0\n", "g.txt")
    line = parse_board("1 2 3\n4 0 5\n7 8 6\nGoal: 1 2 3 4 5 6 7 8 0  # blank last\n", "g.txt")
    assert rows == line and rows.goal == (1, 2, 3, 4, 5, 6, 7, 8, 0)
    assert parse_board(format_board(rows)) == rows
    # Korf's goal written out is the same board as no goal at all
    korf = parse_board("1 0\n2 3\ngoal: 0 1 2 3\n")
    assert korf.goal is None and korf == parse_board("1 0\n2 3\n")
    assert detect_domain("1 2 3\n4 0 5\ngoal: 1 2 3 4 5 0\n") == "fifteen"
    assert detect_domain("1 0\n2 3\ngoal:\n1 2\n3 0\n") == "fifteen"


@pytest.mark.parametrize("text, line, column, words", [
    ("1 2 3\n4 0 5\n7 8 6\ngoal:\n", 4, None, "the goal has no tiles"),
    ("1 2 3\n4 0 5\n7 8 6\ngoal: 1 2 3 4 5 6 7 8\n", 4, None, "the goal has 8 tiles"),
    ("1 2 3\n4 0 5\n7 8 6\ngoal: 1 2 3\n4 5 6 7 8 0\n", 5, None, "ragged goal rows"),
    ("1 2 3\n4 0 5\n7 8 6\ngoal:\n1 2 3\n4 5 6\n", 6, None, "the goal has 2 rows"),
    ("1 2 3\n4 0 5\n7 8 6\ngoal: 1 2 3 4 5 6 7 8 8\n", 4, None, "tile 8 appears twice in the goal"),
    ("1 2 3\n4 0 5\n7 8 6\ngoal: 1 2 3 4 5 6 7 8 9\n", 4, None, "tile 9 in the goal"),
    ("1 2 3\n4 0 5\n7 8 6\ngoal: 1 2 3 4 5 6 7 x 0\n", 4, 21, "'x' is not a tile number"),
    ("1 2 3\n4 0 5\n8 7 6\ngoal: 1 2 3 4 5 6 7 8 0\n", 1, None, "its goal cannot be reached"),
    ("1 2\n0 3\ngoal: 1 2 3 0\ngoal: 1 2 3 0\n", 4, None, "a second goal (the first on line 3)"),
    ("goal: 1 2 3 0\n", 1, None, "no board rows"),
])
def test_goal_errors_name_the_line(text, line, column, words):
    with pytest.raises(PuzzleFormatError) as info:
        parse_board(text, "bad.txt")
    assert (info.value.source, info.value.line, info.value.column) == ("bad.txt", line, column)
    assert words in str(info.value)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SIZES[:3]), st.randoms(use_true_random=False))
def test_solvable_means_reachable(size, rng):
    """The parity test against the plain BFS, for random boards and goals
    (the boards whose whole space the BFS covers in a moment)."""
    width, height = size
    goal = random_goal(rng, width, height)
    board = random_goal(rng, width, height)
    reachable = board in oracle(width, height, goal)
    assert Board(width, height, board, goal=goal).is_solvable() == reachable


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SIZES), st.randoms(use_true_random=False), st.integers(0, 3))
def test_the_frame_takes_a_corner_goal_to_korfs_and_back(size, rng, corner):
    width, height = size
    blank = [0, width - 1, width * (height - 1), width * height - 1][corner]
    goal = random_goal(rng, width, height, blank)
    board = Board(width, height, random_goal(rng, width, height), goal=goal)
    frame = korf_frame(board)
    assert frame.korf_board(Board(width, height, goal)).tiles == goal_tiles(width, height)
    inner = frame.korf_board(board)
    assert inner.goal is None and frame.own_board(inner, goal) == board
    # a move in Korf's frame is the same move read back in the board's own
    for tile, code in inner.moves():
        own_tile, own_code = frame.own_move(tile, code)
        assert frame.own_board(inner.play(tile, code), goal) == board.play(own_tile, own_code)


def test_a_goal_whose_blank_is_not_in_a_corner_has_no_frame():
    assert korf_frame(Board(3, 3, tuple(range(9)), goal=(1, 2, 3, 8, 0, 4, 7, 6, 5))) is None
    assert korf_frame(Board(3, 2, tuple(range(6)), goal=(1, 0, 2, 3, 4, 5))) is None


def heuristics_for(board):
    """Every heuristic the board's goal allows."""
    return ["zero", "manhattan"] + (["pdb"] if korf_frame(board) else [])


@pytest.mark.parametrize("width, height", SIZES)
def test_random_goals_against_the_plain_bfs(width, height):
    """Every blank cell of the goal, random starts, every optimal algorithm
    with every heuristic the goal allows: the optimal length is the plain BFS
    distance (the driver replays each solution in the board's own frame
    before it returns it)."""
    rng = random.Random(f"goals {width}x{height}")
    for blank in range(width * height):
        goal = random_goal(rng, width, height, blank)
        dist = oracle(width, height, goal)
        for start in rng.sample(sorted(dist), 2):
            board = Board(width, height, start, goal=goal)
            runs = [("bfs", "zero")] + [(algo, heuristic) for algo in ("astar", "idastar")
                                        for heuristic in heuristics_for(board)]
            for algo, heuristic in runs:
                result = solve(FifteenPuzzle(board, heuristic=heuristic), algo)
                assert result.status is Status.SOLVED and result.cost == dist[start]
                assert result.optimal


def test_weighted_search_reaches_the_own_goal():
    rng = random.Random("weighted goals")
    goal = random_goal(rng, 3, 3, 8)
    dist = oracle(3, 3, goal)
    for start in rng.sample(sorted(dist), 3):
        board = Board(3, 3, start, goal=goal)
        result = solve(FifteenPuzzle(board, heuristic="pdb"), "wastar", 2.0)
        assert result.status is Status.SOLVED and dist[start] <= result.cost <= 2 * dist[start]


def test_the_pattern_databases_need_a_corner_blank():
    board = Board(3, 3, (2, 8, 3, 1, 6, 4, 7, 0, 5), goal=(1, 2, 3, 8, 0, 4, 7, 6, 5))
    assert FifteenPuzzle(board).heuristic_name == "manhattan"
    with pytest.raises(PdbsearchError, match="blank in a corner"):
        FifteenPuzzle(board, heuristic="pdb")


def cli(*args, input=None):
    return subprocess.run([sys.executable, "-m", "pdbsearch", *args], capture_output=True,
                          text=True, timeout=300, input=input)


def test_the_command_line_reads_moves_in_the_boards_own_frame(tmp_path):
    """The blank-last goal, one move away: Korf's frame is the board turned
    half a turn, and the move is read back as the board's own."""
    path = tmp_path / "blank_last.txt"
    path.write_text("1 2 3\n4 5 6\n7 0 8\ngoal: 1 2 3 4 5 6 7 8 0\n")
    done = cli("solve", str(path), "--db-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "1 moves (optimal)" in done.stdout and "moves: 8 left" in done.stdout


def test_nilssons_example_from_the_standard_input():
    """Nilsson's 8-puzzle (Principles of Artificial Intelligence, 1980; the
    blank in the goal's centre): 5 moves, the plain BFS's distance too."""
    text = "2 8 3\n1 6 4\n7 0 5\ngoal:\n1 2 3\n8 0 4\n7 6 5\n"
    board = parse_board(text)
    assert oracle(3, 3, board.goal)[board.tiles] == 5
    done = cli("solve", "-", input=text)
    assert done.returncode == 0, done.stderr
    assert "5 moves (optimal)" in done.stdout and "heuristic manhattan" in done.stdout
    refused = cli("solve", "-", "--heuristic", "pdb", input=text)
    assert refused.returncode == 2 and "<stdin>: the pattern databases serve goals with the " \
        "blank in a corner" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_the_film_shows_the_board_in_its_own_frame():
    """The frames are the board's own positions, the last one its goal, and
    the target the goal's blank cell (bottom-right here)."""
    board = Board(3, 3, (4, 1, 3, 7, 2, 6, 0, 5, 8), goal=(1, 2, 3, 4, 5, 6, 7, 8, 0))
    puzzle = FifteenPuzzle(board)
    result = solve(puzzle, "astar")
    assert result.cost == oracle(3, 3, board.goal)[board.tiles]
    film = puzzle.solution_film(result.steps)
    assert film.scene.targets == {(2, 2)}
    assert [f.solved for f in film.frames] == [False] * result.cost + [True]
    first = {b.label: b.cells[0] for b in film.frames[0].blocks}
    assert first["4"] == (0, 0) and first["8"] == (2, 2)
    assert puzzle.render(puzzle.initial_key()) == format_board(Board(3, 3, board.tiles)).rstrip()


def test_korfs_instance_2_with_the_blank_last():
    """Korf's instance 2 (55 moves, Korf 1985; puzzles/fifteen/korf100.txt),
    turned half a turn and renamed so that its goal is the blank last: the
    same 55 moves, through the same 5-5-5 tables."""
    from pdbsearch.fifteen.database import PARTITIONS_4X4
    from pdbsearch.fifteen.formats import parse_collection
    from .test_korf import KORF
    korf = parse_collection(KORF.read_text(), "korf100.txt")[1]
    blank_last = (*range(1, 16), 0)
    frame = korf_frame(Board(4, 4, blank_last, goal=blank_last))
    own = frame.own_board(korf.board, blank_last)
    assert frame.korf_board(own) == korf.board and own.is_solvable()
    puzzle = FifteenPuzzle(own, heuristic="pdb", partition=PARTITIONS_4X4["5-5-5"])
    result = solve(puzzle, "idastar")
    assert result.optimal and result.cost == korf.optimal == 55


def test_a_partition_names_the_boards_own_tiles():
    """Groups given by the user are the tiles they see; the tables are
    indexed in Korf's frame (tile t of the blank-last goal is 16 - t there)."""
    blank_last = (*range(1, 16), 0)
    board = Board(4, 4, blank_last, goal=blank_last)
    puzzle = FifteenPuzzle(board, partition=[(1, 2, 3, 4, 5), (6, 7, 8, 9, 10),
                                             (11, 12, 13, 14, 15)])
    assert puzzle.partition == ((11, 12, 13, 14, 15), (6, 7, 8, 9, 10), (1, 2, 3, 4, 5))


def test_random_partitions_of_the_own_tiles_stay_admissible():
    """Random groups of a corner goal's own tiles, their tables built in
    Korf's frame: A* finds the plain BFS's distance."""
    rng = random.Random("partitions")
    for corner in (0, 2, 6, 8):
        goal = random_goal(rng, 3, 3, corner)
        dist = oracle(3, 3, goal)
        tiles = list(range(1, 9))
        rng.shuffle(tiles)
        cut = rng.randrange(2, 7)
        groups = [tiles[:cut], tiles[cut:]]
        for start in rng.sample(sorted(dist), 3):
            puzzle = FifteenPuzzle(Board(3, 3, start, goal=goal), heuristic="pdb",
                                   partition=groups)
            result = solve(puzzle, "astar")
            assert result.cost == dist[start] and result.optimal


def test_levels_runs_a_collection_with_its_own_goal(tmp_path):
    """A collection with a goal line and an unknown optimum ('-'): each
    instance solved to that goal, the recorded lengths checked (the plain
    BFS agrees with them)."""
    goal = (1, 2, 3, 4, 5, 6, 7, 8, 0)
    starts = [(1, 2, 3, 4, 5, 6, 7, 0, 8), (1, 2, 3, 4, 0, 5, 7, 8, 6), (1, 2, 3, 4, 5, 6, 0, 7, 8)]
    dist = oracle(3, 3, goal)
    assert [dist[s] for s in starts] == [1, 2, 2]
    path = tmp_path / "blank_last.txt"
    path.write_text("goal: 1 2 3 4 5 6 7 8 0\n1 1 1 2 3 4 5 6 7 0 8\n"
                    "2 - 1 2 3 4 0 5 7 8 6\n3 2 1 2 3 4 5 6 0 7 8\n")
    done = cli("levels", str(path), "--db-dir", str(tmp_path / "db"), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "solved 3/3 (proven optimal 3, equal to the recorded optimum 2, different 0" \
        in done.stdout
