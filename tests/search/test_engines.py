"""The generic engines on seeded random small Hakoiri boards."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.errors import PdbsearchError
from pdbsearch.hakoiri import HakoiriPuzzle, parse_board
from pdbsearch.hakoiri.vocabulary import METRICS as METRIC_TABLE
from pdbsearch.hakoiri.generator import Recipe, random_board
from pdbsearch.puzzle import DEAD
from pdbsearch.search import ALGORITHMS, Limits, Status, explore, solve
from pdbsearch.search.bestfirst import BestFirstSearch
from pdbsearch.search.common import NODES, evaluate_heuristic
from pdbsearch.search.driver import run_engine

METRICS = METRIC_TABLE.names


def small_board(seed: int):
    rng = random.Random(seed)
    w, h = rng.randint(3, 5), rng.randint(3, 5)
    empty = rng.randint(1, 3)
    rest = w * h - 4 - empty
    return random_board(Recipe(w, h, rng.randint(0, rest // 4), rng.randint(0, rest // 6),
                               empty, square="random"), rng)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), metric=st.sampled_from(METRICS))
def test_optimal_searches_agree(seed, metric):
    board = small_board(seed)
    bfs = solve(HakoiriPuzzle(board, metric, "zero"), "bfs")
    for algo in ("astar", "idastar"):
        other = solve(HakoiriPuzzle(board, metric, "simple"), algo)
        assert other.status is bfs.status
        assert other.cost == bfs.cost
        if bfs.status is Status.SOLVED:
            assert other.optimal


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), metric=st.sampled_from(METRICS),
       weight=st.sampled_from([1.5, 2.0, 5.0]))
def test_weighted_astar_within_bound(seed, metric, weight):
    board = small_board(seed)
    opt = solve(HakoiriPuzzle(board, metric, "zero"), "bfs")
    result = solve(HakoiriPuzzle(board, metric, "simple"), "wastar", weight)
    assert result.status is opt.status
    if opt.status is Status.SOLVED:
        assert opt.cost <= result.cost <= weight * opt.cost
        assert result.bound == weight


# One empty cell: the 2x2 can never move (it needs two empty cells in a line).
STUCK = "exit: 0 1\nAAB\nAAC\nDE.\n"


@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_unsolvable_is_proved(algo):
    result = solve(HakoiriPuzzle(parse_board(STUCK), "straight", "simple"), algo)
    assert result.status is Status.UNSOLVABLE
    assert result.cost is None and result.steps == []


# 23,296 reachable states and no solution: IDA*'s learned bounds grow with
# every iteration there, so only a full table proves it (issue 9).
UNSOLVABLE_3X6 = "exit: 0 0\nBCC\nDE.\nDAA\n.AA\nFFG\n.HI\n"


@pytest.mark.parametrize("metric", METRICS)
def test_idastar_proves_a_larger_space_unsolvable(metric):
    board = parse_board(UNSOLVABLE_3X6)
    assert explore(HakoiriPuzzle(board, metric, "zero")).stored == 23296
    result = solve(HakoiriPuzzle(board, metric, "simple"), "idastar",
                   limits=Limits(nodes=5_000_000))
    assert result.status is Status.UNSOLVABLE, result.stop_reason


def test_start_at_goal_costs_nothing():
    board = parse_board("exit: 0 0\nAAB\nAAC\nDE.\n")
    result = solve(HakoiriPuzzle(board, "unit", "simple"), "astar")
    assert result.status is Status.SOLVED and result.cost == 0 and result.optimal


@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_node_limit_stops_cleanly(classic_board, algo):
    result = solve(HakoiriPuzzle(classic_board, "unit", "simple"), algo,
                   limits=Limits(nodes=500))
    assert result.status is Status.LIMIT
    assert result.stop_reason == "nodes"
    assert result.expanded == 500
    assert result.generated > 0
    if algo in ("astar", "idastar"):
        assert 0 < result.lower_bound <= 116  # a proven bound on the known optimum


@pytest.mark.parametrize("algo", ["bfs", "astar"])
def test_memory_limit_stops_cleanly(algo):
    board = parse_board(open_board_8x8())
    result = solve(HakoiriPuzzle(board, "unit", "zero"), algo, limits=Limits(memory_mb=1))
    assert result.status is Status.LIMIT
    assert result.stop_reason == "memory"
    assert result.memory_bytes <= 1 << 20


def test_time_limit_stops_cleanly():
    board = parse_board(open_board_8x8())
    result = solve(HakoiriPuzzle(board, "unit", "zero"), "bfs", limits=Limits(time_seconds=0.3))
    assert result.status is Status.LIMIT and result.stop_reason == "time"
    assert result.seconds < 3


def open_board_8x8() -> str:
    """An 8x8 board of 1x1 pieces and 12 empty cells, the 2x2 in a corner,
    the exit in the other: far too many states to finish quickly."""
    rows = ["AAbcdefg", "AAhijklm", "nopqrstu", "vwxyzBCD", "EFGHIJKL", "MNOPQRST",
            "UVWX....", "........"]
    return "exit: 6 6\n" + "\n".join(rows)


def test_explore_counts_states():
    # 3x3 with a 2x2 and 5 empty cells: the 2x2 has 4 places, nothing else.
    board = parse_board("exit: 1 1\nAA.\nAA.\n...\n")
    assert explore(HakoiriPuzzle(board, "unit", "zero")).stored == 4


def test_bad_arguments_are_clear(classic_board):
    puzzle = HakoiriPuzzle(classic_board, "unit", "simple")
    with pytest.raises(PdbsearchError, match="unknown algorithm"):
        solve(puzzle, "dfs")
    with pytest.raises(PdbsearchError, match="weight"):
        solve(puzzle, "wastar", 0.5)


def test_a_slow_kernel_load_is_announced_and_timed_on_stderr(monkeypatch, capsys):
    """A first run compiles for minutes: with progress on, stderr says so
    once loading the kernels outlasts the progress delay, and a fast (cached)
    load, or progress off, prints nothing."""
    import time

    from pdbsearch.search import driver

    monkeypatch.setattr(driver, "PROGRESS_DELAY", 0.05)
    with driver._compile_notice(True):
        time.sleep(0.3)
    err = capsys.readouterr().err
    assert "compiling the search kernels" in err and "compiled in" in err
    with driver._compile_notice(True):
        pass
    with driver._compile_notice(False):
        time.sleep(0.3)
    time.sleep(0.1)   # a timer left running would fire now
    assert capsys.readouterr().err == ""


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), metric=st.sampled_from(METRICS),
       algo=st.sampled_from(["astar", "idastar"]))
def test_a_known_cost_stops_the_optimal_searches_at_their_lower_bound(seed, metric, algo):
    """``Limits.cost_below``: a solution of that cost is known, so the search
    stops ("bound") once its lower bound reaches it, at once if its first
    bound does; a cost above the optimum leaves the optimum to be found."""
    board = small_board(seed)
    optimum = solve(HakoiriPuzzle(board, metric, "zero"), "bfs").cost
    if optimum is None:
        return
    for known in (optimum + 1, optimum, 0):
        result = solve(HakoiriPuzzle(board, metric, "simple"), algo,
                       limits=Limits(cost_below=known))
        if known > optimum:
            assert result.status is Status.SOLVED and result.cost == optimum
        elif result.status is Status.SOLVED:       # found before its bound got there
            assert result.cost == optimum and known > 0
        else:
            assert result.status is Status.LIMIT and result.stop_reason == "bound"
            assert known <= result.lower_bound <= optimum
            if known == 0:
                assert result.expanded == 0         # stopped before any chunk


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), metric=st.sampled_from(METRICS))
def test_astar_given_a_known_cost_stores_no_node_at_or_past_it(seed, metric):
    """With ``cost_below``, A* stores no node whose f reaches it (bar the
    start and the nodes proved dead): a cost above the optimum leaves the
    optimum to be found; at the optimum itself, A* runs out of the nodes
    under it and so proves the bound."""
    board = small_board(seed)
    optimum = solve(HakoiriPuzzle(board, metric, "zero"), "bfs").cost
    if optimum is None or optimum == 0:
        return
    for known in (optimum + 1, optimum):
        puzzle = HakoiriPuzzle(board, metric, "simple")
        engine = BestFirstSearch(puzzle, 1.0)
        result = run_engine(puzzle, engine, algo="astar", weight=1.0, bound=1.0,
                            limits=Limits(cost_below=known), progress=False)
        if known > optimum:
            assert result.status is Status.SOLVED and result.cost == optimum
        else:
            assert result.status is Status.LIMIT and result.stop_reason == "bound"
            assert result.lower_bound == optimum
        keys, g = engine.store.keys, engine.store.g
        for i in range(1, int(engine.stats[NODES])):
            h = int(evaluate_heuristic(puzzle.params, keys[i]))
            assert h >= DEAD or g[i] + h < known
        # (nothing to leave out when the start's own bound proved the optimum)
        assert engine.report()["capped"] > 0 or result.status is Status.SOLVED \
            or result.expanded == 0
