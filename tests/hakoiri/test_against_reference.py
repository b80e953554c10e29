"""Every engine, metric and heuristic against a plain-Python BFS of the rules.

Random small boards of every size from 3x4 to 6x6, with the 2x2's exit at
*every* position it can occupy, 1 to 4 empty cells and random piece mixes
(unsolvable boards included).  The oracle is :mod:`tests.hakoiri.reference`,
which shares no code with the kernels or the checker.  For each board the
optimum, the ``optimal`` flag, the status and the command's exit code must
agree with it.
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.cli import main
from pdbsearch.errors import PdbsearchError
from pdbsearch.hakoiri import HakoiriPuzzle
from pdbsearch.hakoiri.vocabulary import METRICS as METRIC_TABLE
from pdbsearch.hakoiri.database import build_relaxed, relaxed_spec
from pdbsearch.hakoiri.formats import format_board, parse_board
from pdbsearch.hakoiri.generator import Recipe, random_board
from pdbsearch.search import ALGORITHMS, Limits, Status, solve
from pdbsearch.search import explore as quick_explore
from pdbsearch.search.idastar import IterativeDeepeningSearch

from .reference import optimum

METRICS = METRIC_TABLE.names

SIZES = [(3, 4), (4, 3), (3, 5), (5, 3), (3, 6), (6, 3), (4, 4), (4, 5), (5, 4),
         (4, 6), (6, 4), (5, 5), (5, 6), (6, 5), (6, 6)]
CASES = [(w, h, x, y) for w, h in SIZES for y in range(h - 1) for x in range(w - 1)]
CASE_IDS = [f"{w}x{h}-exit{x},{y}" for w, h, x, y in CASES]
#: the whole reachable space stays below this, so that every algorithm
#: (greedy included) ends by itself within a fraction of a second
MAX_STATES = 30000
WEIGHT = 2.0
HEURISTICS = ("zero", "simple", "pdb")
EXIT_CODES = {Status.SOLVED: 0, Status.UNSOLVABLE: 4}
CASES_FILE = Path(__file__).with_name("reference_boards.txt")

_pdbs: dict = {}


def draw_board(width: int, height: int, exit_x: int, exit_y: int, seed: int | None = None):
    """A random board of this size with its exit at (exit_x, exit_y), with
    a space small enough for the oracle; unsolvable when ``seed % 3 == 0``.

    Boards are drawn until one fits the case: a reachable space of at most
    MAX_STATES (counted by the quick jitted BFS) and the wanted solvability
    (by the jitted A*).  These only choose the board; the answers the
    engines are held to come from the oracle alone.
    """
    if seed is None:
        seed = (width * 131 + height) * 4099 + exit_y * 67 + exit_x
    rng = random.Random(seed)
    want_solvable = seed % 3 != 0
    for _ in range(1000):
        # The 2x2 moves only with two empty cells side by side.
        empty = min(rng.choice([2, 3] if want_solvable else [1, 2, 3]), width * height - 5)
        rest = width * height - 4 - empty
        dominoes = rng.randint(rest // 4, rest // 2)
        verticals = rng.randint(0, dominoes)
        # Small spaces rarely carry the 2x2 far: start it near the exit.
        sx = min(max(exit_x + rng.randint(-3, 3), 0), width - 2)
        sy = min(max(exit_y + rng.randint(-3, 3), 0), height - 2)
        recipe = Recipe(width, height, verticals, dominoes - verticals, empty,
                        square=f"{sx},{sy}", exit=f"{exit_x},{exit_y}")
        try:
            board = random_board(recipe, rng, max_tries=5)
        except PdbsearchError:  # the pieces did not fit: draw another mix
            continue
        # The oracle explores all of an unsolvable board's space: keep those small.
        most = MAX_STATES if want_solvable else MAX_STATES // 8
        count = quick_explore(HakoiriPuzzle(board, "unit", "zero"), Limits(nodes=most))
        if count.status is not Status.UNSOLVABLE:
            continue  # too many states
        solved = solve(HakoiriPuzzle(board, "unit", "simple"), "astar").status
        if (solved is Status.SOLVED) != want_solvable:
            continue
        return board
    raise AssertionError(f"no board found for {width}x{height} exit {exit_x},{exit_y}")


def stored_boards() -> dict[tuple[int, int, int, int], object]:
    """The boards of :data:`CASES`, drawn once by :func:`draw_board` and kept
    in ``reference_boards.txt`` (drawing them takes a minute; run this
    module as a script to draw them again)."""
    text = CASES_FILE.read_text()
    boards = [parse_board(chunk, str(CASES_FILE)) for chunk in text.split("\n\n") if chunk.strip()]
    return {(b.width, b.height, *b.exit): b for b in boards}


@functools.lru_cache(maxsize=None)
def random_case(width: int, height: int, exit_x: int, exit_y: int):
    """The stored board of a case and the oracle's ``{metric: optimum}``."""
    board = stored_boards()[(width, height, exit_x, exit_y)]
    return board, {metric: optimum(board, metric, MAX_STATES) for metric in METRICS}


def pdb_for(board, metric):
    spec = relaxed_spec(board.width, board.height, board.exit, len(board.empty_cells()), metric)
    if spec.fingerprint not in _pdbs:
        _pdbs[spec.fingerprint] = build_relaxed(spec)[0]
    return _pdbs[spec.fingerprint]


def check_result(result, want, algo):
    """The result of ``algo`` agrees with the oracle's optimum ``want``."""
    if want is None:
        assert result.status is Status.UNSOLVABLE, (algo, result.status, result.stop_reason)
        assert result.cost is None and not result.optimal
        return
    assert result.status is Status.SOLVED, (algo, result.status, result.stop_reason)
    assert len(result.steps) == result.cost
    if ALGORITHMS[algo].uses_weight:
        assert want <= result.cost <= WEIGHT * want
        assert result.bound == WEIGHT and not result.optimal
    elif not ALGORITHMS[algo].bounded:   # greedy, fess: no guarantee
        assert result.cost >= want and result.bound is None and not result.optimal
    else:
        assert result.cost == want and result.optimal


@pytest.mark.parametrize("width,height,exit_x,exit_y", CASES, ids=CASE_IDS)
def test_engines_agree_with_the_reference_bfs(width, height, exit_x, exit_y):
    board, answers = random_case(width, height, exit_x, exit_y)
    for i, metric in enumerate(METRICS):
        # Each metric of a board gets one heuristic, in turn over the cases.
        heuristic = HEURISTICS[(CASES.index((width, height, exit_x, exit_y)) + i) % 3]
        pdb = pdb_for(board, metric) if heuristic == "pdb" else None
        puzzle = HakoiriPuzzle(board, metric, heuristic, pdb=pdb)
        for algo in ALGORITHMS:
            result = solve(puzzle, algo, WEIGHT if ALGORITHMS[algo].uses_weight else 1.0)
            check_result(result, answers[metric], algo)


def test_the_cases_cover_unsolvable_boards_and_exits_off_the_bottom():
    answers = [(y, h, random_case(w, h, x, y)[1]["straight"]) for w, h, x, y in CASES]
    unsolvable = sum(want is None for _, _, want in answers)
    high_exit_solved = sum(want is not None and y < h - 2 for y, h, want in answers)
    assert unsolvable >= len(CASES) // 4 and high_exit_solved >= len(CASES) // 3


@pytest.mark.parametrize("width,height,exit_x,exit_y", CASES[::7], ids=CASE_IDS[::7])
def test_command_line_agrees_with_the_reference_bfs(width, height, exit_x, exit_y,
                                                    tmp_path, capsys):
    board, answers = random_case(width, height, exit_x, exit_y)
    path = tmp_path / "board.txt"
    path.write_text(format_board(board))
    for i, metric in enumerate(METRICS):
        want = answers[metric]
        algo = list(ALGORITHMS)[(i + width + exit_y) % len(ALGORITHMS)]
        code = main(["solve", str(path), "--metric", metric, "--algo", algo, "--json",
                     "--db-dir", str(tmp_path / "db")] +
                    (["--weight", str(WEIGHT)] if ALGORITHMS[algo].uses_weight else []))
        out = json.loads(capsys.readouterr().out)
        status = Status.UNSOLVABLE if want is None else Status.SOLVED
        assert code == EXIT_CODES[status], (metric, algo, out)
        assert out["status"] == status.value
        if want is not None and algo in ("bfs", "astar", "idastar"):
            assert out["cost"] == want and out["optimal"] is True



@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 10**9))
def test_fresh_random_boards_agree_with_the_reference_bfs(case, seed):
    """New boards every run (the stored ones are fixed): any size, any exit."""
    board = draw_board(*case, seed=seed)
    metric = METRICS[seed % 3]
    want = optimum(board, metric, MAX_STATES)
    heuristic = HEURISTICS[seed // 3 % 3]
    pdb = pdb_for(board, metric) if heuristic == "pdb" else None
    puzzle = HakoiriPuzzle(board, metric, heuristic, pdb=pdb)
    for algo in ALGORITHMS:
        result = solve(puzzle, algo, WEIGHT if ALGORITHMS[algo].uses_weight else 1.0)
        check_result(result, want, algo)


def test_idastar_keeps_learned_bounds_on_their_states_when_the_table_grows():
    """Found by the fresh-boards test (case 4x5, exit 1,0, seed 325): the
    transposition table doubled mid-iteration, the path's slots went stale,
    and a subtree's learned bound landed on another state, so IDA* returned
    21 as optimal where the oracle finds 20."""
    board = draw_board(4, 5, 1, 0, seed=325)
    puzzle = HakoiriPuzzle(board, "straight", "zero")
    want = optimum(board, "straight", MAX_STATES)
    assert want == 20
    check_result(solve(puzzle, "idastar"), want, "idastar")


@pytest.mark.parametrize("width,height,exit_x,exit_y", CASES, ids=CASE_IDS)
def test_idastar_stays_optimal_while_its_table_doubles(width, height, exit_x, exit_y,
                                                       monkeypatch):
    """A 16-slot first table doubles many times mid-iteration in every
    search: the learned bounds must stay on their own states."""
    monkeypatch.setattr(IterativeDeepeningSearch, "initial_slots", 16)
    board, answers = random_case(width, height, exit_x, exit_y)
    for metric in METRICS:
        puzzle = HakoiriPuzzle(board, metric, "simple")
        check_result(solve(puzzle, "idastar"), answers[metric], "idastar")


if __name__ == "__main__":
    # Draw the stored boards again: python -m tests.hakoiri.test_against_reference
    chunks = [format_board(draw_board(*case)) for case in CASES]
    CASES_FILE.write_text("\n".join(chunks))
    print(f"{len(chunks)} boards written to {CASES_FILE}")

