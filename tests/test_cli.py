"""The ``pdbsearch`` command end to end, in subprocesses (exit codes, output)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pdbsearch.cli import main
from pdbsearch.search import DEFAULT_SHORTCUT_DEPTH

REQUIRED_JSON_KEYS = {"status", "cost", "optimal", "bound", "moves", "expanded", "generated",
                      "seconds", "algo", "weight", "metric"}


def run(*args, timeout=300, input=None):
    return subprocess.run([sys.executable, "-m", "pdbsearch", *args], capture_output=True,
                          text=True, timeout=timeout, input=input)


def test_solve_builtin_classic_json():
    proc = run("solve", "--json", "--metric", "unit")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert REQUIRED_JSON_KEYS <= data.keys()
    assert data["status"] == "solved" and data["optimal"] and data["bound"] == 1.0
    assert data["cost"] == len(data["moves"]) == 116  # known optimum (design.md)
    # no progress line with --json; only the note that the PDB was built
    assert all(line.startswith("pdbsearch: buil") for line in proc.stderr.splitlines())


def test_solve_file_human_output(repo):
    proc = run("solve", str(repo / "puzzles/hakoiri/classic.txt"), "--boards")
    assert proc.returncode == 0, proc.stderr
    assert "90 moves (optimal)" in proc.stdout
    assert "BAAC" in proc.stdout  # the start board is drawn


def test_weighted_solve_reports_bound():
    data = json.loads(run("solve", "--weight", "3", "--json").stdout)
    assert data["algo"] == "wastar" and data["weight"] == 3 and data["bound"] == 3
    assert 90 <= data["cost"] <= 270


def test_bad_file_is_one_clear_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("exit: 1 3\nBAAC\nBAAC\nDEEFX\nDGHF\nI..J\n")
    proc = run("solve", str(bad))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert f"{bad}:4:" in lines[0] and "ragged" in lines[0]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("args", [
    ["solve", "/no/such/file.txt"],
    ["solve", "--metric", "diagonal"],
    ["solve", "--weight", "0.5"],
    ["solve", "--algo", "dfs"],
    ["solve", "--node-limit", "-3"],
    ["generate", "--size", "3x3", "--verticals", "9"],
    ["generate", "--size", "big"],
])
def test_bad_usage_exits_2(args):
    proc = run(*args)
    assert proc.returncode == 2, proc.stdout
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip()


def test_limit_exits_3():
    proc = run("solve", "--metric", "unit", "--algo", "bfs", "--node-limit", "100", "--json")
    assert proc.returncode == 3
    data = json.loads(proc.stdout)
    assert data["status"] == "limit" and data["stop_reason"] == "nodes"
    assert data["expanded"] == 100


def test_unsolvable_exits_4(tmp_path):
    stuck = tmp_path / "stuck.txt"
    stuck.write_text("exit: 0 1\nAAB\nAAC\nDE.\n")
    proc = run("solve", str(stuck))
    assert proc.returncode == 4
    assert "proved unsolvable" in proc.stdout


def test_ctrl_c_returns_figures(tmp_path):
    from tests.search.test_engines import open_board_8x8
    board = tmp_path / "open.txt"
    board.write_text(open_board_8x8())
    proc = subprocess.Popen([sys.executable, "-m", "pdbsearch", "solve", str(board), "--algo",
                             "bfs", "--metric", "unit", "--heuristic", "zero", "--json",
                             "--progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        # The progress line appears once the search has run a while: Ctrl-C then.
        wait_for_output(proc.stderr, "nodes", timeout=120)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()   # a run that ignored the signal must not outlive the test
        proc.wait()
    assert proc.returncode == 3, err
    data = json.loads(out)
    assert data["stop_reason"] == "interrupted" and data["expanded"] > 0


def wait_for_output(stream, text: str, timeout: float) -> None:
    """Read the pipe ``stream`` until ``text`` appears or ``timeout`` passes
    (raw reads: tqdm ends its lines with carriage returns, not newlines)."""
    import select
    deadline = time.monotonic() + timeout
    seen = b""
    fd = stream.fileno()
    while text.encode() not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {text!r} within {timeout} s: {seen[-300:]!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 4096)
            assert chunk, f"the process ended before {text!r}: {seen[-300:]!r}"
            seen += chunk


@pytest.mark.parametrize("args, usage", [
    (["solve", "a.txt", "b.txt"], "pdbsearch solve"),
    (["generate", "4x5", "5x5"], "pdbsearch generate"),
    (["levels", "a.txt", "--first", "2", "extra"], "pdbsearch levels"),
])
def test_a_stray_argument_is_shown_with_its_commands_usage(capsys, args, usage):
    """Not with the top level's usage, which names only the commands."""
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"usage: {usage}" in err and f"{usage}: error: unrecognized arguments" in err


def test_levels_domain_option(tmp_path, capsys):
    """--domain fifteen on a Sokoban file says it is not a sliding-tile
    collection; with --format it is refused; a one-line collection runs."""
    microban = str(Path(__file__).resolve().parents[1] / "puzzles/sokoban/microban.txt")
    assert main(["levels", microban, "--domain", "fifteen"]) == 2
    assert "not a sliding-tile collection" in capsys.readouterr().err
    assert main(["levels", microban, "--domain", "fifteen", "--format", "xsb"]) == 2
    assert "--format names a Sokoban file format" in capsys.readouterr().err
    one = tmp_path / "one.txt"
    one.write_text("first - 1 0 2 3 4 5 6 7 8\n")
    assert main(["levels", str(one), "--no-progress", "--db-dir", str(tmp_path)]) == 0
    assert "solved 1/1 (proven optimal 1" in capsys.readouterr().out


def test_generate_writes_solvable_boards(tmp_path):
    """The size as an argument or as ``--size``; two different sizes are refused."""
    assert run("generate", "4x5", "--size", "5x5").returncode == 2
    proc = run("generate", "4x5", "--count", "3", "--seed", "7", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    files = sorted(tmp_path.glob("*.txt"))
    assert len(files) == 3
    for f in files:
        data = json.loads(run("solve", str(f), "--json").stdout)
        assert data["status"] == "solved"
        assert f"optimal {data['cost']} straight moves" in f.read_text()


def test_main_in_process_returns_code(capsys):
    assert main(["solve", "--quiet", "--metric", "free"]) == 0
    assert capsys.readouterr().out.strip() == "81"  # known optimum (design.md)


def test_build_geometry_prints_figures_and_writes_file(tmp_path):
    out = tmp_path / "t.h5"
    proc = run("build", "5x6", "--metric", "unit", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "20 positions of the 2x2 x C(26,2)" in proc.stdout
    assert "entries 6,500 (1 byte each)" in proc.stdout
    assert "histogram:" in proc.stdout and out.exists()


def test_solve_uses_and_reuses_the_pdb(tmp_path, repo):
    env_dir = tmp_path / "db"
    first = run("solve", "--json", "--db-dir", str(env_dir))
    assert "building the relaxed PDB" in first.stderr
    again = run("solve", "--json", "--db-dir", str(env_dir))
    assert again.stderr == ""
    data = json.loads(again.stdout)
    assert data["heuristic"] == "pdb" and data["cost"] == 90 and data["optimal"]


def test_oversized_pdb_is_refused_clearly(tmp_path):
    from tests.search.test_engines import open_board_8x8
    board = tmp_path / "open.txt"
    board.write_text(open_board_8x8())
    proc = run("solve", str(board))
    assert proc.returncode == 2
    assert "use --heuristic simple" in proc.stderr and "Traceback" not in proc.stderr


def test_pdb_for_another_board_is_refused(tmp_path):
    out = tmp_path / "other.h5"
    assert run("build", "5x6", "--out", str(out)).returncode == 0
    proc = run("solve", "--pdb", str(out))
    assert proc.returncode == 2
    assert "made for" in proc.stderr and "Traceback" not in proc.stderr


def test_compare_table_json_and_plot(tmp_path):
    proc = run("compare", "--weights", "1,2,5")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1].split()[0] == "alpha"
    assert lines[1].endswith("| moves | moves/optimal")   # the Hakoiri cost unit
    assert any(l.split()[0] == "1" and l.split()[-1] == "1.000" for l in lines[3:])
    runs = json.loads(run("compare", "--weights", "1,3", "--json").stdout)
    assert [r["weight"] for r in runs] == [1, 3] and runs[0]["optimal"]
    assert REQUIRED_JSON_KEYS <= runs[1].keys()
    pytest.importorskip("matplotlib")
    png = tmp_path / "sweep.png"
    assert run("compare", "--weights", "1,2", "--plot", str(png), "--quiet").returncode == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_a_solution_that_does_not_replay_is_an_internal_error(monkeypatch, capsys):
    """Our own result failing the independent checker is our bug: exit 1
    with a request to report it, never exit 2 (bad input)."""
    from pdbsearch.errors import IllegalMoveError
    from pdbsearch.hakoiri.puzzle import HakoiriPuzzle

    def broken_checker(self, move_codes):
        raise IllegalMoveError("the moves do not bring the 2x2 piece to the exit")

    monkeypatch.setattr(HakoiriPuzzle, "check_solution", broken_checker)
    code = main(["solve", "--heuristic", "simple", "--json"])
    err = capsys.readouterr().err
    assert code == 1
    assert "internal error" in err and "does not replay" in err and "report" in err


def test_a_greedy_solution_is_shortened_and_the_output_says_so():
    data = json.loads(run("solve", "--algo", "greedy", "--json").stdout)
    report = data["shortened"]
    assert report["after"] == data["cost"] == len(data["moves"]) < report["before"]
    assert report["depth"] == DEFAULT_SHORTCUT_DEPTH and report["finished"]   # not cut short
    text = run("solve", "--algo", "greedy").stdout
    assert (f"shortened from {report['before']} to {report['after']} moves: "
            f"{report['shortcuts']} shortcuts taken (shortcuts of up to "
            f"{DEFAULT_SHORTCUT_DEPTH} moves;") in text
    assert report["windows"] == report["window_moves"] == 0   # Hakoiri's goal is fixed
    plain = json.loads(run("solve", "--algo", "greedy", "--shorten", "0", "--json").stdout)
    assert plain["cost"] == report["before"] and "shortened" not in plain
    # an optimal solution is never touched
    assert "shortened" not in json.loads(run("solve", "--json").stdout)


@pytest.mark.parametrize("value", ["-1", "x", "2.5"])
def test_a_bad_shortcut_depth_is_one_clear_line(value):
    proc = run("solve", "--algo", "greedy", f"--shorten={value}")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--shorten" in proc.stderr and "Traceback" not in proc.stderr


def test_a_puzzle_read_from_the_standard_input(repo):
    """``-`` reads the standard input (solve and levels), and errors name it ``<stdin>``."""
    board = (repo / "puzzles" / "hakoiri" / "classic.txt").read_text()
    proc = run("solve", "-", "--quiet", input=board)
    assert proc.returncode == 0 and proc.stdout.strip() == "90"
    proc = run("solve", "-", "--algo", "bfs", input="#####\n#@$x#\n#####\n")
    assert proc.returncode == 2
    assert proc.stderr.startswith("pdbsearch: error: <stdin>:2:4: unknown character 'x'")
    proc = run("levels", "-", "--algo", "bfs", "--no-progress",
               input="#####\n#@$.#\n#####\n\n######\n#@ $.#\n######\n")
    assert proc.returncode == 0 and "solved 2/2" in proc.stdout


def test_the_compile_note_is_set_where_progress_is_shown(monkeypatch, capsys):
    """A command sets the note a first compile tells (on stderr) where it
    would show progress: with --progress, not with --quiet, not when stderr
    is not a terminal (as here); and clears it when it ends."""
    import pdbsearch.cli as cli
    calls = []
    monkeypatch.setattr(cli, "set_compile_notice", calls.append)
    assert main(["solve", "--metric", "unit", "--progress"]) == 0
    assert callable(calls[0]) and calls[1:] == [None]
    calls[0]("note")
    assert capsys.readouterr().err.endswith("note\n")
    for quiet in (["--progress", "--quiet"], []):
        calls.clear()
        assert main(["solve", "--metric", "unit", *quiet]) == 0
        assert calls == [None, None]
