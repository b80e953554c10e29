"""The picture commands end to end: ``solve --animate``, ``show``, ``info``
(in process through the CLI's ``main``; one subprocess for the real entry
point), and their errors: one line, exit 2, no traceback, no file left."""

from __future__ import annotations

import subprocess
import sys

import h5py
import numpy as np
import pytest

import pdbsearch
from pdbsearch.cli import main
from pdbsearch.pdb.store import seal

Image = pytest.importorskip("PIL.Image")


def one_error_line(capsys, code: int, *names: str) -> str:
    """The run ended with exit 2 and one error line naming ``names``."""
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pdbsearch: error: "), err
    assert "Traceback" not in err and all(name in lines[0] for name in names)
    return lines[0]


@pytest.fixture(scope="module")
def pdb_file(tmp_path_factory):
    """A small sound PDB file (the relaxed PDB of the classic 4x5 geometry)."""
    folder = tmp_path_factory.mktemp("pdb")
    return pdbsearch.build_pdb("4x5", out=folder / "small.h5").path


def test_solve_animate_gif_subprocess(repo, tmp_path):
    out = tmp_path / "m.gif"
    proc = subprocess.run([sys.executable, "-m", "pdbsearch", "solve",
                           str(repo / "puzzles/sokoban/microban.txt"), "--level", "2",
                           "--animate", str(out), "--json"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    import json
    steps = json.loads(proc.stdout)["steps"]     # stdout stays one JSON object
    with Image.open(out) as im:
        assert im.n_frames == steps + 1
    assert f"drew {steps + 1} frames into {out}" in proc.stderr


@pytest.mark.parametrize("suffix", [".svg", ".html"])
def test_solve_animate_hakoiri(repo, tmp_path, capsys, suffix):
    out = tmp_path / f"classic{suffix}"
    assert main(["solve", str(repo / "puzzles/hakoiri/classic.txt"), "--quiet",
                 "--animate", str(out)]) == 0
    assert capsys.readouterr().out.strip() == "90"
    assert out.read_text().count('<g class="frame"') == 91


def test_show_both_domains(repo, tmp_path, capsys):
    assert main(["show", str(repo / "puzzles/sokoban/microban.txt"), "--level", "4",
                 "-o", str(tmp_path / "m4.png")]) == 0
    assert "sokoban" in capsys.readouterr().out
    assert main(["show", "-o", str(tmp_path / "classic.svg"), "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    with Image.open(tmp_path / "m4.png") as im:
        assert im.format == "PNG"
    assert (tmp_path / "classic.svg").read_text().count('<g class="frame"') == 1


@pytest.mark.parametrize("args", [
    ["solve", "--animate", "{tmp}/out.jpg"],
    ["solve", "--animate", "{tmp}/out"],
    ["show", "-o", "{tmp}/out.txt"],
    ["info", "{pdb}", "--plot", "{tmp}/out.svg"],
    ["compare", "--weights", "1", "--plot", "{tmp}/out.gif"],
])
def test_a_bad_extension_is_refused_before_any_work(args, tmp_path, pdb_file, capsys):
    argv = [a.format(tmp=tmp_path, pdb=pdb_file) for a in args]
    line = one_error_line(capsys, main(argv), str(tmp_path / "out"))
    assert "png" in line or "picture format" in line
    assert capsys.readouterr().out == ""          # nothing solved first
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_path_is_one_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("a file where a folder should be")
    one_error_line(capsys, main(["show", "-o", str(blocker / "x.svg")]), str(blocker))
    one_error_line(capsys, main(["solve", "--quiet", "--animate", str(blocker / "x.svg")]),
                   str(blocker))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_without_pillow_gif_and_png_name_the_extra_and_svg_works(tmp_path, capsys,
                                                                monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)     # import PIL now fails
    line = one_error_line(capsys, main(["show", "-o", str(tmp_path / "x.png")]), "x.png")
    assert "pdbsearch[pictures]" in line
    line = one_error_line(capsys, main(["solve", "--animate", str(tmp_path / "x.gif")]))
    assert "pdbsearch[pictures]" in line and capsys.readouterr().out == ""
    assert main(["show", "-o", str(tmp_path / "x.svg"), "--quiet"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["x.svg"]


def test_import_pdbsearch_stays_light():
    code = ("import sys, pdbsearch; heavy = [m for m in ('numba', 'PIL', 'matplotlib', "
            "'h5py') if m in sys.modules]; print(heavy)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.strip() == "[]", proc.stderr


def test_solve_animate_on_an_unsolved_search_says_so(tmp_path, capsys):
    out = tmp_path / "x.svg"
    assert main(["solve", "--algo", "bfs", "--node-limit", "5", "--quiet",
                 "--animate", str(out)]) == 3
    assert "not drawn" in capsys.readouterr().err and not out.exists()


def test_info_reports_a_sound_file_and_plots_it(pdb_file, tmp_path, capsys):
    png = tmp_path / "hist.png"
    assert main(["info", str(pdb_file), "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "encodes: hakoiri relaxed (straight metric)" in out
    assert "entries 1,440 (1 byte each), maximum 21" in out
    assert "seal: present, matches the file" in out and "checks: all passed" in out
    assert "build time: " in out and "matches the data" in out
    with Image.open(png) as im:
        assert im.format == "PNG" and im.size[0] > 300
    assert main(["info", str(pdb_file), "--json"]) == 0
    import json
    data = json.loads(capsys.readouterr().out)
    assert data["sound"] and data["entries"] == 1440 and data["seal"] == "matching"
    assert sum(data["histogram"].values()) == 1440


def test_info_on_a_damaged_file_reports_the_seal(pdb_file, tmp_path, capsys):
    damaged = tmp_path / "damaged.h5"
    data = bytearray(pdb_file.read_bytes())
    data[-100] ^= 0xFF
    damaged.write_bytes(bytes(data))
    code = main(["info", str(damaged), "--plot", str(tmp_path / "h.png")])
    out = capsys.readouterr().out
    assert code == 2 and "seal: DOES NOT MATCH the file" in out
    one_error_line(capsys, main(["info", str(damaged)]), str(damaged), "seal")
    assert not (tmp_path / "h.png").exists()


def test_info_on_an_edited_resealed_file_reports_the_checksum(pdb_file, tmp_path, capsys):
    edited = tmp_path / "edited.h5"
    edited.write_bytes(pdb_file.read_bytes())
    with h5py.File(edited, "r+") as f:
        table = f["distances"][...]
        table[0] = np.uint8(table[0] + 1)
        f["distances"][...] = table
    seal(edited)   # the seal matches again: the data checks must catch it
    code = main(["info", str(edited)])
    captured = capsys.readouterr()
    assert code == 2
    assert "does NOT match the data" in captured.out
    assert captured.err.count("\n") == 1 and "checksum" in captured.err


@pytest.mark.parametrize("make", ["text", "folder", "missing"])
def test_info_on_a_non_pdb_is_one_line(make, repo, tmp_path, capsys):
    path = {"text": repo / "README.md", "folder": tmp_path,
            "missing": tmp_path / "none.h5"}[make]
    one_error_line(capsys, main(["info", str(path)]), str(path))
