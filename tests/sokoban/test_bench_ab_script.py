"""``scripts/bench_sokoban_ab.py``: its comparison of two runs' level
records, its table, and what it refuses as a code to run."""

from __future__ import annotations

import argparse
import os

import pytest

from .helpers import script_module


def record(number, status, pushes=None, lower=None, upper=None, cpu=1.0, expanded=100):
    """A level record as the harness writes it (the fields the script reads)."""
    return {"number": number, "boxes": 3, "status": status, "pushes": pushes,
            "lower_bound": lower, "upper_bound": upper, "cpu_seconds": cpu,
            "expanded": expanded}


def test_two_runs_compared_level_by_level():
    ab = script_module("bench_sokoban_ab")
    base = [record(1, "solved", 10, cpu=2.0, expanded=50),
            record(2, "limit", lower=20, upper=24, expanded=1000),
            record(3, "solved", 30, cpu=1.0, expanded=70),
            record(4, "limit", lower=8, expanded=400),
            record(5, "error", expanded=0)]
    new = [record(1, "solved", 10, cpu=1.0, expanded=40),
           record(2, "solved", 22, cpu=5.0, expanded=900),
           record(3, "solved", 32, cpu=3.0, expanded=90),
           record(4, "limit", lower=8, expanded=500),
           record(5, "limit", expanded=300),
           record(6, "solved", 4)]            # not run by the other: left out
    cmp = ab.compare_runs({"base": base, "new": new})
    assert cmp["levels"] == 5
    assert cmp["solved"] == {"base": 2, "new": 3}
    assert cmp["only"] == {"base": [], "new": [2]}
    assert cmp["both_solve"] == {"levels": 2, "cpu_seconds": {"base": 3.0, "new": 4.0},
                                 "expanded": {"base": 120, "new": 130}}
    assert cmp["neither_solves"] == {"levels": 2, "expanded": {"base": 400, "new": 800},
                                     "ratio": 2.0}
    assert cmp["different_costs"] == [3]
    table = ab.level_table({"base": base, "new": new})
    lines = table.splitlines()
    assert len(lines) == 2 + 5                 # the header, a rule, the five common levels
    assert "20..24" in lines[3] and "22" in lines[3] and ">=8" in lines[5]
    summary = ab.summary_lines(cmp)
    assert "only new: [2]" in summary and "x2.0" in summary and "[3]" in summary


def test_a_code_needs_the_package_and_the_harness(tmp_path):
    ab = script_module("bench_sokoban_ab")
    with pytest.raises(argparse.ArgumentTypeError, match="NAME=DIR"):
        ab.parse_code_with_harness("no-directory")
    with pytest.raises(argparse.ArgumentTypeError, match="no pdbsearch package"):
        ab.parse_code_with_harness(f"x={tmp_path}")
    (tmp_path / "pdbsearch").mkdir()
    (tmp_path / "pdbsearch" / "__init__.py").write_text("")
    with pytest.raises(argparse.ArgumentTypeError, match="bench_sokoban_solving"):
        ab.parse_code_with_harness(f"x={tmp_path}")
    name, path = ab.parse_code_with_harness(f"here={ab.ROOT}")
    assert name == "here" and path == ab.ROOT


def _fake_code(root, harness_source):
    """A code folder with an empty package and a harness of our own."""
    (root / "pdbsearch").mkdir(parents=True)
    (root / "pdbsearch" / "__init__.py").write_text("")
    (root / "scripts").mkdir()
    (root / "scripts" / "bench_sokoban_solving.py").write_text(harness_source)
    return root


def test_a_failed_run_stops_the_other(tmp_path, capsys):
    """When one run fails, the other is killed, not left running in a
    deleted folder."""
    ab = script_module("bench_sokoban_ab")
    pid_file = tmp_path / "slow.pid"
    # The failing run fails once the slow one is running (it wrote its pid).
    failing = _fake_code(tmp_path / "failing", "import os, time\n"
                         "for _ in range(600):\n"
                         f"    if os.path.exists({str(pid_file)!r}): break\n"
                         "    time.sleep(0.05)\n"
                         "raise SystemExit(1)\n")
    slow = _fake_code(tmp_path / "slow", "import os, time\n"
                      f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
                      "time.sleep(120)\n")
    levels = tmp_path / "levels.txt"
    levels.write_text("#####\n#@$.#\n#####\n")
    argv = ["--code", f"failing={failing}", "--code", f"slow={slow}", "--levels", str(levels),
            "--json", str(tmp_path / "out.json")]
    assert ab.main(argv) == 1
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert "the run of failing failed" in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()
