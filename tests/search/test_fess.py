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
from pdbsearch.search.common import EXPANDED, N_STATS, OPEN
from pdbsearch.search.fess import (MAX_BEST_PERIOD, STALE_EXPANSIONS, FessSearch, _pick_cell,
                                   best_cell_period, forget_dead_best)
from pdbsearch.search.fess_space import (BEST_CELL, BEST_NODE, BEST_OWN, BEST_RANK, BEST_RESETS,
                                         BEST_SINCE, CURSOR, DEFERRALS, ITERATION, NODE_STUCK,
                                         NO_RANK, N_CELLS, N_DEFERRED, N_FS, Deferred, Nodes)
from pdbsearch.search.fess_stuck import MAX_DEFERRED, best_deferred, defer

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
        defer(deferred, fs, node, rank)
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
        assert deferred.rank[best_deferred(deferred, fs)] == min(model)[0]


def test_best_cell_period_doubles_with_the_stagnation():
    """Every turn while the best position is recent, then one in 2, 4, ...
    as the expansions without a better one double, never past the cap."""
    s = STALE_EXPANSIONS
    assert [best_cell_period(n) for n in (0, s - 1, s, 2 * s - 1, 2 * s, 4 * s)] == \
        [1, 1, 2, 2, 4, min(8, MAX_BEST_PERIOD)]
    assert best_cell_period(1 << 40) == MAX_BEST_PERIOD


def _model_period(stale: int) -> int:
    """Plain-Python reference of best_cell_period."""
    return min(MAX_BEST_PERIOD, 1 << (stale // STALE_EXPANSIONS).bit_length())


def _model_picks(sizes, ranks, best, period, iterations):
    """Plain-Python reference of the cell schedule: the cursor's cells in
    turn on even iterations, the best cell on the odd ones its period
    leaves it (the best-ranked non-empty cell when the best is empty)."""
    n, cursor, picks = len(sizes), 0, []
    for it in range(iterations):
        if it % 2 == 1 and (it // 2) % period == 0:
            if best >= 0 and sizes[best] > 0:
                picks.append(best)
            else:
                picks.append(min((c for c in range(n) if sizes[c]), key=lambda c: (ranks[c], c)))
            continue
        c = cursor % n
        while sizes[c] == 0:
            c = (c + 1) % n
        cursor = (c + 1) % n
        picks.append(c)
    return picks


@settings(max_examples=80, deadline=None)
@given(sizes=st.lists(st.integers(0, 3), min_size=1, max_size=7).filter(any),
       ranks=st.lists(st.integers(0, 5), min_size=7, max_size=7),
       best=st.integers(-1, 6), stale=st.integers(0, 20 * STALE_EXPANSIONS))
def test_the_best_cell_gets_fewer_turns_once_it_stops_improving(sizes, ranks, best, stale):
    """The compiled schedule against the reference, over cell counts,
    empty cells, a missing or empty best cell and every stagnation."""
    best = best if best < len(sizes) else -1
    cells = FessSearch._new_cells(8)
    cells.size[:len(sizes)] = sizes
    cells.brank[:len(sizes)] = ranks[:len(sizes)]
    fs = np.zeros(N_FS, np.int64)
    fs[N_CELLS], fs[BEST_CELL], fs[CURSOR], fs[ITERATION] = len(sizes), best, 0, 0
    stats = np.zeros(N_STATS, np.int64)
    stats[OPEN], stats[EXPANDED] = sum(sizes), 10**6
    fs[BEST_SINCE] = stats[EXPANDED] - stale
    picks = [int(_pick_cell(cells, fs, stats)) for _ in range(48)]
    assert picks == _model_picks(sizes, ranks, best, _model_period(stale), 48)


@settings(max_examples=80, deadline=None)
@given(parents=st.lists(st.integers(0, 10**6), min_size=1, max_size=12),
       stuck=st.lists(st.booleans(), min_size=12, max_size=12),
       cell_of=st.lists(st.integers(0, 5), min_size=12, max_size=12),
       sizes=st.lists(st.integers(0, 2), min_size=6, max_size=6),
       ranks=st.lists(st.integers(0, 50), min_size=6, max_size=6),
       best=st.integers(0, 11))
def test_a_best_position_proved_dead_stops_being_the_best(parents, stuck, cell_of, sizes,
                                                          ranks, best):
    """After a stuck verdict, the best position is forgotten exactly when it
    or an ancestor is marked dead: the best cell becomes the best-ranked
    other non-empty cell and the stagnation count restarts (a plain-Python
    model alongside, over random trees, marks and cells)."""
    n = len(parents)
    best %= n
    parent = np.array([-1] + [parents[i] % i for i in range(1, n)], np.int32)
    nodes = Nodes(*(np.zeros(n, t) for t in (np.int32, np.int64, np.int32, np.uint8,
                                             np.int64, np.int64, np.int32)))
    nodes.cell[:] = cell_of[:n]
    nodes.flags[:] = [NODE_STUCK if s else 0 for s in stuck[:n]]
    cells = FessSearch._new_cells(8)
    cells.size[:6], cells.brank[:6] = sizes, ranks
    fs = np.zeros(N_FS, np.int64)
    fs[N_CELLS], fs[BEST_NODE], fs[BEST_CELL], fs[BEST_RANK], fs[BEST_OWN] = 6, best, 1, -1, -1
    fs[BEST_SINCE] = 7
    stats = np.zeros(N_STATS, np.int64)
    stats[EXPANDED] = 1000
    dead, y = False, best
    while y >= 0:
        dead |= stuck[y]
        y = int(parent[y])
    forget_dead_best(parent, nodes, cells, fs, stats)
    if not dead:
        assert (fs[BEST_CELL], fs[BEST_RANK], fs[BEST_OWN], fs[BEST_SINCE], fs[BEST_RESETS]) == \
            (1, -1, -1, 7, 0)
        return
    others = [c for c in range(6) if c != cell_of[best] and sizes[c] > 0]
    want = min(others, key=lambda c: (ranks[c], c)) if others else -1
    assert fs[BEST_CELL] == want
    assert fs[BEST_RANK] == (ranks[want] if others else NO_RANK)
    assert fs[BEST_OWN] == NO_RANK and fs[BEST_SINCE] == 1000 and fs[BEST_RESETS] == 1
