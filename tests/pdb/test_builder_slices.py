"""The layer sweep of the PDB builder in slices sized by time: the same
table whatever the slices, and a time limit that holds where an entry costs
microseconds (two boxes in a large Sokoban room)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.cli import main
from pdbsearch.pdb import builder
from pdbsearch.sokoban.abstraction import build_pattern_table

from ..sokoban.helpers import microban

SASQUATCH5 = "puzzles/sokoban/sasquatch5.txt"


@settings(max_examples=300, deadline=None)
@given(blocks=st.integers(1, 512), seconds=st.floats(0, 10), most=st.integers(1, 512))
def test_next_slice_halves_slow_slices_and_doubles_quick_ones(blocks, seconds, most):
    blocks = min(blocks, most)
    n = builder.next_slice(blocks, seconds, most)
    assert 1 <= n <= most
    if seconds > 2 * builder.SLICE_SECONDS:
        assert n == max(1, blocks // 2)
    elif seconds < builder.SLICE_SECONDS / 2:
        assert n == min(most, 2 * blocks)
    else:
        assert n == blocks


@pytest.mark.parametrize("slice_seconds, wanted", [
    (0.0, {1}),      # every call "too slow": one block a call throughout
    (1e9, {1, 2}),   # every call "quick": from one block to all (two) of them
])
def test_the_slices_change_the_calls_not_the_table(monkeypatch, slice_seconds, wanted):
    level = microban(153)   # a 2-box table of 74,088 entries: two blocks
    whole, _ = build_pattern_table(level, 2)
    spans = []
    real = builder.next_layer_serial

    def spy(params, table, words, current, lo, hi, *rest):
        if table.shape[0]:
            spans.append(hi - lo)
        return real(params, table, words, current, lo, hi, *rest)

    monkeypatch.setattr(builder, "next_layer_serial", spy)
    monkeypatch.setattr(builder, "SLICE_SECONDS", slice_seconds)
    sliced, _ = build_pattern_table(level, 2)
    assert np.array_equal(whole, sliced)
    assert set(spans) == wanted and spans[0] == 1


@pytest.mark.parametrize("level, seconds", [(42, 2), (47, 1)])
def test_a_large_two_box_table_stops_at_the_time_limit(capsys, tmp_path, level, seconds):
    """sasquatch5 42 (84 boxes, 225 cells): its 2-box table costs microseconds
    an entry, and a slice of 64 blocks took seconds: with a 2 s limit the
    setup alone ran 9 s.  Sasquatch5 47 (40 boxes): finding the goal entries
    of its 2-box table, unsliced, took 1.3 s past a 1 s limit.  The slices
    are now sized by time.  (A small level first, so that a fresh install's
    compiling is done: no limit stops it.)"""
    assert main(["solve", SASQUATCH5, "--level", "1", "--db-dir", str(tmp_path / "warm"),
                 "--quiet"]) == 0
    capsys.readouterr()
    code = main(["solve", SASQUATCH5, "--level", str(level), "--time-limit", str(seconds),
                 "--db-dir", str(tmp_path), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 3 and data["status"] == "limit" and data["stop_reason"] == "time"
    assert data["setup_seconds"] - data["compile_seconds"] < 2 * seconds
