"""The sliding-tile pattern databases against a plain BFS of the abstract space."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.errors import PdbFileError
from pdbsearch.fifteen.abstraction import max_neighbours, pattern_params, table_size, \
    workspace_size
from pdbsearch.fifteen.database import build_pattern, obtain_tables, pack_nibbles, \
    pattern_spec, pdb_filename, verify_pattern
from pdbsearch.pdb.builder import build_table, reduce_min
from pdbsearch.pdb.ranking import placements, unrank_partial_py
from pdbsearch.pdb.store import save_pdb
from pdbsearch.testing.fifteen import pattern_distances


def decoded(table, spec, r):
    p = spec.parameters
    if p["entries"] == "byte":
        return int(table[r])
    w = p["width"]
    cells = unrank_partial_py(r, len(p["tiles"]), w * p["height"])
    md = sum(abs(c % w - t % w) + abs(c // w - t // w) for t, c in zip(p["tiles"], cells))
    return md + 2 * ((int(table[r >> 1]) >> (4 * (r & 1))) & 15)


@pytest.mark.parametrize("width, height, tiles", [
    (3, 3, (1, 2, 3, 4)), (3, 3, (5, 6, 7, 8)), (4, 4, (1, 2, 3)), (4, 4, (8, 12, 13)),
    (2, 4, (1, 3, 5, 7))])
@pytest.mark.parametrize("entries", ["byte", "nibble"])
def test_entries_match_the_plain_abstract_bfs(width, height, tiles, entries):
    spec = pattern_spec(width, height, tiles, entries == "nibble")
    table, _, _ = build_pattern(spec)
    oracle = pattern_distances(width, height, tiles)
    n, k = width * height, len(tiles)
    assert len(oracle) == placements(n, k)   # every placement is reachable
    rng = np.random.default_rng(k)
    for r in list(rng.integers(0, placements(n, k), 2000)) + [0, placements(n, k) - 1]:
        cells = tuple(unrank_partial_py(int(r), k, n))
        want = oracle[cells]
        got = decoded(table, spec, int(r))
        # 4-bit entries are capped (a lower bound), never above the truth
        assert got == want if entries == "byte" or (want - sum(
            abs(c % width - t % width) + abs(c // width - t // width)
            for t, c in zip(tiles, cells))) // 2 < 15 else got <= want
    assert verify_pattern(spec, table) is None


@pytest.mark.parametrize("width, height, tiles", [
    (3, 3, (1, 2, 3, 4)), (4, 4, (1, 2, 3, 4)), (4, 4, (3, 7, 9, 12)), (2, 4, (1, 3, 5, 7)),
    (5, 3, (1, 6, 8, 13))])
@pytest.mark.parametrize("threads", [1, 2])
def test_the_placement_sweep_matches_the_generic_one(width, height, tiles, threads):
    """The patterns' own sweep (an entry a blank cell, a flood fill a
    placement) against the generic builder over the region graph (an entry
    a region, the unit-cost neighbours): the same table once reduced."""
    params = pattern_params(width, height, tiles)
    size = table_size(params)
    fast, _, _ = build_table(params, size, max_neighbours(params), workspace_size(params),
                             threads=threads)
    generic, _, _ = build_table(params, size, max_neighbours(params), workspace_size(params),
                                generic=True)
    assert np.array_equal(reduce_min(fast, params.n_free), reduce_min(generic, params.n_free))
    # every cell of a region holds the region's value
    assert np.count_nonzero(fast != 255) >= np.count_nonzero(generic != 255)


def test_reduce_and_pack():
    table = np.array([3, 255, 1, 255, 255, 255, 7, 2], dtype=np.uint8)
    assert reduce_min(table, 2).tolist() == [3, 1, 255, 2]
    packed = pack_nibbles(np.array([0, 3], dtype=np.uint8), 2, 2, (3,))
    # tile 3 (goal cell 3) placed on cell 0 then 1: Manhattan 2, then 1
    assert packed.tolist() == [15 << 4 | 15] or packed.shape == (1,)


def test_a_damaged_table_is_refused(tmp_path):
    spec = pattern_spec(3, 3, (1, 2, 3, 4), False)
    table, seconds, _ = build_pattern(spec)
    bad = table.copy()
    bad[bad > 3] += 6   # raised values break the one-move rule somewhere
    assert verify_pattern(spec, bad) is not None
    path = tmp_path / pdb_filename(spec)
    save_pdb(path, bad, spec, seconds)
    with pytest.raises(PdbFileError):
        obtain_tables(3, 3, [(1, 2, 3, 4)], False, pdb_path=path, log=None)
    assert table_size(pattern_params(3, 3, (1, 2, 3, 4))) == 3024 * 5
