"""The Sokoban command line: solve (XSB, Push!!, --json), errors, levels."""

from __future__ import annotations

import csv
import json

import pytest

from pdbsearch.cli import main
from pdbsearch.search import DEFAULT_SHORTCUT_DEPTH
from pdbsearch.search.result import SearchResult, Status
from pdbsearch.sokoban import MAX_BOXES, check_solution, load_levels
from pdbsearch.sokoban.formats import format_xsb_collection
from pdbsearch.testing.sokoban import bfs_min_pushes

from .helpers import MICROBAN, PUSH, many_boxes_text

UNSOLVABLE_PUSH = """\
3 3
2 0 0
0 4 0
0 0 3
4 3
0 2 0 0
0 4 0 0
0 0 3 0
5 5
0 0 0 0 0
4 2 0 1 1
0 1 0 0 0
1 0 0 0 3
1 0 0 0 0
0 0
"""

SMALL_COLLECTION = """\
; two levels and an unsolvable one
; 1
#######
#@ $ .#
#######

; 2
; Title: Stuck
######
#@$  #
#   .#
######

; 3
####
#@$.#
#####
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_push_sample_answers_five(capsys):
    code, out, _ = run(capsys, "solve", "--format", "push",
                       str(PUSH / "sample_map1_only.in"))
    assert code == 0
    assert out.split() == (PUSH / "sample_map1_only.out").read_text().split() == ["5"]


def test_unsolvable_push_maps_answer_minus_one(capsys, tmp_path):
    path = tmp_path / "maps.in"
    path.write_text(UNSOLVABLE_PUSH)
    code, out, _ = run(capsys, "solve", "--format", "push", str(path))
    assert code == 0
    assert out.split() == ["-1", "-1", "5"]
    code, out, _ = run(capsys, "solve", str(path), "--json")   # format detected
    rows = json.loads(out)
    assert [r["answer"] for r in rows] == [-1, -1, 5]
    assert rows[2]["pushes"] == 5 and rows[0]["status"] == "unsolvable"


def test_solve_json_has_the_hakoiri_keys_plus_pushes_steps_lurd(capsys):
    code, out, _ = run(capsys, "solve", str(MICROBAN), "--level", "3", "--json")
    assert code == 0
    data = json.loads(out)
    base = SearchResult(Status.SOLVED, "astar", 1.0, "sokoban", "pushes", "matching").to_dict()
    # and the figures of A* and the perimeter beside it
    assert set(data) == set(base) | {"pushes", "steps", "lurd", "astar"}
    assert set(data["astar"]["members"]) == {"perimeter", "astar"}
    level = load_levels(MICROBAN)[2]
    assert check_solution(level, data["lurd"]) == (data["pushes"], data["steps"])
    assert data["cost"] == data["pushes"] == 13 and data["optimal"]


def test_solve_text_output_and_rule_switches(capsys):
    code, out, _ = run(capsys, "solve", str(MICROBAN), "--level", "2", "--metric",
                       "moves", "--no-freeze", "--no-corral", "--no-tunnels",
                       "--no-dead-squares", "--no-tunnel-macros", "--no-diagonal",
                       "--no-perimeter", "--no-probes", "--no-goal-rooms", "--no-learning")
    assert code == 0
    assert "move-optimal" in out and "rules none" in out
    assert "lurd: " in out


def test_level_by_title_and_unsolvable_exit_code(capsys, tmp_path):
    path = tmp_path / "set.xsb"
    path.write_text(SMALL_COLLECTION)
    code, out, _ = run(capsys, "solve", str(path), "--level", "Stuck", "--quiet")
    assert code == 4 and out.strip() == "unsolvable"
    code, out, _ = run(capsys, "solve", str(path), "--level", "1", "--quiet")
    assert code == 0 and out.strip() == "2"


def test_run_length_file_is_told_from_its_text_and_solved(capsys, tmp_path):
    """A level in the Sokoban wiki's run-length form, with its letters: the
    file is recognised as Sokoban (not sliding tiles: ``5#`` also reads as
    a number and a comment), and its level 2 is solved as the plain one."""
    path = tmp_path / "rle.txt"
    path.write_text("; 1\n5#|#p$.#|5#\n\n; 2\n7#\n#p4-#\n#-b-.-#\n7#\n")
    code, out, _ = run(capsys, "solve", str(path), "--level", "2", "--json")
    assert code == 0
    data = json.loads(out)
    plain = load_levels(path)[1]
    assert plain.boxes == {16} and plain.goals == {18} and plain.player == 8
    assert check_solution(plain, data["lurd"]) == (data["pushes"], data["steps"])
    assert data["pushes"] == bfs_min_pushes(plain) and data["optimal"]


@pytest.mark.parametrize("text, line", [
    ("#####\n#@$.#\n#X  #\n#####\n", 3),          # unknown character
    ("5#|#@$.#|5x\n", 1),                          # unknown character, encoded
    ("7#\n#@$.2\n7#\n", 2),                       # a count with nothing after it
    ("#####\n#@$ #\n#   #\n#####\n", 1),          # one box, no goal
    ("#####\n#@$.#\n# @ #\n#####\n", 3),          # two players
])
def test_bad_level_file_is_one_line_with_file_and_line(capsys, tmp_path, text, line):
    path = tmp_path / "bad.xsb"
    path.write_text(text)
    code, out, err = run(capsys, "solve", str(path))
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert f"{path}:{line}" in lines[0]


def test_missing_file_and_bad_level_number(capsys, tmp_path):
    code, _, err = run(capsys, "solve", str(tmp_path / "none.xsb"), "--domain", "sokoban")
    assert code == 2 and "none.xsb" in err and len(err.strip().splitlines()) == 1
    path = tmp_path / "set.xsb"
    path.write_text(SMALL_COLLECTION)
    code, _, err = run(capsys, "solve", str(path), "--level", "9")
    assert code == 2 and "level 9 does not exist" in err


def test_levels_command_writes_json_and_csv(capsys, tmp_path):
    path = tmp_path / "set.xsb"
    path.write_text(SMALL_COLLECTION)
    out_json, out_csv = tmp_path / "run.json", tmp_path / "run.csv"
    code, out, err = run(capsys, "levels", str(path), "--time-limit", "20", "--jobs", "2",
                         "--json", str(out_json), "--csv", str(out_csv))
    assert code == 4   # one level proved unsolvable, none unfinished
    assert "solved 2/3 (proven optimal 2, proved unsolvable 1, unfinished 0)" in out
    data = json.loads(out_json.read_text())
    assert [lv["status"] for lv in data["levels"]] == ["solved", "unsolvable", "solved"]
    assert data["levels"][1]["title"] == "Stuck"
    assert data["summary"]["solved"] == 2 and data["options"]["time_limit"] == 20.0
    rows = list(csv.DictReader(out_csv.open()))
    assert [r["pushes"] for r in rows] == ["2", "", "1"]
    assert "level" in err   # the progress bar counts levels on stderr


def test_levels_reports_an_invalid_level_and_solves_the_others(capsys, tmp_path):
    # Sasquatch VI and VII end with a level of more boxes than the limit:
    # the other 49 must still be solved.
    blocks = SMALL_COLLECTION.split("\n\n")
    path = tmp_path / "set.xsb"
    path.write_text("\n\n".join([blocks[0], "; Title: Crowded\n" + many_boxes_text(MAX_BOXES + 1),
                                 blocks[2]]))
    out_json = tmp_path / "run.json"
    code, out, err = run(capsys, "levels", str(path), "--time-limit", "20",
                         "--json", str(out_json), "--no-progress")
    assert code == 2   # bad input, after running what could be run
    data = json.loads(out_json.read_text())
    assert [lv["status"] for lv in data["levels"]] == ["solved", "invalid", "solved"]
    crowded = data["levels"][1]
    line = path.read_text().splitlines().index("; Title: Crowded") + 2
    assert crowded["title"] == "Crowded"
    assert crowded["error"] == (f"{path}:{line}: the level has {MAX_BOXES + 1} boxes; "
                                f"the limit is {MAX_BOXES}")
    assert data["summary"]["invalid"] == 1 and data["summary"]["unfinished"] == 0
    assert "invalid 1" in out and f"level 2 not run: {crowded['error']}" in err
    # A resumed run keeps the solved levels and reports the invalid one again.
    code, out, err = run(capsys, "levels", str(path), "--time-limit", "20",
                         "--resume", str(out_json), "--no-progress")
    assert code == 2 and "2 of 2 levels already finished" in err
    assert [lv["status"] for lv in json.loads(out_json.read_text())["levels"]] == \
        ["solved", "invalid", "solved"]


def test_levels_pattern_options_reach_every_level(capsys, tmp_path):
    path = tmp_path / "two_boxes.xsb"
    # Two boxes: by default the 2-box table would be built.
    path.write_text("#######\n#@ $ .#\n#  $ .#\n#######\n")
    db = tmp_path / "db"
    out_json = tmp_path / "run.json"
    code, out, _ = run(capsys, "levels", str(path), "--pattern-boxes", "1", "--grouping",
                       "static", "--db-dir", str(db), "--json", str(out_json), "--no-progress")
    assert code == 0 and "solved 1/1" in out
    data = json.loads(out_json.read_text())
    assert data["levels"][0]["pushes"] == 4
    assert (data["options"]["heuristic"], data["options"]["pattern_boxes"],
            data["options"]["grouping"]) == ("pdb", 1, "static")
    # The table was built in the folder given, with patterns of one box only.
    built = [f.name for f in db.iterdir()]
    assert len(built) == 1 and built[0].startswith("sokoban-patterns-k1-"), built


def test_levels_kills_a_level_past_its_limit(tmp_path):
    from pdbsearch.batch.levels import run_levels
    from pdbsearch.sokoban.collection import RunOptions
    levels = load_levels(MICROBAN)
    # Level 144 takes minutes; a zero grace makes the parent kill it as soon
    # as its 0.3 s limit has passed, unless the child stops by itself first.
    records, interrupted = run_levels([levels[143]], RunOptions(time_limit=0.3, grace=0.0),
                                      progress=False)
    assert not interrupted
    assert records[0].status in ("killed", "limit")
    assert not records[0].solved


def test_a_run_carries_one_level_for_its_warm_up():
    from pdbsearch.fifteen.collection import FifteenRunOptions
    from pdbsearch.sokoban.collection import RunOptions
    levels = load_levels(MICROBAN)
    (chosen,) = RunOptions().warm_up_levels(levels)
    # The smallest of two boxes or more (a one-box level needs no tables).
    assert len(chosen.boxes) == min(len(lv.boxes) for lv in levels if len(lv.boxes) >= 2)
    one_box = [lv for lv in levels if len(lv.boxes) == 1]
    assert RunOptions().warm_up_levels(one_box[:2]) == [one_box[0]]
    assert RunOptions().warm_up_levels([]) == []
    assert FifteenRunOptions().warm_up_levels(["a", "b"]) == ["a"]


def test_levels_ctrl_c_keeps_what_was_solved(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import threading

    levels = MICROBAN.read_text().split("\n\n")
    # Level 3 is solved at once; level 144 takes minutes.
    easy = next(block for block in levels if block.lstrip().startswith("; 3\n"))
    hard = next(block for block in levels if block.lstrip().startswith("; 144\n"))
    path = tmp_path / "two.xsb"
    path.write_text(easy + "\n\n" + hard + "\n")
    out_json = tmp_path / "run.json"
    # Fill the numba cache first, so that the run below is not still
    # compiling when Ctrl-C comes.
    easy_only = tmp_path / "easy.xsb"
    easy_only.write_text(easy + "\n")
    subprocess.run([sys.executable, "-m", "pdbsearch", "solve", str(easy_only), "--quiet"],
                   check=True, capture_output=True, timeout=600)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pdbsearch", "levels", str(path), "--json", str(out_json)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "100"})
    first_done = threading.Event()

    def watch():
        seen = b""
        while chunk := proc.stderr.read1(256):
            seen += chunk
            if b"1/2" in seen:
                first_done.set()
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        assert first_done.wait(120), "the first level never finished"
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 3
    data = json.loads(out_json.read_text())
    assert data["interrupted"] is True
    # Level 2 was running (interrupted) or about to start (not run).
    assert data["levels"][0]["status"] == "solved"
    assert data["levels"][1]["status"] in ("interrupted", "not run")
    assert b"solved 1/2" in out


def test_build_a_level_pattern_pdb_then_solve_with_it(capsys, tmp_path):
    db = tmp_path / "db"
    code, out, _ = run(capsys, "build", str(MICROBAN), "--level", "3", "--db-dir", str(db))
    assert code == 0
    assert "sokoban pattern PDB of 9x6 level" in out and "tables of 1 to 2 boxes" in out
    assert len(list(db.glob("sokoban-patterns-k2-9x6-*.h5"))) == 1
    code, out, err = run(capsys, "solve", str(MICROBAN), "--level", "3", "--db-dir", str(db),
                         "--json")
    assert code == 0 and "building" not in err
    assert json.loads(out)["cost"] == bfs_min_pushes(load_levels(MICROBAN)[2])


def test_a_sokoban_option_on_a_hakoiri_board_is_refused(capsys, repo):
    code, _, err = run(capsys, "solve", str(repo / "puzzles/hakoiri/classic.txt"), "--no-freeze")
    assert code == 2
    assert "does not apply to hakoiri" in err


def test_levels_records_the_cost_a_search_found_before_its_shortening(capsys, tmp_path):
    # Microban 36 (greedy: 77 pushes, fewer once shortened) and 1 (no shorter way)
    chosen = [load_levels(str(MICROBAN))[n - 1] for n in (36, 1)]
    path, out_json = tmp_path / "two.xsb", tmp_path / "run.json"
    path.write_text(format_xsb_collection(chosen))
    code, out, err = run(capsys, "levels", str(path), "--algo", "greedy", "--time-limit", "20",
                         "--json", str(out_json))
    assert code == 0
    data = json.loads(out_json.read_text())
    assert data["options"]["shorten"] == DEFAULT_SHORTCUT_DEPTH
    first, second = data["levels"]
    assert first["found_cost"] > first["cost"] == first["pushes"]
    assert check_solution(chosen[0], first["lurd"])[0] == first["pushes"]
    assert second["found_cost"] is None and second["cost"] == second["pushes"]
    code, out, err = run(capsys, "levels", str(path), "--algo", "greedy", "--time-limit", "20",
                         "--shorten", "0", "--json", str(out_json))
    first_as_found = json.loads(out_json.read_text())["levels"][0]
    assert first_as_found["cost"] == first["found_cost"] and first_as_found["found_cost"] is None


def test_a_greedy_solution_re_solved_whole_is_reported_proved_optimal(capsys):
    """Microban 4's greedy solution is short enough for one window: its A*
    over the whole solution proves it optimal (the plain-Python BFS's
    optimum), and the output says so."""
    code, out, _ = run(capsys, "solve", str(MICROBAN), "--level", "4", "--algo", "greedy")
    assert code == 0
    assert "(push-optimal)" in out and "proved optimal by A* over the whole solution" in out
    code, out, _ = run(capsys, "solve", str(MICROBAN), "--level", "4", "--algo", "greedy",
                       "--json")
    data = json.loads(out)
    assert data["optimal"] is True and data["shortened"]["proved_optimal"] is True
    assert data["cost"] == data["lower_bound"] == bfs_min_pushes(load_levels(MICROBAN)[3])


@pytest.mark.parametrize("algo", ["astar", "idastar", "greedy"])
def test_a_search_stopped_by_its_limit_points_at_fess(capsys, algo):
    code, out, _ = run(capsys, "solve", str(MICROBAN), "--level", "93", "--algo", algo,
                    "--node-limit", "50")
    assert code == 3
    assert "stopped by the nodes limit" in out
    assert "hint: --algo fess finds solutions of hard levels far sooner" in out


def test_fess_stopped_by_its_limit_and_hakoiri_get_no_hint(capsys):
    code, out, _ = run(capsys, "solve", str(MICROBAN), "--level", "93", "--algo", "fess",
                    "--node-limit", "50")
    assert code == 3 and "stopped by the nodes limit" in out and "hint:" not in out
    code, out, _ = run(capsys, "solve", "--node-limit", "50")   # the classic Hakoiri board
    assert code == 3 and "stopped by the nodes limit" in out and "hint:" not in out


@pytest.mark.parametrize("metric", ["pushes", "moves"])
def test_compare_counts_the_cost_in_the_metrics_unit(metric, tmp_path, capsys):
    """``compare`` on a Sokoban level heads its cost column with the
    metric's unit, and the α = 1 row is the optimum of a plain BFS."""
    level = load_levels(MICROBAN)[1]
    assert main(["compare", str(MICROBAN), "--level", "2", "--metric", metric,
                 "--weights", "1,3", "--db-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = [cell.strip() for cell in lines[1].split("|")]
    assert header == ["alpha", "seconds", "expanded", metric, f"{metric}/optimal"]
    first = [cell.strip() for cell in lines[3].split("|")]
    assert first[0] == "1" and first[4] == "1.000"
    if metric == "pushes":
        assert int(first[3]) == bfs_min_pushes(level)
