"""Easy instances of Korf's 100 (puzzles/fifteen/korf100.txt; optimal lengths
from the sources its header names), solved optimally with small tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdbsearch.fifteen.database import PARTITIONS_4X4
from pdbsearch.fifteen.formats import parse_collection
from pdbsearch.fifteen.puzzle import FifteenPuzzle
from pdbsearch.search import solve

KORF = Path(__file__).resolve().parents[2] / "puzzles" / "fifteen" / "korf100.txt"


@pytest.mark.parametrize("number", [2])
def test_easy_korf_instance_is_solved_optimally(number):
    inst = parse_collection(KORF.read_text(), "korf100.txt")[number - 1]
    puzzle = FifteenPuzzle(inst.board, heuristic="pdb", partition=PARTITIONS_4X4["5-5-5"])
    result = solve(puzzle, "idastar")
    assert result.optimal and result.cost == inst.optimal == 55
