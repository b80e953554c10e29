"""The generic FESS engine on Hakoiri boards: it finds a solution whenever
breadth-first search does (no optimality claim), proves a board
unsolvable by exhausting it, and obeys every limit."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.hakoiri import HakoiriPuzzle, parse_board
from pdbsearch.hakoiri.generator import Recipe, random_board
from pdbsearch.search import ALGORITHMS, Limits, Status, solve
from pdbsearch.search.fess import (DEFERRALS, MAX_DEFERRED, N_DEFERRED, N_FS, Deferred,
                                   _best_deferred, _defer)

from .test_engines import STUCK, open_board_8x8


def small_board(seed: int):
    rng = random.Random(seed)
    w, h = rng.randint(3, 5), rng.randint(3, 5)
    empty = rng.randint(1, 3)
    rest = w * h - 4 - empty
    return random_board(Recipe(w, h, rng.randint(0, rest // 4), rng.randint(0, rest // 6),
                               empty, square="random"), rng)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), metric=st.sampled_from(["unit", "straight", "free"]),
       heuristic=st.sampled_from(["simple", "zero"]))
def test_fess_solves_what_bfs_solves(seed, metric, heuristic):
    board = small_board(seed)
    bfs = solve(HakoiriPuzzle(board, metric, "zero"), "bfs")
    result = solve(HakoiriPuzzle(board, metric, heuristic), "fess")
    assert result.status is bfs.status
    assert result.bound is None and not result.optimal
    if bfs.status is Status.SOLVED:
        assert result.cost >= bfs.cost  # replayed by the checker already


def test_fess_makes_no_claim():
    assert ALGORITHMS["fess"].guarantee(HakoiriPuzzle(parse_board(STUCK), "unit", "zero"),
                                        1.0) is None


def test_fess_proves_a_stuck_board_unsolvable():
    result = solve(HakoiriPuzzle(parse_board(STUCK), "straight", "simple"), "fess")
    assert result.status is Status.UNSOLVABLE


def test_fess_solves_the_classic_board_with_the_pdb(classic_board):
    result = solve(HakoiriPuzzle(classic_board), "fess", limits=Limits(time_seconds=30))
    assert result.status is Status.SOLVED and result.cost >= 81
    fess = result.extra["fess"]
    # Advisors recommend some moves, far from all (all would be depth-first).
    assert 0 < fess["advised"] < fess["edges"] / 2
    assert fess["cells"] > 1


def test_fess_node_limit(classic_board):
    result = solve(HakoiriPuzzle(classic_board, "unit", "simple"), "fess",
                   limits=Limits(nodes=50))
    assert result.status is Status.LIMIT and result.stop_reason == "nodes"
    assert result.expanded == 50 and result.lower_bound is None


def test_fess_memory_limit():
    board = parse_board(open_board_8x8())
    result = solve(HakoiriPuzzle(board, "unit", "zero"), "fess", limits=Limits(memory_mb=2))
    assert result.status is Status.LIMIT and result.stop_reason == "memory"
    assert result.memory_bytes <= 2 << 20


def test_fess_time_limit():
    board = parse_board(open_board_8x8())
    result = solve(HakoiriPuzzle(board, "unit", "zero"), "fess",
                   limits=Limits(time_seconds=0.3))
    assert result.status is Status.LIMIT and result.stop_reason == "time"
    assert result.seconds < 3


@pytest.mark.parametrize("weight", [2.0])
def test_fess_refuses_a_weight(classic_board, weight):
    from pdbsearch.errors import PdbsearchError
    with pytest.raises(PdbsearchError, match="weight"):
        solve(HakoiriPuzzle(classic_board, "unit", "simple"), "fess", weight)


@settings(max_examples=60, deadline=None)
@given(ranks=st.lists(st.integers(0, 40), min_size=MAX_DEFERRED - 8, max_size=3 * MAX_DEFERRED))
def test_deferred_stuck_tests_keep_the_best_ranked(ranks):
    """The positions whose stuck test waits for budget: at most
    MAX_DEFERRED, a newcomer replaces the worst when it is better, and the
    best-ranked is asked first (a plain-Python model alongside)."""
    deferred = Deferred(np.zeros(MAX_DEFERRED, np.int32), np.zeros(MAX_DEFERRED, np.int64))
    fs = np.zeros(N_FS, np.int64)
    model: list[tuple[int, int]] = []        # (rank, node)
    for node, rank in enumerate(ranks):
        _defer(deferred, fs, node, rank)
        if len(model) < MAX_DEFERRED:
            model.append((rank, node))
        else:
            worst = max(range(len(model)), key=lambda i: model[i][0])
            if rank < model[worst][0]:
                model[worst] = (rank, node)
    n = int(fs[N_DEFERRED])
    assert fs[DEFERRALS] == len(ranks)
    assert sorted(deferred.rank[:n].tolist()) == sorted(r for r, _ in model)
    if n:
        assert deferred.rank[_best_deferred(deferred, fs)] == min(model)[0]
