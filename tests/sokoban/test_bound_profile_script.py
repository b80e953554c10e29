"""``scripts/bound_profile.py``: the bound along a solution.  On a
push-optimal solution (our own BFS) the bound starts at most at the optimum,
stays at most the pushes left at every change, and its changes add up to
what it missed at the start; the exit codes of bad moves, of a level with
no solution, and of a search that finds one."""

from __future__ import annotations

import json

from pdbsearch.api import load
from pdbsearch.search.common import evaluate_heuristic
from pdbsearch.sokoban.formats import load_levels
from pdbsearch.testing.sokoban import bfs_min_pushes, bfs_min_pushes_solution

from .helpers import MICROBAN, microban, script_module

#: Microban 32: three boxes; the matching bound says 3 pushes at the start,
#: our own BFS finds 9, so the matching's profile has changes.
GAP_LEVEL = 32


def test_the_profile_of_an_optimal_solution_adds_up_and_stays_under_it():
    script = script_module("bound_profile")
    level = microban(GAP_LEVEL)
    lurd = bfs_min_pushes_solution(level)
    optimum = bfs_min_pushes(level)
    for heuristic in ("matching", "pdb"):
        puzzle = load(str(MICROBAN), domain="sokoban", level=str(GAP_LEVEL),
                      metric="pushes", heuristic=heuristic)
        profile = script.bound_profile(puzzle, lurd)
        assert profile["cost"] == optimum
        assert profile["h0"] == evaluate_heuristic(puzzle.params, puzzle.initial_key())
        assert profile["h0"] + sum(c["delta"] for c in profile["changes"]) == optimum
        assert profile["h0"] <= optimum
        for c in profile["changes"]:
            assert c["h"] <= optimum - c["push"], (heuristic, c)   # admissible
        if heuristic == "matching":
            assert profile["h0"] < optimum and profile["changes"]


def test_bad_moves_and_moves_that_do_not_solve_exit_2(tmp_path, capsys):
    script = script_module("bound_profile")
    level_file = tmp_path / "one.xsb"
    level_file.write_text("#####\n#@$.#\n#####\n")
    assert script.main([str(level_file), "--lurd", "L", "--heuristic", "matching"]) == 2
    assert "error:" in capsys.readouterr().err
    assert script.main([str(level_file), "--lurd", "", "--heuristic", "matching"]) == 2
    assert "do not solve" in capsys.readouterr().err
    assert script.main([str(tmp_path / "missing.xsb")]) == 2


def test_a_found_solution_is_profiled_and_written(tmp_path, capsys):
    script = script_module("bound_profile")
    out = tmp_path / "profile.json"
    assert script.main([str(MICROBAN), "--level", str(GAP_LEVEL), "--algo", "astar",
                        "--time-limit", "20", "--heuristic", "matching",
                        "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    level = load_levels(MICROBAN)[GAP_LEVEL - 1]
    assert data["cost"] == bfs_min_pushes(level)   # A*'s solution is push-optimal
    # the bound itself at the start, not what the search left behind (its perimeter)
    fresh = load(str(MICROBAN), domain="sokoban", level=str(GAP_LEVEL), metric="pushes",
                 heuristic="matching")
    assert data["h0"] == evaluate_heuristic(fresh.params, fresh.initial_key())
    assert data["h0"] + sum(c["delta"] for c in data["changes"]) == data["cost"]
    assert f"solution {data['cost']} pushes" in capsys.readouterr().out


def test_a_level_without_solution_exits_1(tmp_path, capsys):
    script = script_module("bound_profile")
    level_file = tmp_path / "stuck.xsb"
    # Two boxes in a corridor with the goals beyond: the first box pushed
    # meets the second, so no solution exists (our own BFS agrees).
    level_file.write_text("##########\n#@ $ $ ..#\n##########\n")
    assert bfs_min_pushes(load_levels(level_file)[0]) is None
    assert script.main([str(level_file), "--time-limit", "5", "--heuristic", "matching"]) == 1
    assert "no solution found" in capsys.readouterr().err
