"""The relaxed Hakoiri PDB: exact, admissible, consistent, and stored safely."""

from math import comb

import h5py
import numpy as np
import pytest

from pdbsearch.errors import PdbFileError
from pdbsearch.hakoiri import HakoiriPuzzle
from pdbsearch.hakoiri.database import build_relaxed, obtain_pdb, pdb_filename, relaxed_spec
from pdbsearch.hakoiri.bounds import heuristic, pdb_rank
from pdbsearch.hakoiri.kernels import expand
from pdbsearch.testing.hakoiri import reference_distances
from pdbsearch.pdb.store import load_pdb, save_pdb, seal
from pdbsearch.search import explore, solve
from pdbsearch.search.common import successor_buffers

METRICS = ["unit", "straight", "free"]


def _ref_index(width, free_index, n_combos, square, empties):
    position = square[1] * (width - 1) + square[0]
    idx = sorted(int(free_index[position, y * width + x]) for x, y in empties)
    return position * n_combos + sum(comb(c, i + 1) for i, c in enumerate(idx))


@pytest.mark.parametrize("geometry", [
    (4, 5, (1, 3), 2), (3, 4, (1, 2), 1), (4, 4, (0, 2), 3), (3, 5, (1, 0), 2)])
@pytest.mark.parametrize("metric", METRICS)
def test_table_equals_plain_python_bfs(geometry, metric):
    width, height, exit_xy, n_empty = geometry
    spec = relaxed_spec(width, height, exit_xy, n_empty, metric)
    table, _, _ = build_relaxed(spec)
    assert table.shape[0] == (width - 1) * (height - 1) * comb(width * height - 4, n_empty)
    ref = reference_distances(width, height, exit_xy, n_empty, metric)
    from pdbsearch.hakoiri.abstraction import ranking_tables
    _, free_index = ranking_tables(width, height, n_empty)
    n_combos = comb(width * height - 4, n_empty)
    expected = np.full(table.shape[0], 255, dtype=np.uint8)
    for (square, empties), d in ref.items():
        expected[_ref_index(width, free_index, n_combos, square, empties)] = d
    assert np.array_equal(table, expected)


@pytest.fixture(scope="module")
def classic_tables(classic_board):
    return {m: build_relaxed(relaxed_spec(4, 5, (1, 3), 2, m))[0] for m in METRICS}


@pytest.mark.parametrize("metric", METRICS)
def test_admissible_and_consistent_on_all_classic_states(classic_board, classic_tables, metric):
    """h(s) <= true distance for all 25,955 states, |h(s) - h(s')| <= 1 on every edge."""
    puzzle = HakoiriPuzzle(classic_board, metric, "pdb", pdb=classic_tables[metric])
    space = explore(HakoiriPuzzle(classic_board, metric, "zero"))
    # The space is closed under moves and moves are reversible, so a BFS from
    # all goal states inside it gives every state's true distance.
    keys = _reachable_keys(classic_board, metric)
    assert len(keys) == space.stored == 25_955
    true = _true_distances(puzzle, keys)
    out_keys, out_costs, out_moves = successor_buffers(puzzle)
    for key_bytes, dist in true.items():
        key = np.frombuffer(key_bytes, dtype=np.uint64)
        h = heuristic(puzzle.params, key)
        assert h <= dist
        n = expand(puzzle.params, key, out_keys, out_costs, out_moves)
        for i in range(n):
            assert abs(h - heuristic(puzzle.params, out_keys[i])) <= out_costs[i]


def _reachable_keys(board, metric):
    from collections import deque
    puzzle = HakoiriPuzzle(board, metric, "zero")
    start = puzzle.initial_key()
    seen = {start.tobytes()}
    queue = deque([start])
    out_keys, out_costs, out_moves = successor_buffers(puzzle)
    while queue:
        key = queue.popleft()
        n = expand(puzzle.params, key, out_keys, out_costs, out_moves)
        for i in range(n):
            b = out_keys[i].tobytes()
            if b not in seen:
                seen.add(b)
                queue.append(out_keys[i].copy())
    return seen


def _true_distances(puzzle, keys):
    from collections import deque
    from pdbsearch.hakoiri.kernels import is_goal
    dist = {}
    queue = deque()
    for b in keys:
        if is_goal(puzzle.params, np.frombuffer(b, dtype=np.uint64)):
            dist[b] = 0
            queue.append(b)
    out_keys, out_costs, out_moves = successor_buffers(puzzle)
    while queue:
        b = queue.popleft()
        n = expand(puzzle.params, np.frombuffer(b, dtype=np.uint64), out_keys, out_costs,
                   out_moves)
        for i in range(n):
            c = out_keys[i].tobytes()
            if c not in dist:
                dist[c] = dist[b] + 1
                queue.append(c)
    return dist


def test_astar_with_pdb_beats_bfs_and_simple(classic_board, classic_tables):
    pdb_run = solve(HakoiriPuzzle(classic_board, "straight", "pdb",
                                  pdb=classic_tables["straight"]), "astar")
    simple_run = solve(HakoiriPuzzle(classic_board, "straight", "simple"), "astar")
    bfs_run = solve(HakoiriPuzzle(classic_board, "straight", "zero"), "bfs")
    assert pdb_run.cost == simple_run.cost == bfs_run.cost == 90  # known optimum (design.md)
    assert pdb_run.optimal
    assert pdb_run.expanded < simple_run.expanded
    assert pdb_run.expanded < bfs_run.expanded


@pytest.mark.parametrize("algo", ["idastar", "wastar"])
def test_other_searches_use_the_pdb(classic_board, classic_tables, algo):
    result = solve(HakoiriPuzzle(classic_board, "free", "pdb", pdb=classic_tables["free"]),
                   algo, 2.0 if algo == "wastar" else 1.0)
    assert result.cost is not None
    assert 81 <= result.cost <= (81 if algo == "idastar" else 162)


def test_round_trip_and_refusals(tmp_path, classic_tables):
    spec = relaxed_spec(4, 5, (1, 3), 2, "unit")
    table = classic_tables["unit"]
    path = tmp_path / pdb_filename(spec)
    save_pdb(path, table, spec, 0.1)
    loaded, attrs = load_pdb(path, spec)
    assert np.array_equal(loaded, table)
    assert attrs["entries"] == table.shape[0] and attrs["maximum"] == int(table.max())
    assert attrs["histogram"].sum() == table.shape[0]
    assert not list(tmp_path.glob("*.tmp"))  # the temporary file was renamed

    with pytest.raises(PdbFileError, match="metric"):
        load_pdb(path, relaxed_spec(4, 5, (1, 3), 2, "free"))
    with pytest.raises(PdbFileError, match="made for"):
        load_pdb(path, relaxed_spec(4, 6, (1, 3), 2, "unit"))

    altered = tmp_path / "altered.h5"
    save_pdb(altered, table, spec, 0.1)
    with h5py.File(altered, "r+") as f:
        f["distances"][7] = (int(f["distances"][7]) + 1) % 250
    with pytest.raises(PdbFileError, match="seal"):
        load_pdb(altered, spec)
    seal(altered)   # sealed again after the edit: the data checksum still refuses it
    with pytest.raises(PdbFileError, match="checksum"):
        load_pdb(altered, spec)

    truncated = tmp_path / "truncated.h5"
    truncated.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(PdbFileError):
        load_pdb(truncated, spec)
    with pytest.raises(PdbFileError, match="no such"):
        load_pdb(tmp_path / "missing.h5", spec)


def test_obtain_builds_once_then_reuses(tmp_path):
    spec = relaxed_spec(3, 4, (1, 2), 2, "straight")
    messages = []
    first = obtain_pdb(spec, db_dir=tmp_path, log=messages.append)
    assert any("building" in m for m in messages)
    messages.clear()
    again = obtain_pdb(spec, db_dir=tmp_path, log=messages.append)
    assert messages == [] and np.array_equal(first, again)


def test_dead_relaxed_states_prune(classic_board):
    # With one empty cell the relaxed 2x2 can never move: every entry away
    # from the exit is unreachable, and the real start is pruned at once.
    from pdbsearch.hakoiri import parse_board
    board = parse_board("exit: 0 1\nAAB\nAAC\nDE.\n")
    table = build_relaxed(relaxed_spec(3, 3, (0, 1), 1, "straight"))[0]
    puzzle = HakoiriPuzzle(board, "straight", "pdb", pdb=table)
    assert table[pdb_rank(puzzle.params, puzzle.initial_key())] == 255
    result = solve(puzzle, "astar")
    assert result.status.value == "unsolvable" and result.expanded == 0
