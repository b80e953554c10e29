"""Every Sokoban bound under the pushes metric has the parity of the pushes
left: a push moves one box by one cell, so every solution from a position
takes pushes of the parity of the boxes' summed row + column minus the
goals' (:func:`pdbsearch.sokoban.puzzle.cell_parity`), and the bounds are
raised to it.  Checked on random small rooms against our plain-Python BFS,
for every heuristic, with and without the pattern tables' larger groups."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.puzzle import DEAD
from pdbsearch.search.common import evaluate_heuristic
from pdbsearch.sokoban.puzzle import SokobanPuzzle, cell_parity
from pdbsearch.testing.sokoban import bfs_min_pushes

from .test_engines_random_rooms import ANY_ROOM


@settings(max_examples=200, deadline=None)
@given(ANY_ROOM, st.sampled_from(("simple", "matching", "pdb")))
def test_the_bound_has_the_parity_of_the_optimum(level, heuristic):
    optimum = bfs_min_pushes(level)
    puzzle = SokobanPuzzle(level, "pushes", heuristic)
    h = int(evaluate_heuristic(puzzle.params, puzzle.initial_key()))
    if optimum is None:
        return          # a dead room: any value, DEAD included, is a bound
    where = f"{heuristic}: bound {h}, optimum {optimum}, level\n{level}"
    assert h < DEAD and h <= optimum, where
    assert optimum % 2 == (cell_parity(level.boxes, level.width)
                           - cell_parity(level.goals, level.width)) % 2, where
    assert (optimum - h) % 2 == 0, where
