"""The files: GIF and PNG open in Pillow with a frame per position, SVG and
HTML parse and hold a frame per position, limits and timing behave."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdbsearch
from pdbsearch.pictures.frame import Block, Film, Frame, Scene
from pdbsearch.pictures.layout import (FIRST_MS, LAST_MS, MAX_FRAMES, MIN_LETTER_CELL,
                                       durations, layout_for, thinned)

Image = pytest.importorskip("PIL.Image")

SVG = "{http://www.w3.org/2000/svg}"


def svg_frames(text: str) -> list[ET.Element]:
    """The frame groups of an SVG document (parsed: it must be well formed)."""
    root = ET.fromstring(text)
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "frame"]


@pytest.mark.parametrize("domain", ["hakoiri", "sokoban"])
def test_gif_has_a_frame_per_position_and_holds_the_last(solved, domain, tmp_path):
    puzzle, result = solved[domain]
    positions = len(result.moves) + 1 if domain == "hakoiri" else result.extra["steps"] + 1
    path = tmp_path / "solution.gif"
    drawing = pdbsearch.animate(puzzle, result, path)
    assert drawing.frames == drawing.positions == positions and drawing.notes == []
    with Image.open(path) as im:
        assert im.format == "GIF" and im.n_frames == positions
        first = im.info["duration"]
        im.seek(im.n_frames - 1)
        assert im.info["duration"] == LAST_MS > first
        assert im.convert("RGB").size[0] >= 360     # wide enough for the caption
    assert [p.name for p in tmp_path.iterdir()] == ["solution.gif"]  # no temporary left


@pytest.mark.parametrize("domain", ["hakoiri", "sokoban"])
@pytest.mark.parametrize("suffix", [".svg", ".html"])
def test_svg_and_html_have_a_frame_per_position(solved, domain, suffix, tmp_path):
    puzzle, result = solved[domain]
    film = puzzle.solution_film(result.steps)
    path = tmp_path / f"solution{suffix}"
    pdbsearch.animate(puzzle, result, path)
    text = path.read_text()
    if suffix == ".html":
        assert text.startswith("<!DOCTYPE html>") and "<script>" in text
        assert not re.search(r"""(src|href)\s*=""", text)   # self-contained
        text = text[text.index("<svg"):text.index("</svg>") + 6]
    frames = svg_frames(text)
    assert len(frames) == len(film.frames)
    assert [g.get("data-caption") for g in frames] == [f.caption for f in film.frames]
    # the last frame shows without SMIL (and the HTML player's script)
    assert [g.get("visibility") for g in frames].count("visible") == 1
    assert frames[-1].get("visibility") == "visible"
    animations = [g.find(f"{SVG}animate") for g in frames]
    assert all((a is not None) == (suffix == ".svg") for a in animations)


def test_show_draws_both_domains(solved, tmp_path):
    for domain, (puzzle, _) in solved.items():
        png = tmp_path / f"{domain}.png"
        drawing = pdbsearch.show(puzzle, png)
        assert drawing.frames == 1
        with Image.open(png) as im:
            assert im.format == "PNG" and im.size[0] >= 360
            colours = im.convert("RGB").getcolors(maxcolors=1 << 16)
            assert len(colours) > 5      # a picture, not a blank
        svg = tmp_path / f"{domain}.svg"
        pdbsearch.show(puzzle, svg)
        (frame,) = svg_frames(svg.read_text())
        assert frame.get("data-caption") == "start"


def test_piece_letters_are_escaped(tmp_path):
    board = tmp_path / "symbols.txt"
    board.write_text("exit: 1 2\nAA<\nAA&\n>..\n...\n")
    puzzle = pdbsearch.load(board, heuristic="zero")
    result = pdbsearch.solve(puzzle)
    pdbsearch.animate(puzzle, result, tmp_path / "s.svg")
    frames = svg_frames((tmp_path / "s.svg").read_text())
    assert len(frames) == len(result.moves) + 1
    letters = {t.text for t in frames[0].iter(f"{SVG}text")}
    assert {"<", "&", ">"} <= letters


def _film(width: int, height: int, frames: int) -> Film:
    scene = Scene(width, height, floor=frozenset((x, y) for x in range(width)
                                                 for y in range(height)))
    block = Block(0, "A", ((0, 0),))
    return Film(scene, tuple(Frame((block,), f"{i}") for i in range(frames)))


def test_a_huge_board_gets_small_cells_and_says_so(tmp_path):
    small, huge = layout_for(_film(4, 5, 1)), layout_for(_film(64, 64, 1))
    assert small.notes == [] and small.letters
    assert huge.cell * 64 <= 720 and not huge.letters and huge.cell < MIN_LETTER_CELL
    assert "64x64" in huge.notes[0] and "without letters" in huge.notes[0]
    heard = []
    from pdbsearch.pictures.animate import _draw
    drawing = _draw(_film(64, 64, 3), "gif", tmp_path / "huge.gif", heard.append)
    assert drawing.cell == huge.cell and heard and "64x64" in heard[0]
    with Image.open(tmp_path / "huge.gif") as im:
        assert im.n_frames == 3 and max(im.size) <= 720 + 40


def test_a_very_long_solution_keeps_every_kth_frame_and_the_last():
    film = _film(4, 4, 3 * MAX_FRAMES + 7)
    kept, notes = thinned(film)
    assert len(kept.frames) <= MAX_FRAMES
    assert kept.frames[0] == film.frames[0] and kept.frames[-1] == film.frames[-1]
    assert "every 4th frame" in notes[0]
    assert thinned(_film(4, 4, 10)) == (_film(4, 4, 10), [])


@settings(max_examples=60, deadline=None)
@given(count=st.integers(min_value=1, max_value=20 * MAX_FRAMES),
       pixels=st.one_of(st.none(), st.integers(min_value=10_000, max_value=2_000_000)))
def test_thinning_and_timing_properties(count, pixels):
    """Any film: first and last frames kept, in order, within the limits;
    timing in 10 ms steps, the ends held longest, a long film well under
    two minutes."""
    film = _film(2, 2, count)
    kept, notes = thinned(film, pixels)
    n = len(kept.frames)
    assert kept.frames[0] == film.frames[0] and kept.frames[-1] == film.frames[-1]
    order = [int(f.caption) for f in kept.frames]
    assert order == sorted(set(order))
    assert n <= MAX_FRAMES and (bool(notes) == (n < count))
    times = durations(n)
    assert len(times) == n and all(t % 10 == 0 and t > 0 for t in times)
    if n > 1:
        assert times[0] == FIRST_MS and times[-1] == LAST_MS == max(times)
        assert sum(times) <= 90_000
