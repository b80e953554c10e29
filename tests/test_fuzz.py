"""Fuzzing every parser and file loader (hypothesis).

The contract: a malformed input raises the declared error
(:class:`PuzzleFormatError` for puzzle texts, :class:`PdbFileError` for
database files) and nothing else; an input that is accepted satisfies the
model's invariants.  The default run takes seconds; ``-m slow`` runs the
long one (CI runs both).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdbsearch.domains import detect_domain
from pdbsearch.errors import PdbFileError, PuzzleFormatError
from pdbsearch.fifteen.formats import parse_board as parse_fifteen_board
from pdbsearch.hakoiri.builtin import CLASSIC_TEXT
from pdbsearch.hakoiri.formats import parse_board
from pdbsearch.hakoiri.model import Shape
from pdbsearch.sokoban.formats import InvalidLevel, parse_levels, parse_levels_each, read_level
from pdbsearch.sokoban.model import Level

from .sokoban.slcfiles import slc_text, xsb_rows

PUZZLES = Path(__file__).resolve().parents[1] / "puzzles"
MICROBAN = (PUZZLES / "sokoban" / "microban.txt").read_text()
PUSH_SAMPLE = (PUZZLES / "push" / "sample_map1_only.in").read_text()
#: characters mutations draw from: every format's own, and a few strangers
ALPHABET = "#$.*@+ -_\n\t;:0123456789xXoG%ABCDEFabexitpP|\u00b2\u0661\r\x0c\ufeff?"
#: and the characters of XML
XML_ALPHABET = ALPHABET + "<>/=\"'&!L"


def _run_length(line: str) -> str:
    """A board row run-length encoded (other lines unchanged)."""
    if "#" not in line or line.lstrip().startswith(";"):
        return line
    return re.sub(r"(.)\1+", lambda m: f"{len(m.group())}{m.group(1)}", line)


#: Microban with its board rows run-length encoded (the Sokoban wiki's variant)
MICROBAN_RLE = "\n".join(_run_length(line) for line in MICROBAN.splitlines())

QUICK = settings(max_examples=150, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])
LONG = settings(max_examples=1500, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def mutate(text: str, seed: int, edits: int, alphabet: str = ALPHABET) -> str:
    """``text`` with ``edits`` random insertions, deletions, replacements
    (of characters of ``alphabet``), line duplications and digit blow-ups."""
    rng = random.Random(seed)
    chars = list(text)
    for _ in range(edits):
        kind = rng.randrange(5)
        i = rng.randrange(len(chars) + 1)
        if kind == 0:
            chars.insert(i, rng.choice(alphabet))
        elif kind == 1 and chars:
            del chars[min(i, len(chars) - 1)]
        elif kind == 2 and chars:
            chars[min(i, len(chars) - 1)] = rng.choice(alphabet)
        elif kind == 3:
            lines = "".join(chars).split("\n")
            j = rng.randrange(len(lines))
            lines.insert(j, lines[j])
            chars = list("\n".join(lines))
        else:
            chars[i:i] = list(str(rng.randrange(10)) * rng.choice([1, 3, 50, 5000]))
    return "".join(chars)


def check_board(board) -> None:
    """A parsed Hakoiri board keeps the model's promises."""
    assert 2 <= board.width <= 64 and 2 <= board.height <= 64
    assert sum(p.shape is Shape.SQUARE for p in board.pieces) == 1
    cells = [c for p in board.pieces for c in p.cells()]
    assert len(cells) == len(set(cells))
    assert all(board.inside(x, y) for x, y in cells)
    assert board.empty_cells()
    x, y = board.exit
    assert 0 <= x <= board.width - 2 and 0 <= y <= board.height - 2


def check_level(level: Level) -> None:
    """A parsed Sokoban level keeps the model's promises."""
    assert 0 < len(level.boxes) == len(level.goals)
    floor = set(level.floor_cells())
    assert level.boxes <= floor and level.goals <= floor and level.player in floor
    assert level.player not in level.boxes


def parsed_or_refused(parse, text: str, source: str, *args):
    """``parse(text, source, *args)``, or None when it refuses the text with
    a short :class:`PuzzleFormatError` naming ``source`` (anything else fails)."""
    try:
        return parse(text, source, *args)
    except PuzzleFormatError as exc:
        assert exc.source == source and len(str(exc)) < 400
        return None


def hakoiri_case(seed: int, edits: int) -> None:
    board = parsed_or_refused(parse_board, mutate(CLASSIC_TEXT, seed, edits), "fuzz.txt")
    if board is not None:
        check_board(board)


def sokoban_case(seed: int, edits: int) -> None:
    rng = random.Random(seed)
    source = MICROBAN if rng.random() < 0.5 else MICROBAN_RLE
    start = rng.randrange(0, len(source) - 600)
    check_collection(mutate(source[start:start + 600], seed, edits), "fuzz.xsb")


#: Microban's first six levels as an SLC (XML) file
MICROBAN_SLC = slc_text([(level.title, xsb_rows(level))
                         for level in parse_levels(MICROBAN)[:6]])


def slc_case(seed: int, edits: int) -> None:
    check_collection(mutate(MICROBAN_SLC, seed, edits, XML_ALPHABET), "fuzz.slc")


def check_collection(text: str, source: str) -> None:
    """A level text parses into valid levels or raises a short
    :class:`PuzzleFormatError` naming ``source``; one level read alone and
    the levels read one by one agree with the whole parse."""
    detect_domain(text)
    whole_error = None
    try:
        levels = parse_levels(text, source)
    except PuzzleFormatError as exc:
        assert exc.source == source and len(str(exc)) < 400
        levels, whole_error = None, str(exc)
    for level in levels or []:
        check_level(level)
    # Reading one level alone agrees with the whole parse wherever that works.
    for n in range(1, len(levels or []) + 1):
        assert read_level(text, source, n) == levels[n - 1]
    # Level by level (``levels``): the same levels where the whole parse
    # works; else the first invalid level carries the whole parse's error,
    # or the text itself is refused with it.
    try:
        each = parse_levels_each(text, source)
    except PuzzleFormatError as exc:
        assert str(exc) == whole_error
        return
    bad = [lv for lv in each if isinstance(lv, InvalidLevel)]
    if levels is not None:
        assert each == levels
    else:
        assert bad and str(bad[0].error) == whole_error
    for level in each:
        if not isinstance(level, InvalidLevel):
            check_level(level)


#: an 8-puzzle with its own goal (blank last), the sliding-tile text mutated
EIGHT_WITH_GOAL = "# blank last\n1 2 3\n4 0 5\n7 8 6\ngoal:\n1 2 3\n4 5 6\n7 8 0\n"


def fifteen_case(seed: int, edits: int) -> None:
    text = mutate(EIGHT_WITH_GOAL, seed, edits, ALPHABET + "goal")
    detect_domain(text)
    board = parsed_or_refused(parse_fifteen_board, text, "fuzz.txt")
    if board is not None:
        assert sorted(board.tiles) == sorted(board.target) == list(range(board.cells))
        assert board.is_solvable()


def push_case(seed: int, edits: int) -> None:
    levels = parsed_or_refused(parse_levels, mutate(PUSH_SAMPLE * 2, seed, edits), "fuzz.in",
                               "push")
    for level in levels or []:
        check_level(level)


@QUICK
@given(seed=st.integers(0, 2**32), edits=st.integers(1, 8))
def test_hakoiri_boards(seed, edits):
    hakoiri_case(seed, edits)


@QUICK
@given(seed=st.integers(0, 2**32), edits=st.integers(1, 8))
def test_sokoban_levels(seed, edits):
    sokoban_case(seed, edits)


@QUICK
@given(seed=st.integers(0, 2**32), edits=st.integers(1, 8))
def test_sliding_tile_boards(seed, edits):
    fifteen_case(seed, edits)


@QUICK
@given(seed=st.integers(0, 2**32), edits=st.integers(1, 8))
def test_slc_collections(seed, edits):
    slc_case(seed, edits)


@QUICK
@given(seed=st.integers(0, 2**32), edits=st.integers(1, 6))
def test_push_maps(seed, edits):
    push_case(seed, edits)


@pytest.fixture(scope="module")
def small_pdb(tmp_path_factory):
    from pdbsearch.hakoiri.database import build_relaxed, relaxed_spec, verify_relaxed
    from pdbsearch.pdb.store import save_pdb
    spec = relaxed_spec(3, 4, (1, 2), 1, "straight")
    table = build_relaxed(spec)[0]
    path = tmp_path_factory.mktemp("pdb") / "small.h5"
    save_pdb(path, table, spec, 0.1)
    return spec, table, path.read_bytes(), (lambda t: verify_relaxed(spec, t))


def pdb_case(small_pdb, tmp_path, seed: int, flips: int) -> None:
    from pdbsearch.pdb.store import load_pdb
    spec, table, data, verify = small_pdb
    rng = random.Random(seed)
    damaged = bytearray(data)
    for _ in range(flips):
        i = rng.randrange(len(damaged))
        damaged[i] = rng.randrange(256)
    if rng.random() < 0.2:
        damaged = damaged[:rng.randrange(len(damaged))]
    path = tmp_path / f"fuzz{seed}.h5"
    path.write_bytes(bytes(damaged))
    try:
        loaded, _ = load_pdb(path, spec, verify)
    except PdbFileError as exc:
        assert str(path) in str(exc)
        return
    assert np.array_equal(loaded, table)   # accepted only if it is the table


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), flips=st.integers(1, 6))
def test_pdb_files(small_pdb, tmp_path, seed, flips):
    pdb_case(small_pdb, tmp_path, seed, flips)


@pytest.mark.slow
@LONG
@given(seed=st.integers(0, 2**32), edits=st.integers(1, 20), kind=st.sampled_from("hspxf"))
def test_parsers_long_run(seed, edits, kind):
    {"h": hakoiri_case, "s": sokoban_case, "p": push_case, "x": slc_case,
     "f": fifteen_case}[kind](seed, edits)


@pytest.mark.slow
@settings(max_examples=600, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), flips=st.integers(1, 20))
def test_pdb_files_long_run(small_pdb, tmp_path, seed, flips):
    pdb_case(small_pdb, tmp_path, seed, flips)


@settings(max_examples=18, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), edits=st.integers(1, 6), which=st.sampled_from("hsf"))
def test_the_command_line_never_fails_with_a_traceback(tmp_path, capsys, seed, edits, which):
    """Mutated files through ``pdbsearch solve``: exit 0, 2, 3 or 4 with a
    clear message, never 1 (an internal error)."""
    from pdbsearch.cli import main
    text = mutate({"h": CLASSIC_TEXT, "s": MICROBAN[:400], "f": EIGHT_WITH_GOAL}[which],
                  seed, edits)
    path = tmp_path / f"case{seed}.txt"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    heuristic = "manhattan" if which == "f" else "simple"
    code = main(["solve", str(path), "--time-limit", "0.5", "--heuristic", heuristic, "--quiet",
                 "--db-dir", str(tmp_path / "db")])
    err = capsys.readouterr().err
    assert code in (0, 2, 3, 4), err
    assert "Traceback" not in err and "internal error" not in err


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(ALPHABET + ",", max_size=20),
                 st.lists(st.integers(min_value=-3, max_value=10 ** 16), max_size=5)
                 .map(lambda numbers: ",".join(map(str, numbers)))))
def test_a_list_of_level_numbers_parses_or_says_why(text):
    """``--only``'s parser (scripts' benchmarks): whole numbers > 0 come
    back as written; anything else is an argparse error, never a crash."""
    import argparse

    from pdbsearch.cli.options import MAX_DIGITS, positive_int_list
    try:
        numbers = positive_int_list(text)
    except argparse.ArgumentTypeError:
        parts = [p.strip().replace("_", "") for p in text.split(",") if p.strip()]
        assert not parts or not all(p.isascii() and p.isdigit() and 0 < len(p) <= MAX_DIGITS
                                    and int(p) > 0 for p in parts)
        return
    assert numbers and all(n > 0 for n in numbers)
    assert numbers == [int(p.strip().replace("_", "")) for p in text.split(",") if p.strip()]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=30),
                 st.lists(st.sampled_from(["perimeter", "fess-only", "wastar", "greedy",
                                           "fess-nearest", "fess-backward", "fess-relay", "astar",
                                           " ", ""]),
                          max_size=4).map(",".join)))
def test_portfolio_members_parse_or_say_why(text):
    """``--members``' parser: known names come back in order; anything else
    is an argparse error naming the choices, never a crash."""
    import argparse

    from pdbsearch.cli.options import portfolio_members
    from pdbsearch.sokoban.vocabulary import PORTFOLIO_MEMBERS
    names = [part.strip() for part in text.split(",") if part.strip()]
    try:
        members = portfolio_members(text)
    except argparse.ArgumentTypeError as error:
        assert not names or not set(names) <= set(PORTFOLIO_MEMBERS)
        assert "choose from perimeter" in str(error)
        return
    assert members == tuple(names) and members
