"""``scripts/fess_best_position.py``: the best position FESS reached on a
level it did not solve, written as a level that parses back, holds the
level's walls and goals, and has boxes where the pushes from the start
can put them; its exit codes."""

from __future__ import annotations

import pytest

from pdbsearch.sokoban.formats import load_levels
from pdbsearch.testing.sokoban import bfs_min_pushes

from .helpers import python_successors, script_module, xsb

#: Two boxes in a corridor, the goals beyond them, the player behind:
#: the first box pushed meets the second, and no rule says so at the
#: start, so FESS searches before it runs out of moves (the level's
#: exhaustive search finds no solution).
STUCK = """\
##########
#@ $ $ ..#
##########
"""


def reachable_box_sets(level) -> set[frozenset]:
    """Every set of box cells the pushes reach from the start (plain BFS)."""
    seen = {(level.boxes, level.normalized_player(level.player, level.boxes))}
    frontier = list(seen)
    while frontier:
        boxes, player = frontier.pop()
        for nxt, man, _, _ in python_successors(level, boxes, player, "pushes"):
            if (nxt, man) not in seen:
                seen.add((nxt, man))
                frontier.append((nxt, man))
    return {boxes for boxes, _ in seen}


def test_the_best_position_is_written_as_a_level(tmp_path):
    """An unsolvable level: exit 0, a level with the same walls and goals
    whose boxes stand where the pushes from the start can put them."""
    script = script_module("fess_best_position")
    level_file = tmp_path / "stuck.xsb"
    level_file.write_text(STUCK)
    out = tmp_path / "best.xsb"
    assert script.main([str(level_file), "--time-limit", "1", "--heuristic", "matching",
                        "--out", str(out)]) == 0
    level = xsb(STUCK)
    (best,) = load_levels(out)
    assert (best.walls == level.walls).all() and best.goals == level.goals
    assert bfs_min_pushes(level) is None   # unsolvable, as the docstring says
    assert best.boxes in reachable_box_sets(level)


def test_a_solved_level_writes_nothing_and_bad_input_exits_2(tmp_path, capsys):
    script = script_module("fess_best_position")
    solvable = tmp_path / "easy.xsb"
    solvable.write_text("#####\n#@$.#\n#####\n")
    out = tmp_path / "best.xsb"
    assert script.main([str(solvable), "--time-limit", "5", "--heuristic", "matching",
                        "--out", str(out)]) == 1
    assert not out.exists()
    assert script.main([str(tmp_path / "missing.xsb")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert script.main([str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert script.main([str(solvable), "--level", "7"]) == 2
    assert "level 7 does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        script.main([str(solvable), "--time-limit", "-1"])
    stuck = tmp_path / "stuck.xsb"
    stuck.write_text(STUCK)
    blocked = tmp_path / "a_file"
    blocked.write_text("")
    assert script.main([str(stuck), "--time-limit", "1", "--heuristic", "matching",
                        "--out", str(blocked / "best.xsb")]) == 2
    assert "cannot write" in capsys.readouterr().err


@pytest.mark.parametrize("length", [1, 2, 3, 7, 16, 33])
def test_the_bisection_finds_every_death_point(length):
    """Over lines of every length and every depth at which death starts
    (or none), the bisection names that depth, asks no more than
    ``2 + log2(length)`` questions, and only asks depths of the line."""
    script = script_module("fess_best_position")
    for first_dead in [*range(length), None]:
        asked = []

        def is_dead(depth, first_dead=first_dead):
            assert 0 <= depth < length
            asked.append(depth)
            return first_dead is not None and depth >= first_dead

        found, count = script.shallowest_dead(length, is_dead)
        assert found == first_dead
        assert count == len(asked) <= 2 + length.bit_length()
        if first_dead is not None and first_dead > 0:
            assert first_dead - 1 in asked   # the depth named as not proved was asked


def test_dead_depth_writes_the_shallowest_dead_position(tmp_path, capsys):
    """On a level dead from the start, A* proves the start dead: the
    position written is the level's own start, named as such."""
    script = script_module("fess_best_position")
    level_file = tmp_path / "stuck.xsb"
    level_file.write_text(STUCK)
    dead_out = tmp_path / "dead.xsb"
    assert script.main([str(level_file), "--time-limit", "1", "--heuristic", "matching",
                        "--out", str(tmp_path / "best.xsb"), "--dead-depth", "5",
                        "--dead-out", str(dead_out)]) == 0
    out = capsys.readouterr().out
    assert "depth 0 of the line's" in out and "the start" in out
    level = xsb(STUCK)
    (dead,) = load_levels(dead_out)
    assert dead.boxes == level.boxes and dead.goals == level.goals
    assert dead.normalized_player(dead.player, dead.boxes) == \
        level.normalized_player(level.player, level.boxes)
