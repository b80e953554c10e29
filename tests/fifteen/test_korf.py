"""Easy instances of Korf's 100 (puzzles/fifteen/korf100.txt; optimal lengths
from the sources its header names), solved optimally with small tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdbsearch.batch.levels import copy_search_figures
from pdbsearch.fifteen.collection import InstanceRecord, summary_table
from pdbsearch.fifteen.database import PARTITIONS_4X4
from pdbsearch.fifteen.formats import parse_collection
from pdbsearch.fifteen.puzzle import FifteenPuzzle
from pdbsearch.search import Limits, Status, solve

KORF = Path(__file__).resolve().parents[2] / "puzzles" / "fifteen" / "korf100.txt"


@pytest.mark.parametrize("number", [2])
def test_easy_korf_instance_is_solved_optimally(number):
    inst = parse_collection(KORF.read_text(), "korf100.txt")[number - 1]
    puzzle = FifteenPuzzle(inst.board, heuristic="pdb", partition=PARTITIONS_4X4["5-5-5"])
    result = solve(puzzle, "idastar")
    assert result.optimal and result.cost == inst.optimal == 55


def test_an_unfinished_instance_shows_its_lower_bound_in_the_table():
    inst = parse_collection(KORF.read_text(), "korf100.txt")[0]
    result = solve(FifteenPuzzle(inst.board, heuristic="manhattan"), "idastar",
                   limits=Limits(nodes=2_000))
    assert result.status is Status.LIMIT and result.lower_bound is not None
    record = InstanceRecord(1, inst.id, inst.optimal)
    copy_search_figures(record, result)
    assert record.lower_bound <= inst.optimal and record.upper_bound is None
    row = summary_table([record]).splitlines()[2]
    assert f" >={result.lower_bound:g} " in row
