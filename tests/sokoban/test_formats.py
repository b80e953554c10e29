"""Tests of the Sokoban level model and its file formats."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.errors import PuzzleFormatError
from pdbsearch.sokoban import (MAX_BOXES, MAX_SIDE, InvalidLevel, Level, detect_format,
                               format_xsb, format_xsb_collection, load_levels,
                               parse_levels, parse_levels_each, parse_push, parse_seed002,
                               parse_xsb_collection, read_level, select_level)

from .helpers import many_boxes_text

LEVELS = Path(__file__).resolve().parents[2] / "puzzles"
SOKOBAN = LEVELS / "sokoban"
PUSH_SAMPLE = LEVELS / "push" / "sample_map1_only.in"

# Seed 002's map, rows of its C string (list 1 of the article).
SEED002_MAP = """\
*********
*.......*
*.**o**.*
*.@...o.*
**o%%%*.*
**....*.*
****..***
*********
"""


def parse_error(text: str, parser=parse_xsb_collection) -> PuzzleFormatError:
    with pytest.raises(PuzzleFormatError) as info:
        parser(text, "test.txt")
    assert info.value.source == "test.txt"
    return info.value


# -- the bundled level sets ---------------------------------------------------


@pytest.mark.parametrize("name, count, boxes", [
    ("microban.txt", 155, 608),
    ("microban2.txt", 135, 688),
    ("boxoban_hard.txt", 3332, 13328),
    ("holland.txt", 81, 1085),
    ("grigr2002.txt", 40, 325),
    ("sasquatch5.txt", 50, 1463),
])
def test_bundled_sets_parse(name, count, boxes):
    levels = load_levels(SOKOBAN / name)
    # Counts from puzzles/sokoban/README.md.
    assert len(levels) == count
    assert sum(len(level.boxes) for level in levels) == boxes
    for level in levels:
        assert len(level.boxes) == len(level.goals) > 0
        assert level.boxes <= set(level.floor_cells())
        assert level.goals <= set(level.floor_cells())
        assert level.player in level.playable_cells()
        assert level.source == str(SOKOBAN / name)


@pytest.mark.parametrize("name", ["microban.txt", "microban2.txt"])
def test_bundled_sets_round_trip(name):
    levels = load_levels(SOKOBAN / name)
    for level in levels:
        assert parse_xsb_collection(format_xsb(level)) == [level]
    assert parse_xsb_collection(format_xsb_collection(levels)) == levels


def test_microban_titles_and_selection():
    path = SOKOBAN / "microban.txt"
    levels = load_levels(path)
    assert levels[43].title == "Duh!"          # "; 44" then "; Title: Duh!"
    assert levels[0].title is None             # "; 1" is no title
    assert select_level(levels, 44) is levels[43]
    assert select_level(levels, "44") is levels[43]
    assert select_level(levels, "Duh!") is levels[43]
    assert select_level(levels, "  duh! ") is levels[43]
    with pytest.raises(PuzzleFormatError, match="155 levels") as info:
        select_level(levels, 156)
    assert info.value.source == str(path)
    with pytest.raises(PuzzleFormatError, match="155 levels"):
        select_level(levels, 0)
    with pytest.raises(PuzzleFormatError, match="no level titled"):
        select_level(levels, "No such title")
    # Two Microban levels share this title: ask for a number instead.
    with pytest.raises(PuzzleFormatError, match="select one by number"):
        select_level(levels, "from (Original 47)")


# -- XSB ----------------------------------------------------------------------


def test_xsb_single_level_cells():
    level = parse_xsb_collection("  #####\n### $.#\n#+ $*-#\n#######\n")[0]
    assert (level.width, level.height) == (7, 4)
    assert level.player == level.cell(2, 1)
    assert level.goals == {level.cell(1, 5), level.cell(2, 1),
                           level.cell(2, 4)}
    assert level.boxes == {level.cell(1, 4), level.cell(2, 3),
                           level.cell(2, 4)}
    # The blanks left of the first wall are outside, not floor.
    assert not level.is_floor(level.cell(0, 0))
    assert not level.walls[0, 0]
    assert level.floor_cells() == (level.cell(1, 3), level.cell(1, 4),
                                   level.cell(1, 5), level.cell(2, 1),
                                   level.cell(2, 2), level.cell(2, 3),
                                   level.cell(2, 4), level.cell(2, 5))
    assert level.title is None


def test_xsb_ragged_rows_and_floor_marks():
    text = "#####\n#@_$.#\n#-  #\n#####"
    level = parse_xsb_collection(text)[0]
    assert level.width == 6
    # Row 1 is the long one; the cells right of the short rows are outside.
    assert not level.is_floor(level.cell(2, 5))
    assert level.is_floor(level.cell(2, 1))


def test_xsb_titles_comments_and_separators():
    text = """\
; My collection
; Title: not a level title (a file header)
Author: someone

; 1
; Title: First
#####
#@$.#
#####

; 2
#####
#.$@#
#####
Title: Second

Some free text without walls
#####
#@$.#
#####
; 4
#####
#.$@#
#####
"""
    levels = parse_xsb_collection(text, "c.txt")
    # "Some free text without walls" is alone after a blank line, just above
    # its board: a SOK file's title line.
    assert [lv.title for lv in levels] == ["First", "Second", "Some free text without walls",
                                           None]
    assert [lv.source for lv in levels] == ["c.txt"] * 4


def test_xsb_comment_between_boards_keeps_title_for_the_next():
    text = "#####\n#@$.#\n#####\n; 2\n; Title: B\n#####\n#.$@#\n#####\n"
    levels = parse_xsb_collection(text)
    assert [lv.title for lv in levels] == [None, "B"]


def test_xsb_crlf_and_bom():
    text = "\ufeff; Title: T\r\n#####\r\n#@$.#\r\n#####\r\n"
    assert parse_xsb_collection(text)[0].title == "T"


def _big_level(width: int, height: int) -> str:
    rows = ["#" * width]
    rows.append("#@$." + " " * (width - 5) + "#")
    rows += ["#" + " " * (width - 2) + "#"] * (height - 3)
    rows.append("#" * width)
    return "\n".join(rows) + "\n"


def test_size_limit_is_inclusive():
    level = parse_xsb_collection(_big_level(MAX_SIDE, MAX_SIDE))[0]
    assert (level.width, level.height) == (MAX_SIDE, MAX_SIDE)


def test_box_limit_is_inclusive():
    level = parse_xsb_collection(many_boxes_text(MAX_BOXES))[0]
    assert len(level.boxes) == MAX_BOXES


@pytest.mark.parametrize("text, line, column, message", [
    pytest.param("; c\n\n#####\n#$. #\n#####\n", 3, None, "no player",
                 id="no-player"),
    pytest.param("######\n#@$.@#\n#.$  #\n######\n", 2, 5, "2 players",
                 id="two-players"),
    pytest.param("\n\n######\n#@$. #\n# $  #\n######\n", 3, None,
                 "2 boxes but 1 goal;", id="box-goal-count"),
    pytest.param("#####\n#@  #\n#####\n", 1, None, "no boxes",
                 id="no-boxes"),
    pytest.param("#####\n#@$.\n#####\n", 2, 2, "walk out", id="walk-out"),
    pytest.param("#####\n @$.#\n#####\n", 2, 2, "walk out",
                 id="walk-out-left"),
    pytest.param("$ #####\n  #@ .#\n  #####\n", 1, 1, "outside the walls",
                 id="box-outside"),
    pytest.param("; Title: x\n#####\n#@$x.#\n#####\n", 3, 4,
                 "unknown character 'x'", id="unknown-char"),
    pytest.param("#####\n#@$\t.#\n#####\n", 2, 4, "unknown character",
                 id="tab"),
    pytest.param("; nothing here\n\n", None, None, "no XSB level found",
                 id="empty"),
    pytest.param("\n" + _big_level(MAX_SIDE + 1, 5), 2, None,
                 f"limit is {MAX_SIDE} x {MAX_SIDE}", id="too-wide"),
    pytest.param(_big_level(5, MAX_SIDE + 1), 1, None,
                 f"limit is {MAX_SIDE} x {MAX_SIDE}", id="too-high"),
    pytest.param(many_boxes_text(MAX_BOXES + 1), 1, None,
                 f"limit is {MAX_BOXES}", id="too-many-boxes"),
])
def test_xsb_errors(text, line, column, message):
    err = parse_error(text)
    assert message in err.message
    assert (err.line, err.column) == (line, column)


_GOOD = "#####\n#@$.#\n#####\n"


@pytest.mark.parametrize("bad, message", [
    ("#####\n#$. #\n#####\n", "no player"),
    ("######\n#@$.@#\n#.$  #\n######\n", "2 players"),
    ("#####\n#@$.\n#####\n", "walk out"),
    (_big_level(MAX_SIDE + 1, 5), f"limit is {MAX_SIDE} x {MAX_SIDE}"),
    (many_boxes_text(MAX_BOXES + 1), f"limit is {MAX_BOXES}"),
])
def test_each_level_on_its_own(bad, message):
    """``levels`` reads a collection level by level: a level that breaks a
    rule of the model stands in its place with the error the whole parse
    raises, and the levels around it are read."""
    text = "\n".join([_GOOD, "; Title: bad one", bad, _GOOD])
    first, invalid, last = parse_levels_each(text, "set.xsb")
    assert first == last == parse_xsb_collection(_GOOD)[0]
    assert isinstance(invalid, InvalidLevel) and invalid.title == "bad one"
    assert message in invalid.error.message and invalid.error.line >= 5
    with pytest.raises(PuzzleFormatError) as whole:
        parse_xsb_collection(text, "set.xsb")
    assert str(whole.value) == str(invalid.error)


def test_each_level_still_refuses_a_bad_text():
    """A character outside the legend is an error of the text: no level is read."""
    with pytest.raises(PuzzleFormatError, match="unknown character 'x'"):
        parse_levels_each(_GOOD + "\n#####\n#@$x.#\n#####\n")


def test_error_text_has_position():
    err = parse_error("#####\n#@$x.#\n#####\n")
    assert str(err).startswith("test.txt:2:4: unknown character")


# -- Level --------------------------------------------------------------------


ROOM = """\
#######
#@    #
# $## #
#.$ . #
#######
"""


def test_level_helpers():
    level = parse_xsb_collection(ROOM)[0]
    c = level.cell
    assert level.neighbors(c(1, 1)) == [c(1, 2), c(2, 1)]
    assert level.delta("L") == -1 and level.delta("d") == level.width
    reach = level.reachable()
    assert c(3, 3) in reach and c(3, 1) in reach
    # Box at (3, 2) and the wall at (2, 3) do not cut the room in two...
    assert level.normalized_player() == c(1, 1)
    # ... but with boxes on (1, 2) and (2, 1) the player at (1, 1) is stuck.
    assert level.reachable(c(1, 1), {c(1, 2), c(2, 1)}) == {c(1, 1)}
    assert level.normalized_player(c(3, 5), {c(1, 2), c(2, 1)}) == c(1, 3)
    assert not level.is_solved()
    assert level.is_solved({c(3, 1), c(3, 4)})
    assert level.playable_cells() == set(level.floor_cells())


def test_level_is_immutable_and_hashable():
    level = parse_xsb_collection(ROOM)[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        level.player = 0
    with pytest.raises(ValueError):
        level.walls[0, 0] = False
    twin = parse_xsb_collection(ROOM)[0]
    assert level == twin and hash(level) == hash(twin)
    assert level != level.with_state(player=level.cell(1, 2))
    assert level.with_state(boxes=level.goals).is_solved()


def test_direct_construction_is_validated():
    level = parse_xsb_collection(ROOM)[0]
    with pytest.raises(PuzzleFormatError, match="2 boxes but 1 goal;"):
        Level(level.width, level.height, level.walls,
              frozenset([level.cell(3, 1)]), level.boxes, level.player)
    with pytest.raises(PuzzleFormatError, match="on a wall"):
        level.with_state(player=0)


def test_sealed_pocket_is_floor_but_not_playable():
    text = "#######\n#@$.# #\n#######\n"
    level = parse_xsb_collection(text)[0]
    pocket = level.cell(1, 5)
    assert level.is_floor(pocket)
    assert pocket not in level.playable_cells()


def test_format_xsb_with_position():
    level = parse_xsb_collection(ROOM)[0]
    c = level.cell
    text = format_xsb(level, boxes={c(3, 1), c(3, 4)}, player=c(1, 5))
    assert text == "#######\n#    @#\n#  ## #\n#*  * #\n#######\n"
    again = parse_xsb_collection(text)[0]
    assert again.is_solved() and again.player == c(1, 5)
    with pytest.raises(ValueError):
        format_xsb(level, player=0)
    with pytest.raises(ValueError):
        format_xsb(level, player=c(3, 2))


def test_format_xsb_keeps_outside_margins():
    # A right-hand column of outside cells only, and an outside row: both
    # must survive the round trip although blanks are stripped.
    walls = np.zeros((5, 6), dtype=bool)
    walls[1:4, 0:5] = True
    walls[2, 1:4] = False
    level = Level.from_parts(walls, [2 * 6 + 3], [2 * 6 + 2], [2 * 6 + 1],
                             title="margins")
    text = format_xsb(level)
    assert text.startswith("; Title: margins\n")
    assert parse_xsb_collection(text) == [level]


@st.composite
def random_levels(draw):
    """Small walled rooms with random inner walls, pieces and margins."""
    width = draw(st.integers(3, 8))
    height = draw(st.integers(3, 8))
    margin = draw(st.integers(0, 2))
    inner = draw(st.lists(st.booleans(), min_size=width * height,
                          max_size=width * height))
    walls = np.ones((height + 2, width + 2 + margin), dtype=bool)
    walls[:, :margin] = False                       # outside on the left
    free = []
    for i, is_wall in enumerate(inner):
        r, c = divmod(i, width)
        walls[r + 1, c + 1 + margin] = is_wall
        if not is_wall:
            free.append((r + 1) * walls.shape[1] + c + 1 + margin)
    n = draw(st.integers(1, 3))
    if len(free) < n + 1:
        # Not enough room for the pieces: open the whole interior.
        walls[1:-1, margin + 1:-1] = False
        free = [r * walls.shape[1] + c for r in range(1, height + 1)
                for c in range(margin + 1, margin + width + 1)]
    picks = draw(st.permutations(free))
    goals = draw(st.permutations(free))[:n]
    title = draw(st.none() | st.text("abc XYZ!()", min_size=1, max_size=8)
                 .map(str.strip).filter(bool))
    return Level.from_parts(walls, goals, picks[1:n + 1], [picks[0]], title)


@settings(max_examples=150, deadline=None)
@given(random_levels())
def test_xsb_round_trip_property(level):
    assert parse_xsb_collection(format_xsb(level)) == [level]


# -- the Sokoban wiki's variants: letters and run-length encoding ---------------

_LETTERS = str.maketrans({"$": "b", "*": "B", "@": "p", "+": "P"})


def run_length(row: str) -> str:
    """An independent encoder: each run of two or more equal characters as
    its count and the character (the wiki's run-length encoding)."""
    out, i = [], 0
    while i < len(row):
        j = i
        while j < len(row) and row[j] == row[i]:
            j += 1
        out.append((str(j - i) if j - i > 1 else "") + row[i])
        i = j
    return "".join(out)


def _board_rows(level: Level) -> list[str]:
    return [line for line in format_xsb(level, title=False).splitlines()]


@settings(max_examples=150, deadline=None)
@given(random_levels(), st.booleans(), st.booleans())
def test_letters_and_run_length_property(level, one_line, letters):
    """A level written with the letters (b B p P) and/or run-length encoded,
    its rows on lines of their own or joined by '|', reads back equal."""
    rows = [run_length(r) for r in _board_rows(level)]
    if letters:
        rows = [r.translate(_LETTERS) for r in rows]
    text = "|".join(rows) + "\n" if one_line else "\n".join(rows) + "\n"
    parsed = parse_xsb_collection(text)
    assert [dataclasses.replace(lv, title=level.title) for lv in parsed] == [level]
    assert detect_format(text) == "xsb"


# -- SOK files' notes (Sokoban YASC, sokoban.dk) ----------------------------------

SOK_TEXT = """\
::::::::::::::::::::::::::::::::::::::::
::  File notes: levels #1 to #3      ::
::::::::::::::::::::::::::::::::::::::::
Collection: Tests
Level #1 of three, by someone (c) 2026

Title: One
#####
#@$.#
#####
Comment:
###   a board-like line in a note   ###
#####
#@ $.#
#####
Comment-End:

Title: Two
######
#@ $.#
######
Solution
rR
"""


def test_sok_notes_comments_and_text_with_walls_are_not_boards():
    """``::`` lines, a Comment: block (board-like lines and all) and text
    holding ``#`` among words are notes; the boards around them are read,
    with their titles, by the whole parse and by reading one level alone."""
    levels = parse_xsb_collection(SOK_TEXT, "t.sok")
    assert [lv.title for lv in levels] == ["One", "Two"]
    assert [len(lv.boxes) for lv in levels] == [1, 1]
    assert [read_level(SOK_TEXT, "t.sok", n) for n in (1, 2)] == levels
    assert read_level(SOK_TEXT, "t.sok", "two") == levels[1]


def test_sok_title_lines_and_the_title_lines_that_override_them():
    """A line of text alone after a blank line, just above its board, is the
    board's title (SOK's title line); a ``Title:`` line above or below the
    board wins; text that follows other text is a note."""
    board = "#####\n#@$.#\n#####\n"
    text = "\n".join([f"Level A\n{board}",
                      f"2\n{board}Title: Real name\nAuthor: someone\n",
                      f"Title: Given\nLevel C\n{board}",
                      f"a note\nLevel D\n{board}",
                      f"; 5\n{board}"])
    levels = parse_xsb_collection(text, "t.sok")
    assert [lv.title for lv in levels] == ["Level A", "Real name", "Given", None, None]
    for n, level in enumerate(levels, start=1):
        if level.title is not None:
            assert read_level(text, "t.sok", level.title.upper()) == level
            assert select_level(levels, level.title) == level
        assert read_level(text, "t.sok", n) == level


def test_a_comment_block_that_never_ends_is_refused_at_its_line():
    text = SOK_TEXT.replace("Comment-End:\n", "")
    err = parse_error(text)
    assert "never ends" in err.message and err.line == 11


@pytest.mark.parametrize("row, column", [("#@$x.#", 4), ("#@$.#x", 6), ("#P$.#p", None)])
def test_a_lone_stray_letter_in_a_row_is_still_an_error(row, column):
    """Only a word (two letters, not both of p P b B) makes a line text: a
    board row with one stray letter is still refused at the letter."""
    text = f"#####\n{row}\n#####\n"
    if column is None:
        with pytest.raises(PuzzleFormatError, match="2 players"):
            parse_xsb_collection(text)
        return
    err = parse_error(text)
    assert "unknown character" in err.message and (err.line, err.column) == (2, column)


_NOTE_WORDS = st.text("abcxyzLRUD#@$.*:;0123456789()", min_size=2, max_size=6)


@settings(max_examples=100, deadline=None)
@given(st.lists(random_levels(), min_size=1, max_size=3),
       st.lists(st.lists(_NOTE_WORDS, min_size=1, max_size=4), min_size=3, max_size=3),
       st.booleans())
def test_notes_between_levels_change_no_level_property(levels, notes, as_comment_block):
    """Between the levels of a collection, any notes: lines of words that
    may hold walls, boxes and goals (each note has a word in it), ``::``
    lines, or the same in a Comment: block.  The levels read are the same."""
    parts = []
    for level, words in zip(levels, notes):
        note = " ".join(["note", *words])
        lines = [note, ":: " + note]
        if as_comment_block:
            lines = ["Comment:", *lines, format_xsb(level, title=False).rstrip(), "Comment-End:"]
        parts.append("\n".join(lines) + "\n\n" + format_xsb(level, title=False))
    text = "\n".join(parts)
    parsed = parse_xsb_collection(text)
    assert [dataclasses.replace(lv, title=None) for lv in parsed] == \
        [dataclasses.replace(lv, title=None) for lv in levels]
    assert [read_level(text, "x", n) for n in range(1, len(levels) + 1)] == parsed


def test_run_length_collection_by_number_and_title():
    """A collection mixing plain and encoded levels: reading one level (the
    quick scan's path) agrees with the whole parse."""
    from pdbsearch.domains import detect_domain
    from pdbsearch.sokoban.formats import read_level
    plain = parse_xsb_collection(ROOM)[0]
    encoded = "|".join(run_length(r) for r in _board_rows(plain))
    text = f"; 1\n{ROOM}\nTitle: second\n{encoded}\n\n; 3\n{ROOM.translate(_LETTERS)}"
    levels = parse_xsb_collection(text)
    assert len(levels) == 3 and levels[1].title == "second"
    assert all(dataclasses.replace(lv, title=None) == plain for lv in levels)
    for n in (1, 2, 3):
        assert read_level(text, "x", n) == levels[n - 1]
    assert read_level(text, "x", "second") == levels[1]
    # '5#' alone is also a sliding-tile number with a '#' comment: the
    # encoded rows with the player or a box in them decide.
    assert detect_domain(encoded) == "sokoban"
    assert detect_domain("\n".join(run_length(r) for r in _board_rows(plain))) == "sokoban"


@pytest.mark.parametrize("text, line, column, message", [
    pytest.param("7#|#@2 $.#|99#\n", 1, 12, "a run of 99 cells", id="run-too-long"),
    pytest.param("7#|#@2 $.#|" + "9" * 5000 + "#\n", 1, 12, "cells is longer", id="huge-count"),
    pytest.param("7#|#@2 $.#|7\n", 1, 12, "count 7 is not followed", id="count-at-end"),
    pytest.param("7#\n#@2|$.#\n7#\n", 2, 3, "count 2 is not followed", id="count-before-bar"),
    pytest.param("7#\n#@2x$.#\n7#\n", 2, 4, "unknown character 'x'", id="unknown-in-run"),
    pytest.param("7#|#@2 $.#|#6 |7#\n", 1, 2, "edge at line 1, column 7", id="cell-error-decoded-column"),
])
def test_run_length_errors(text, line, column, message):
    err = parse_error(text)
    assert message in err.message
    assert (err.line, err.column) == (line, column)


# -- Push!! -------------------------------------------------------------------


def test_push_sample():
    levels = load_levels(PUSH_SAMPLE)
    assert len(levels) == 1
    level = levels[0]
    assert (level.width, level.height) == (7, 7)   # the border is added
    assert level.player == level.cell(2, 1)
    assert level.boxes == {level.cell(2, 2)}
    assert level.goals == {level.cell(4, 5)}
    assert level.walls[0].all() and level.walls[:, 0].all()


TWO_MAPS = """\
3 1
4 2 3
2 2

4 2
3 1
0 0
"""


def test_push_several_maps_and_terminator():
    levels = parse_push(TWO_MAPS)
    assert [(lv.width, lv.height) for lv in levels] == [(5, 3), (4, 4)]
    # Lenient: no "0 0" at the end of the text is accepted.
    assert parse_push(TWO_MAPS.replace("0 0\n", "")) == levels


@pytest.mark.parametrize("text, line, column, message", [
    pytest.param("3 1\n4 2 3\n7\n", 3, 1, "map header", id="bad-header"),
    pytest.param("3 x\n4 2 3\n0 0\n", 1, 3, "must be an integer",
                 id="non-integer-size"),
    pytest.param("3 1\n4 5 3\n0 0\n", 2, 3, "map cell value 5",
                 id="bad-value"),
    pytest.param("3 1\n4 2 a\n0 0\n", 2, 5, "must be an integer",
                 id="non-integer-cell"),
    pytest.param("3 2\n4 2 3\n0 0\n0 0\n", 3, None, "has 2 values",
                 id="short-row"),
    pytest.param("3 1\n4 2 3 0\n0 0\n", 2, 7, "has 4 values",
                 id="long-row"),
    pytest.param("\n3 3\n4 2 3\n0 0 0\n", 2, None, "cut short",
                 id="truncated"),
    pytest.param("4 1\n4 2 3 2\n0 0\n", 2, 7, "second box",
                 id="two-boxes"),
    pytest.param("3 1\n4 2 0\n0 0\n", 1, None, "no goal", id="no-goal"),
    pytest.param("3 1\n0 2 3\n0 0\n", 1, None, "no player",
                 id="no-player"),
    pytest.param("3 1\n4 2 3\n0 0\n3 1\n", 4, None, "after the terminating",
                 id="after-terminator"),
    pytest.param("0 0\n", None, None, "no Push!! map", id="no-map"),
    pytest.param(f"{MAX_SIDE - 1} 1\n", 1, None, "out of range",
                 id="too-wide"),
])
def test_push_errors(text, line, column, message):
    err = parse_error(text, parse_push)
    assert message in err.message
    assert (err.line, err.column) == (line, column)


# -- seed 002 -----------------------------------------------------------------


def test_seed002_map():
    assert detect_format(SEED002_MAP) == "seed002"
    level = parse_levels(SEED002_MAP, "seed002")[0]
    assert (level.width, level.height) == (9, 8)
    assert level.player == level.cell(3, 2)
    assert len(level.boxes) == len(level.goals) == 3
    assert level.goals == {level.cell(4, c) for c in (3, 4, 5)}
    # Same level, written in XSB and read back.
    assert parse_xsb_collection(format_xsb(level)) == [level]


def test_seed002_box_on_goal_and_player_on_goal():
    level = parse_seed002("*****\n*+Go*\n*...*\n*****\n")[0]
    assert level.player in level.goals
    assert level.cell(1, 2) in level.boxes & level.goals


def test_seed002_unknown_character():
    err = parse_error("*****\n*@o#%*\n*****\n", parse_seed002)
    assert (err.line, err.column) == (2, 4)


# -- sniffing -----------------------------------------------------------------


@pytest.mark.parametrize("text, fmt", [
    ("5 5\n0 0 0 0 0\n", "push"),
    ("\n 3 1 \n4 2 3\n0 0\n", "push"),
    ("; Title: Boo\n#####\n#@$.#\n#####\n", "xsb"),
    ("#####\n#@*.#\n#####\n", "xsb"),                 # '*' = box on goal
    (SEED002_MAP, "seed002"),
    ("; Title: Good\n*****\n*@o%*\n*****\n", "seed002"),
    ("#####\n#@o%#\n#####\n", "xsb"),                 # '#' walls: XSB
])
def test_detect_format(text, fmt):
    assert detect_format(text) == fmt


def test_load_levels_detects_and_names_the_file(tmp_path):
    path = tmp_path / "map.txt"
    path.write_text(SEED002_MAP)
    assert load_levels(path)[0].source == str(path)
    bad = tmp_path / "bad.xsb"
    bad.write_bytes(b"#####\n#@$\xff.#\n#####\n")
    with pytest.raises(PuzzleFormatError) as info:
        load_levels(bad)
    assert (info.value.source, info.value.line, info.value.column) == (
        str(bad), 2, 4)
    with pytest.raises(ValueError, match="unknown level format"):
        parse_levels("#####", fmt="sok")


# -- encodings --------------------------------------------------------------------

#: A level whose title is Windows-1252 (``é``, and ``’``, a byte Latin-1
#: leaves as a control character), as many older collections are.
WINDOWS_1252 = "Title: Café’s\n#####\n#@$.#\n#####\n".encode("cp1252")


@pytest.mark.parametrize("data, title", [
    (WINDOWS_1252, "Café’s"),
    ("Title: Café’s\n#####\n#@$.#\n#####\n".encode("utf-8"), "Café’s"),
    (b"\xef\xbb\xbf; Title: With a mark\n#####\n#@$.#\n#####\n", "With a mark"),
    ("Title: Café’s\r\n#####\r\n#@$.#\r\n#####\r\n".encode("utf-16"), "Café’s"),
    ("\ufeffTitle: Café’s\n#####\n#@$.#\n#####\n".encode("utf-16-be"), "Café’s"),
])
def test_files_in_utf8_utf16_or_windows_1252_read_right(tmp_path, data, title):
    from pdbsearch.api import load
    path = tmp_path / "level.xsb"
    path.write_bytes(data)
    assert load_levels(path)[0].title == title
    assert load(path).level.title == title       # the command line's reader


def test_a_byte_windows_1252_does_not_define_is_named_in_a_board(tmp_path):
    bad = tmp_path / "bad.xsb"
    bad.write_bytes(b"#####\n#@$\x81.#\n#####\n")    # 0x81: undefined in cp1252
    with pytest.raises(PuzzleFormatError) as info:
        load_levels(bad)
    assert (info.value.line, info.value.column) == (2, 4)


@settings(max_examples=400, deadline=None)
@given(st.text("#$.*@+ -_pPbBoGxyzLv%;:\t0123456789|", min_size=1, max_size=14),
       st.sampled_from(["xsb", "seed002"]))
def test_the_quick_scan_takes_a_line_for_a_row_as_the_parser_does(line, fmt):
    """The one-level scan's regular expression and the parser agree on
    every non-blank line: board row, or note."""
    import re

    from pdbsearch.sokoban.gridformat import GRID_FORMATS, is_board_row
    from pdbsearch.sokoban.gridscan import _row_pattern
    legend, wall, _ = GRID_FORMATS[fmt]
    if not line.strip():
        return
    scanned = re.fullmatch(_row_pattern(legend, wall), line) is not None
    assert scanned == is_board_row(line.rstrip(), legend, wall)
