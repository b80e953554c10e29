"""The ``pdbsearch`` command end to end, in subprocesses (exit codes, output)."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from pdbsearch.cli import main

REQUIRED_JSON_KEYS = {"status", "cost", "optimal", "bound", "moves", "expanded", "generated",
                      "seconds", "algo", "weight", "metric"}


def run(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "pdbsearch", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_solve_builtin_classic_json():
    proc = run("solve", "--json", "--metric", "unit")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert REQUIRED_JSON_KEYS <= data.keys()
    assert data["status"] == "solved" and data["optimal"] and data["bound"] == 1.0
    assert data["cost"] == len(data["moves"]) == 116  # known optimum (design.md)
    assert proc.stderr == ""  # no progress line with --json


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
                             "bfs", "--metric", "unit", "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(6)  # past start-up and compilation, into the search
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    data = json.loads(out)
    assert data["stop_reason"] == "interrupted" and data["expanded"] > 0


def test_generate_writes_solvable_boards(tmp_path):
    proc = run("generate", "--size", "4x5", "--count", "3", "--seed", "7",
               "--out", str(tmp_path))
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
