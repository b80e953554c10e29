"""Issue 10's cases, each with its minimal input: every bad input exits 2
with one line, every limit holds, every damaged database is refused or
rebuilt, Ctrl-C at any moment exits 3, leftovers of killed writes go."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np
import pytest

from pdbsearch.cli import main
from pdbsearch.errors import PdbFileError
from pdbsearch.hakoiri.builtin import CLASSIC_TEXT
from pdbsearch.hakoiri.database import build_relaxed, pdb_filename, relaxed_spec, verify_relaxed
from pdbsearch.pdb.store import USER_BLOCK, checksum, histogram, load_pdb, save_pdb, seal

CLASSIC_ROWS = "BAAC\nBAAC\nDEEF\nDGHF\nI..J\n"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_clear_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


# -- F1, F2: integers with digit checks and bounds --------------------------------


@pytest.mark.parametrize("exit_value", ["--1 3", "\u00b2 3", "1 " + "9" * 5000, "a,b",
                                        "+1 3", "1 3 5", "\u0661 3"])
def test_bad_exit_values_are_bad_input(capsys, tmp_path, exit_value):
    path = tmp_path / "board.txt"
    path.write_text(f"exit: {exit_value}\n{CLASSIC_ROWS}")
    code, out, err = run_cli(capsys, "solve", path)
    assert code == 2 and out == ""
    line = one_clear_line(err)
    assert f"{path}:1" in line and "exit" in line and len(line) < 300


@pytest.mark.parametrize("args", [["build", "8x20", "--exit", "a,b"],
                                  ["build", "8x20", "--exit", "1,999999999999"],
                                  ["build", "9" * 5000 + "x20"],
                                  ["build", "8x20", "--empty", "9" * 5000],
                                  ["generate", "--size", "6x7", "--exit", "--1,3"]])
def test_bad_numbers_in_options_are_bad_input(capsys, args):
    code, _, err = run_cli(capsys, *args)
    assert code == 2
    assert "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize("text", ["3 1\n4 2 " + "3" * 5000 + "\n0 0\n",
                                  "9" * 5000 + " 1\n0\n0 0\n",
                                  "2 1\n4 2\n" + "1" * 5000 + " 1\n3 0\n0 0\n"])
def test_huge_push_integers_are_bad_input(capsys, tmp_path, text):
    path = tmp_path / "maps.in"
    path.write_text(text)
    code, _, err = run_cli(capsys, "solve", path, "--format", "push")
    assert code == 2
    line = one_clear_line(err)
    assert str(path) in line and len(line) < 300


# -- F3, N1: damaged and edited databases ---------------------------------------------


@pytest.fixture(scope="module")
def classic_spec_table():
    spec = relaxed_spec(4, 5, (1, 3), 2, "straight")
    return spec, build_relaxed(spec)[0]


def _damage(path: Path, how: str) -> None:
    """Edit the file with h5py and seal it again: the attribute checks,
    not the seal, must refuse it."""
    _edit(path, how)
    seal(path)


def _edit(path: Path, how: str) -> None:
    with h5py.File(path, "r+") as f:
        if how.startswith("parameters="):
            f.attrs["parameters"] = how.split("=", 1)[1]
        elif how == "format_version=[1,1]":
            f.attrs["format_version"] = np.array([1, 1])
        elif how == "distances group":
            del f["distances"]
            f.create_group("distances")
        elif how == "distances scalar":
            del f["distances"]
            f["distances"] = 7
        elif how == "no histogram":
            del f.attrs["histogram"]
        elif how == "entries text":
            f.attrs["entries"] = "many"
        elif how == "fingerprint":
            f.attrs["fingerprint"] = "0" * 16


DAMAGES = ["parameters={", "parameters=[]", "parameters=null", "parameters=5",
           "format_version=[1,1]", "distances group", "distances scalar", "no histogram",
           "entries text", "fingerprint"]


@pytest.mark.parametrize("how", DAMAGES)
def test_damaged_metadata_is_refused_by_the_loader(tmp_path, classic_spec_table, how):
    spec, table = classic_spec_table
    path = tmp_path / pdb_filename(spec)
    save_pdb(path, table, spec, 0.1)
    _damage(path, how)
    with pytest.raises(PdbFileError):
        load_pdb(path, spec)


def test_an_edit_without_a_new_seal_is_refused(tmp_path, classic_spec_table):
    spec, table = classic_spec_table
    path = tmp_path / pdb_filename(spec)
    save_pdb(path, table, spec, 0.1)
    _edit(path, "no histogram")
    with pytest.raises(PdbFileError, match="seal"):
        load_pdb(path, spec)


def test_a_file_without_a_seal_is_refused_before_hdf5_reads_it(tmp_path, classic_spec_table):
    """A plain HDF5 file (format 1, or another program's) never reaches the
    HDF5 library, which can loop forever on a damaged file."""
    spec, table = classic_spec_table
    path = tmp_path / pdb_filename(spec)
    save_pdb(path, table, spec, 0.1)
    data = path.read_bytes()
    path.write_bytes(data[USER_BLOCK:])   # the same HDF5 data, no user block
    with pytest.raises(PdbFileError, match="no seal"):
        load_pdb(path, spec)


def test_byte_flips_anywhere_are_refused_or_harmless(tmp_path, classic_spec_table):
    """Flip each byte of the file's first 4 KiB (the metadata) in turn: the
    loader either refuses the file or returns the exact table."""
    spec, table = classic_spec_table
    path = tmp_path / "good.h5"
    save_pdb(path, table, spec, 0.1)
    data = path.read_bytes()
    flipped = tmp_path / "flipped.h5"
    for i in range(0, min(len(data), 4096), 7):
        flipped.write_bytes(data[:i] + bytes([data[i] ^ 0x5A]) + data[i + 1:])
        try:
            loaded, _ = load_pdb(flipped, spec, lambda t: verify_relaxed(spec, t))
        except PdbFileError:
            continue
        assert np.array_equal(loaded, table), i


def test_an_edited_table_with_a_recomputed_checksum_is_refused(tmp_path, classic_spec_table):
    """The table x 3, its SHA-256, histogram and maximum recomputed: the
    sampled consistency test still catches it (issue 10, N1)."""
    spec, table = classic_spec_table
    edited = np.where(table == 255, 255, np.minimum(table.astype(np.int64) * 3, 254))
    edited = edited.astype(np.uint8)
    path = tmp_path / pdb_filename(spec)
    save_pdb(path, edited, spec, 0.1)   # every attribute consistent with the edit
    assert checksum(edited) != checksum(table)
    with pytest.raises(PdbFileError, match="sampled entries"):
        load_pdb(path, spec, lambda t: verify_relaxed(spec, t))


@pytest.mark.parametrize("how", ["parameters={", "distances scalar", "fingerprint"])
def test_a_damaged_file_in_the_database_folder_is_moved_aside_and_rebuilt(
        capsys, tmp_path, classic_spec_table, how):
    spec, table = classic_spec_table
    db = tmp_path / "db"
    path = db / pdb_filename(spec)
    save_pdb(path, table, spec, 0.1)
    _damage(path, how)
    code, out, err = run_cli(capsys, "solve", "--db-dir", db, "--json")
    assert code == 0 and json.loads(out)["cost"] == 90   # design.md: classic optimum 90
    assert "moved it to" in err and "refused-1" in err
    assert (db / f"{path.name}.refused-1").exists()
    load_pdb(path, spec)   # the rebuilt file is good


def test_a_damaged_pdb_named_on_the_command_line_is_refused(capsys, tmp_path,
                                                             classic_spec_table):
    spec, table = classic_spec_table
    path = tmp_path / "mine.h5"
    save_pdb(path, table, spec, 0.1)
    _damage(path, "parameters=[]")
    code, _, err = run_cli(capsys, "solve", "--pdb", path)
    assert code == 2
    assert str(path) in one_clear_line(err)
    assert path.exists()   # the user's own file is left alone


def test_an_edited_pdb_in_use_never_gives_a_wrong_optimum(capsys, tmp_path,
                                                          classic_spec_table):
    spec, table = classic_spec_table
    edited = np.where(table == 255, 255, np.minimum(table.astype(np.int64) * 3, 254))
    path = tmp_path / "edited.h5"
    save_pdb(path, edited.astype(np.uint8), spec, 0.1)
    code, _, err = run_cli(capsys, "solve", "--pdb", path, "--json")
    assert code == 2 and "sampled entries" in err


# -- F4: limits cover the whole command ----------------------------------------------


def room_of_boxes_on_goals(size: int, boxes: int) -> str:
    rows = ["#" * size]
    placed = 0
    for r in range(1, size - 1):
        row = ["#"] + [" "] * (size - 2) + ["#"]
        for c in range(1, size - 1):
            if placed < boxes and (r + c) % 2 == 0 and r < size - 2:
                row[c] = "*"
                placed += 1
        rows.append("".join(row))
    rows[-1] = "#" + " " * (size - 3) + "@#"
    rows.append("#" * size)
    return "\n".join(rows) + "\n"


def test_a_solved_start_builds_no_table(capsys, tmp_path):
    path = tmp_path / "room.xsb"
    path.write_text(room_of_boxes_on_goals(40, 255))
    db = tmp_path / "db"
    code, out, err = run_cli(capsys, "solve", path, "--time-limit", "5", "--db-dir", db,
                             "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "solved" and data["cost"] == 0 and data["optimal"]
    assert not db.exists() or not list(db.iterdir())
    assert "building" not in err


def test_the_time_limit_covers_building_the_pdb(tmp_path, repo):
    """Hakoiri 10x20 with an empty database folder: the relaxed PDB takes
    several seconds to build; with --time-limit 1 the whole search stops,
    reporting the limit (the command's start-up is outside the limit).

    numba compiles the builder at its first use in a fresh environment (a
    one-off, tens of seconds on a busy machine, that no limit can stop
    midway), so a small board is solved first to have it compiled."""
    warm = subprocess.run([sys.executable, "-m", "pdbsearch", "solve",
                           str(repo / "puzzles/hakoiri/paper_6x7.txt"), "--quiet",
                           "--db-dir", str(tmp_path / "warm")],
                          capture_output=True, text=True, timeout=600)
    assert warm.returncode == 0, warm.stderr
    proc = subprocess.run([sys.executable, "-m", "pdbsearch", "solve",
                           str(repo / "puzzles/hakoiri/paper_10x20.txt"), "--time-limit", "1",
                           "--db-dir", str(tmp_path / "db"), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    data = json.loads(proc.stdout)
    assert data["status"] == "limit" and data["stop_reason"] == "time"
    assert data["setup_seconds"] < 2.5 and "time limit stopped building" in data["note"]
    assert not list((tmp_path / "db").glob("*.h5"))   # nothing half-built was saved


def test_the_memory_limit_holds_for_the_whole_process(tmp_path):
    """A BFS that would need gigabytes, limited to 300 MB: it stops with the
    memory limit, and the process's peak stays within 10 % of it."""
    from tests.search.test_engines import open_board_8x8
    board = tmp_path / "open.txt"
    board.write_text(open_board_8x8())
    command = [sys.executable, "-m", "pdbsearch", "solve", str(board), "--algo", "bfs",
               "--metric", "unit", "--heuristic", "zero", "--memory-limit", "300", "--json"]
    # A wrapper process whose only child is the command: its children's
    # peak resident size is the command's.
    wrapper = ("import json, resource, subprocess, sys\n"
               f"p = subprocess.run({command!r}, capture_output=True, text=True)\n"
               "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
               "print(json.dumps([p.returncode, p.stdout, p.stderr, peak]))\n")
    proc = subprocess.run([sys.executable, "-c", wrapper], capture_output=True, text=True,
                          timeout=300)
    code, out, err, peak_mb = json.loads(proc.stdout)
    assert code == 3, err
    assert json.loads(out)["stop_reason"] == "memory"
    assert 150 < peak_mb <= 330, peak_mb


# -- F5: domain detection --------------------------------------------------------------


def test_a_long_comment_does_not_change_the_domain(capsys, tmp_path):
    path = tmp_path / "classic.txt"
    path.write_text("# " + "x" * 70_000 + "\n" + CLASSIC_TEXT)
    code, out, _ = run_cli(capsys, "solve", path, "--quiet", "--heuristic", "simple")
    assert code == 0 and out.strip() == "90"   # design.md: classic optimum, straight metric


def test_a_hakoiri_board_without_exit_is_told_so(capsys, tmp_path):
    path = tmp_path / "no_exit.txt"
    path.write_text("# the classic board, exit forgotten\n" + CLASSIC_ROWS)
    code, _, err = run_cli(capsys, "solve", path)
    assert code == 2 and "no exit declared" in one_clear_line(err)


# -- F6: Ctrl-C at any moment ---------------------------------------------------------


@pytest.mark.parametrize("delay", [0.3, 0.6, 1.0, 1.5, 2.5])
def test_ctrl_c_at_any_moment_is_a_clean_interruption(tmp_path, delay):
    """Start-up, numba's import, the PDB build and the search: wherever the
    signal lands, one line and exit 3 (0 if the run had already finished)."""
    from tests.search.test_engines import open_board_8x8
    board = tmp_path / "open.txt"
    board.write_text(open_board_8x8())
    proc = subprocess.Popen([sys.executable, "-m", "pdbsearch", "solve", str(board),
                             "--metric", "unit", "--heuristic", "simple", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PDBSEARCH_DB_DIR": str(tmp_path / "db")})
    try:
        time.sleep(delay)  # not a wait for the program: the moment the signal lands
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()        # a run that ignored the signal must not outlive the test
        proc.wait()
    assert "Traceback" not in err, err
    assert proc.returncode == 3, (proc.returncode, err)
    assert err.strip().endswith("pdbsearch: interrupted") or json.loads(out)[
        "stop_reason"] == "interrupted"


def test_a_ctrl_c_lost_in_a_ctypes_callback_stops_the_next_search(capsys):
    """numba runs Python inside ctypes callbacks (llvmlite's object cache),
    where a KeyboardInterrupt is lost: Python prints it as "ignored" and goes
    on.  Seen with Ctrl-C 0.75 s after the start on a busy machine: the
    command ran on to its end.  The command's handler notes the request, the
    lost exception is not printed, and the search stops at its first check,
    once: the next search of the process runs normally."""
    import ctypes

    from pdbsearch.hakoiri.builtin import classic_board
    from pdbsearch.hakoiri.puzzle import HakoiriPuzzle
    from pdbsearch.interrupts import note_interrupt, quiet_lost_interrupts, take_interrupt_note
    from pdbsearch.search import solve

    def callback():
        note_interrupt()          # what the command's SIGINT handler does first
        raise KeyboardInterrupt   # ... and this is lost inside the callback

    with quiet_lost_interrupts():
        ctypes.CFUNCTYPE(None)(callback)()
    assert "KeyboardInterrupt" not in capsys.readouterr().err   # not printed
    puzzle = HakoiriPuzzle(classic_board(), heuristic="simple")
    stopped = solve(puzzle, "astar")
    assert stopped.stop_reason == "interrupted" and stopped.cost is None
    assert not take_interrupt_note()                 # acted on once
    assert solve(puzzle, "astar").cost == 90         # design.md: classic optimum, straight


# -- outputs that cannot be written ------------------------------------------------------


@pytest.mark.parametrize("where", ["db-dir", "build-out", "levels-json"])
def test_an_output_folder_that_is_a_file_is_bad_input(capsys, tmp_path, where, repo):
    """Every writer goes through io.replacing: a folder that is a file (or
    cannot be made) is one clear line and exit 2, not an internal error."""
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder\n")
    argv = {"db-dir": ["solve", "--db-dir", blocker],
            "build-out": ["build", "4x5", "--out", blocker / "x.h5"],
            "levels-json": ["levels", repo / "puzzles/sokoban/microban.txt", "--first", "1",
                            "--json", blocker / "run.json", "--no-progress"]}[where]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and "Traceback" not in err and "internal error" not in err
    # (solve says first that it is building the PDB it then cannot save)
    assert "a file stands where the folder should be" in err.strip().splitlines()[-1]


def test_levels_on_a_hakoiri_board_says_so(capsys, repo):
    code, _, err = run_cli(capsys, "levels", repo / "puzzles/hakoiri/classic.txt")
    assert code == 2 and "not a Sokoban collection" in one_clear_line(err)


# -- F7: leftovers of killed writes -------------------------------------------------------


def test_leftovers_of_a_killed_writer_are_removed_by_the_next_write(tmp_path, capsys):
    import socket
    db = tmp_path / "db"
    db.mkdir()
    host = socket.gethostname().replace(".", "_").replace("-", "_")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    ours_dead = db / f".x.h5.{host}-{dead}.abcd1234.tmp"
    ours_alive = db / f".y.h5.{host}-{os.getpid()}.abcd1234.tmp"
    old_foreign = db / ".z.h5.q1w2e3r4.tmp"
    for f in (ours_dead, ours_alive, old_foreign):
        f.write_bytes(b"half")
    os.utime(old_foreign, (time.time() - 7200, time.time() - 7200))
    code, _, _ = run_cli(capsys, "build", "4x5", "--empty", "2", "--exit", "1,3",
                         "--db-dir", db, "--quiet")
    assert code == 0
    assert not ours_dead.exists() and not old_foreign.exists()
    assert ours_alive.exists()   # a writer still at work keeps its file


def test_a_write_killed_midway_leaves_no_target_and_its_leftover_goes(tmp_path, repo):
    """Kill a PDB build while it writes, then build again in the folder."""
    db = tmp_path / "db"
    code = ("import os, signal\n"
            "import h5py\n"
            "orig = h5py.File.__init__\n"
            "def die(self, *a, **k):\n"
            "    orig(self, *a, **k)\n"
            "    if 'w' in a[1:2] or k.get('mode') == 'w':\n"
            "        os.kill(os.getpid(), signal.SIGKILL)\n"
            "h5py.File.__init__ = die\n"
            f"import pdbsearch; pdbsearch.build_pdb('4x6', db_dir={str(db)!r})\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert list(db.glob(".*.tmp")) and not list(db.glob("*.h5"))
    subprocess.run([sys.executable, "-m", "pdbsearch", "build", "4x6", "--db-dir", str(db),
                    "--quiet"], check=True, timeout=300)
    assert not list(db.glob(".*.tmp")) and len(list(db.glob("*.h5"))) == 1


# -- F8: one level of a large collection ---------------------------------------------------


def test_level_n_is_read_without_the_rest(capsys, tmp_path):
    """Level 2 of a collection whose level 3 is malformed: only level 2 is
    parsed, so it solves (the whole file would not parse)."""
    path = tmp_path / "set.xsb"
    path.write_text("; 1\n#####\n#@$.#\n#####\n\n; 2\n######\n#@$ .#\n######\n\n"
                    "; 3\n#####\n#@$?#\n#####\n")
    code, out, _ = run_cli(capsys, "solve", path, "--level", "2", "--quiet")
    assert code == 0 and out.strip() == "2"   # two pushes to the right: by hand
    code, _, err = run_cli(capsys, "solve", path, "--level", "3")
    assert code == 2 and ":13:4:" in one_clear_line(err)   # line 13, column 4: the "?"


def test_histogram_helper_counts_every_value():
    table = np.array([0, 1, 1, 255], dtype=np.uint8)
    assert histogram(table)[[0, 1, 255]].tolist() == [1, 2, 1]
