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
    # Optimal only when the shortening's A* over the whole solution proved it.
    proved = data["shortened"]["proved_optimal"]
    assert data["algo"] == algo and data["optimal"] is proved
    assert data["bound"] == (1.0 if proved else None)
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
                 "matching", "--time-limit", "10", "--shorten", "0", "--json", str(out),
                 "--no-progress"])
    capsys.readouterr()
    data = json.loads(out.read_text())
    assert data["options"]["algo"] == "fess"
    levels = load_levels(HOLLAND)
    members = {"perimeter", "fess-only", "wastar w=2", "greedy", "fess-nearest",
               "fess-backward", "fess-relay"}
    for record in data["levels"]:
        assert record["optimal"] is False    # FESS proves nothing (nor shortened here)
        if record["status"] == "solved":
            assert check_solution(levels[record["number"] - 1], record["lurd"])[0] == \
                record["pushes"]
            assert record["winner"] in members   # the member that solved it
    assert sum(data["summary"]["winners"].values()) == data["summary"]["solved"]
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


MICROBAN = LEVELS / "sokoban" / "microban.txt"


def test_solve_members_runs_only_the_chosen_members(capsys):
    code = main(["solve", str(MICROBAN), "--level", "3", "--algo", "fess", "--members",
                 "fess-backward,perimeter", "--heuristic", "matching", "--time-limit", "20",
                 "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["status"] == "solved"
    assert set(data["fess"]["members"]) == {"fess-backward", "perimeter"}
    level = load_levels(MICROBAN)[2]
    assert check_solution(level, data["lurd"])[0] == data["pushes"]


def test_levels_members_are_recorded_and_resumed(tmp_path, capsys):
    out = tmp_path / "run.json"
    args = ["levels", str(MICROBAN), "--first", "2", "--algo", "fess", "--members",
            "fess-only", "--heuristic", "matching", "--time-limit", "10", "--json", str(out),
            "--no-progress"]
    assert main(args) == 0
    data = json.loads(out.read_text())
    assert data["options"]["members"] == ["fess-only"]
    assert all(r["status"] == "solved" and r["winner"] == "fess-only" for r in data["levels"])
    assert data["summary"]["winners"] == {"fess-only": 2}
    assert "won by: fess-only 2" in capsys.readouterr().out
    # the same members resume the report; other members are told apart
    assert main(args[:-3] + ["--resume", str(out), "--no-progress"]) == 0
    other = args[:6] + ["fess-backward"] + args[7:-3] + ["--resume", str(out), "--no-progress"]
    assert main(other) == 2
    assert "members" in capsys.readouterr().err


@pytest.mark.parametrize("args, says", [
    (["--algo", "fess", "--members", "fess-only,astar"], "no portfolio member astar"),
    (["--algo", "fess", "--members", ","], "none given"),
    (["--members", "fess-only"], "--algo fess"),
    (["--algo", "greedy", "--members", "greedy"], "--algo fess"),
])
def test_bad_members_are_refused_clearly(capsys, args, says):
    assert main(["solve", str(MICROBAN), *args]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_members_do_not_apply_to_hakoiri(capsys):
    assert main(["solve", "--algo", "fess", "--members", "fess-only"]) == 2
    assert "members" in capsys.readouterr().err
