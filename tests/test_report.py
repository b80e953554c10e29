"""The command line's text report (:mod:`pdbsearch.report`): a portfolio's
figures are broken down by member, and the members' shares add up to the
totals printed above them."""

from __future__ import annotations

import re

import pytest

import pdbsearch
from pdbsearch.report import format_result

MICROBAN = "puzzles/sokoban/microban.txt"


def _members_line(text: str) -> str | None:
    lines = [line for line in text.splitlines() if line.startswith("of which expanded: ")]
    assert len(lines) <= 1
    return lines[0] if lines else None


@pytest.mark.parametrize("algo", ["astar", "fess"])
def test_a_portfolio_names_each_members_expansions_and_they_add_up(repo, algo):
    puzzle = pdbsearch.load(repo / MICROBAN, level=3)
    result = pdbsearch.solve(puzzle, algo=algo, time_limit=60)
    line = _members_line(format_result(puzzle, result))
    members = result.extra[algo]["members"]
    assert len(members) > 1 and line is not None
    named = re.findall(r"([\w= -]+?) ([\d,]+) in [\d.]+ s", line.removeprefix("of which expanded: "))
    assert [label.strip(", ") for label, _ in named] == list(members)
    assert sum(int(count.replace(",", "")) for _, count in named) == result.expanded


def test_a_single_search_prints_no_breakdown():
    puzzle = pdbsearch.load()   # the classic Hakoiri board: A* alone
    result = pdbsearch.solve(puzzle)
    assert _members_line(format_result(puzzle, result)) is None
