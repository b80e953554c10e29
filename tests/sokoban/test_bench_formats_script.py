"""``scripts/bench_formats.py``: two copies of the code timed side by side
on a level file, their levels compared, the figures written as JSON."""

from __future__ import annotations

import json

import pytest

from .helpers import LEVELS, script_module


def test_two_copies_read_the_same_levels_and_the_json_says_so(tmp_path, capsys, repo):
    bench = script_module("bench_formats")
    out = tmp_path / "formats.json"
    microban = LEVELS / "sokoban" / "microban.txt"
    assert bench.main([str(microban), "--code", f"a={repo}", "--code", f"b={repo}",
                       "--repeat", "1", "--tries", "1", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "microban.txt" in table and table.splitlines()[1].rstrip().endswith("yes")
    data = json.loads(out.read_text())
    row, = data["files"]
    assert row["levels"] == 155 and row["same_levels"]
    assert set(row["best"]) == {"a", "b"} and data["machine"]["cores"] >= 1


def test_a_directory_without_the_package_is_refused(tmp_path):
    bench = script_module("bench_formats")
    with pytest.raises(SystemExit):
        bench.main(["--code", f"a={tmp_path}"])
