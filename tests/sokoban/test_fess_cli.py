"""``--algo fess`` from the command line: solve and levels, JSON, replay."""

from __future__ import annotations

import json

import pytest

from pdbsearch.cli import main
from pdbsearch.sokoban import check_solution, load_levels

from .helpers import LEVELS

HOLLAND = LEVELS / "sokoban" / "holland.txt"


@pytest.mark.parametrize("algo", ["fess", "fess-only"])
def test_solve_with_fess_prints_a_replayed_solution(capsys, algo):
    code = main(["solve", str(HOLLAND), "--level", "2", "--algo", algo, "--heuristic",
                 "matching", "--time-limit", "20", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["status"] == "solved"
    assert data["algo"] == algo and data["optimal"] is False and data["bound"] is None
    level = load_levels(HOLLAND)[1]
    pushes, steps = check_solution(level, data["lurd"])
    assert pushes == data["pushes"] == data["cost"]
    report = data["fess"]
    if algo == "fess":   # the portfolio names the member that solved it
        assert report["members"][report["winner"]]["expanded"] >= 1
    else:                # the engine alone visited feature-space cells
        assert report["cells"] >= 1


def test_levels_with_fess(tmp_path, capsys):
    out = tmp_path / "run.json"
    code = main(["levels", str(HOLLAND), "--first", "3", "--algo", "fess", "--heuristic",
                 "matching", "--time-limit", "10", "--json", str(out), "--no-progress"])
    capsys.readouterr()
    data = json.loads(out.read_text())
    assert data["options"]["algo"] == "fess"
    levels = load_levels(HOLLAND)
    for record in data["levels"]:
        assert record["optimal"] is False
        if record["status"] == "solved":
            assert check_solution(levels[record["number"] - 1], record["lurd"])[0] == \
                record["pushes"]
    assert code in (0, 3)


@pytest.mark.parametrize("threads, fess_lane", [("1", 0), ("2", 1)])
def test_solve_threads_option_reaches_the_portfolio(capsys, threads, fess_lane):
    code = main(["solve", str(HOLLAND), "--level", "2", "--algo", "fess", "--heuristic",
                 "matching", "--time-limit", "20", "--threads", threads, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["status"] == "solved"
    assert data["fess"]["members"]["fess-only"]["lane"] == fess_lane


def test_levels_records_its_threads_per_level(tmp_path, capsys):
    out = tmp_path / "run.json"
    code = main(["levels", str(HOLLAND), "--first", "1", "--algo", "fess", "--heuristic",
                 "matching", "--time-limit", "10", "--threads", "1", "--json", str(out),
                 "--no-progress"])
    capsys.readouterr()
    assert code == 0
    assert json.loads(out.read_text())["options"]["threads"] == 1


def test_zero_threads_is_refused(capsys):
    assert main(["solve", str(HOLLAND), "--algo", "fess", "--threads", "0"]) == 2
    assert "--threads" in capsys.readouterr().err
