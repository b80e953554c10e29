"""FESS's hotspots (:mod:`pdbsearch.sokoban.hotspots`): a drawn case, and
the kernels' feature, of a position and of each child, against the
plain-Python oracle on random positions of levels of every size."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.search.result import Limits
from pdbsearch.sokoban.features import HOTSPOTS
from pdbsearch.sokoban.fess import SokobanFessDomain
from pdbsearch.sokoban.formats import load_levels
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.fess import hotspots

from .helpers import LEVELS, random_position, xsb
from .test_fess_macros import DEAD_ONLY, fess_children

#: A corridor to the goals: the box in it blocks the box behind it.
CORRIDOR = xsb("""\
#########
#..     #
###### ##
#  $ $  #
# @     #
#########
""")


def _domain(level, **options):
    puzzle = SokobanPuzzle(level, "pushes", "matching", DEAD_ONLY)
    domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False, **options)
    while not domain.prepare(1.0):
        pass
    return puzzle, domain


@pytest.mark.parametrize("boxes, hot", [
    (((3, 6), (3, 3)), 1),   # the box under the mouth blocks the other's only way
    (((3, 4), (3, 3)), 2),   # each stands where the other must pass or push from
    (((1, 1), (3, 3)), 0),   # a box on its goal is in nobody's way
])
def test_boxes_in_the_corridor_are_hotspots(boxes, hot):
    cells = {CORRIDOR.cell(r, c) for r, c in boxes}
    puzzle, domain = _domain(CORRIDOR.with_state(boxes=cells))
    assert domain.describe()["hotspots"].startswith("on")
    _children, info = fess_children(domain, puzzle.initial_key())
    assert hotspots(CORRIDOR, cells) == hot
    assert info[1 + HOTSPOTS] == hot


@pytest.mark.parametrize("name, index", [("microban", 0), ("microban", 143),
                                         ("holland", 5), ("holland", 32),
                                         ("grigr2002", 9), ("sasquatch5", 29)])
def test_the_feature_matches_the_oracle_on_random_positions(name, index):
    level = load_levels(LEVELS / "sokoban" / f"{name}.txt")[index]
    puzzle, domain = _domain(level)
    rng = np.random.default_rng(index)
    seen_hot = 0
    for _ in range(4):
        boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
        got, info = fess_children(domain, puzzle.key_of(boxes, player))
        want = hotspots(level, boxes, puzzle.dead_squares)
        assert info[1 + HOTSPOTS] == want
        seen_hot += want
        for (new_boxes, _player), (_pushes, _flags, feat, _key) in got.items():
            assert feat[HOTSPOTS] == hotspots(level, new_boxes, puzzle.dead_squares)
    assert seen_hot > 0, "some position has a hotspot"


def test_without_hotspots_the_feature_is_zero():
    level = load_levels(LEVELS / "sokoban" / "holland.txt")[32]
    puzzle, domain = _domain(level, use_hotspots=False)
    assert domain.describe()["hotspots"] == "off"
    rng = np.random.default_rng(3)
    boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
    got, info = fess_children(domain, puzzle.key_of(boxes, player))
    assert info[1 + HOTSPOTS] == 0
    assert all(feat[HOTSPOTS] == 0 for _p, _f, feat, _k in got.values())
