"""SLC (XML) level collections: read as the same levels as their XSB text,
and every fault reported at its line and column in the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdbsearch.cli import main
from pdbsearch.domains import detect_domain
from pdbsearch.errors import PuzzleFormatError
from pdbsearch.sokoban.formats import (InvalidLevel, detect_format, load_levels,
                                       parse_levels, parse_levels_each, parse_slc,
                                       parse_xsb_collection, read_level)

from .slcfiles import slc_text, xsb_rows

MICROBAN = Path(__file__).resolve().parents[2] / "puzzles" / "sokoban" / "microban.txt"


def test_microban_as_slc_reads_as_the_same_levels():
    """All 155 levels written as SLC come back equal to the XSB parse, titles included."""
    levels = load_levels(MICROBAN)
    text = slc_text([(level.title or f"Microban {n}", xsb_rows(level))
                     for n, level in enumerate(levels, start=1)])
    again = parse_slc(text, "microban.slc")
    assert len(again) == len(levels) == 155
    for n, (old, new) in enumerate(zip(levels, again), start=1):
        assert (new.walls == old.walls).all()
        assert (new.goals, new.boxes, new.player) == (old.goals, old.boxes, old.player)
        assert new.title == (old.title or f"Microban {n}")
    assert detect_format(text) == "slc" and detect_domain(text) == "sokoban"
    assert parse_levels(text) == again == parse_levels_each(text)
    assert read_level(text, "x.slc", 17) == again[16]
    assert read_level(text, "x.slc", again[40].title) == again[40]


def test_rows_keep_their_leading_blanks_and_ragged_ends():
    rows = ["  ####", "###  #", "#@ $ #", "#  .##", "#####"]
    level, = parse_slc(slc_text([("ragged", rows)]))
    assert level == parse_xsb_collection("; Title: ragged\n" + "\n".join(rows))[0]


def test_a_byte_order_mark_blanks_and_a_latin1_file(tmp_path):
    """A Latin-1 file says so in its declaration; the bytes are decoded as
    pdbsearch decodes every level file, and the title comes out right."""
    text = slc_text([("Caf\u00e9", ["#####", "#@$.#", "#####"])],
                    declaration='<?xml version="1.0" encoding="ISO-8859-1"?>')
    path = tmp_path / "latin1.slc"
    path.write_bytes(text.encode("latin-1"))
    level, = load_levels(path)
    assert level.title == "Caf\u00e9"
    assert detect_format("\ufeff \n" + text) == "slc"
    assert parse_slc("\ufeff" + text)[0] == level


def _error(text: str) -> PuzzleFormatError:
    with pytest.raises(PuzzleFormatError) as err:
        parse_levels(text, "bad.slc")
    assert err.value.source == "bad.slc"
    return err.value


_ROWS = ["#####", "#@$.#", "#####"]


def _at(text: str, needle: str, skip: int = 0) -> tuple[int, int]:
    """The 1-based (line, column) of ``needle`` in ``text`` (after ``skip`` characters)."""
    index = text.index(needle, skip)
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def test_a_character_outside_the_legend_is_named_at_its_column():
    text = slc_text([("a", _ROWS), ("b", ["#####", "#@$x.#", "#####"])])
    err = _error(text)
    assert "unknown character 'x'" in err.message
    assert (err.line, err.column) == _at(text, "x.#")


def test_a_cell_fault_is_named_at_its_column():
    """The second player: found by the level's checks, placed in the file."""
    text = slc_text([("two men", ["######", "#@$.@#", "######"])])
    err = _error(text)
    assert "2 players" in err.message
    assert (err.line, err.column) == _at(text, "@#")


@pytest.mark.parametrize("text, needle, message", [
    (slc_text([("a", _ROWS)]).replace("</Level>", "</Levl>"), "</Levl>", "mismatched tag"),
    ('<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY a "aaa">]>\n<x>&a;</x>\n',
     '<!ENTITY a "aaa">', "declares an XML entity"),
    ("<SokobanLevels>\n<Level Id=\"a\">\n<Level>\n", "<Level>", "inside another <Level>"),
    ("<SokobanLevels>\n<L>#####</L>\n</SokobanLevels>\n", "<L>", "outside any <Level>"),
    ("<SokobanLevels>\n<Level Id=\"a\">\n<L>####\n#</L></Level>\n</SokobanLevels>\n",
     "####", "breaks over several lines"),
])
def test_faults_of_the_xml_are_named_where_they_are(text, needle, message):
    err = _error(text)
    assert message in err.message
    line, column = _at(text, needle)
    assert err.line == line
    # expat reports some faults at the start of the construct, some just inside it
    assert column <= err.column <= column + len(needle)


@pytest.mark.parametrize("text, message, line", [
    ("<SokobanLevels><Title>empty</Title></SokobanLevels>\n", "no SLC level found", None),
    ("<SokobanLevels>\n<Level Id=\"n\">\n</Level>\n</SokobanLevels>\n",
     "the level 'n' has no <L> board rows", 2),
])
def test_a_file_without_boards_says_so(text, message, line):
    err = _error(text)
    assert message in err.message and err.line == line


def test_levels_reads_the_good_levels_around_a_bad_one():
    text = slc_text([("one", _ROWS), ("bad", ["#####", "#$. #", "#####"]), ("three", _ROWS)])
    first, bad, last = parse_levels_each(text, "set.slc")
    assert isinstance(bad, InvalidLevel) and bad.title == "bad"
    assert "no player" in bad.error.message
    assert first.title == "one" and last.title == "three"
    assert first.boxes == last.boxes


def test_solve_and_levels_read_an_slc_file(tmp_path, capsys):
    """Through the command line: a level chosen by its Id, ``--format slc``, and ``levels``."""
    path = tmp_path / "two.slc"
    path.write_text(slc_text([("First one", _ROWS),
                              ("Second", ["######", "#@ $.#", "######"])]))
    db = ["--db-dir", str(tmp_path / "db")]
    assert main(["solve", str(path), "--level", "second", "--algo", "bfs", "--json", *db]) == 0
    out = capsys.readouterr().out
    assert '"lurd": "rR"' in out.replace(" ", "").replace('":"', '": "')
    assert main(["solve", str(path), "--format", "slc", "--algo", "bfs", "--quiet", *db]) == 0
    capsys.readouterr()
    assert main(["levels", str(path), "--algo", "bfs", *db]) == 0
    out = capsys.readouterr().out
    assert "solved 2/2" in out and "First one" in out and "Second" in out
    bad = tmp_path / "bad.slc"
    bad.write_text(slc_text([("a", _ROWS)]).replace("</L>", "</l>", 1))
    assert main(["solve", str(bad), *db]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pdbsearch: error: {bad}:") and "mismatched tag" in err
    assert "Traceback" not in err
