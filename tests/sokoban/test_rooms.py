"""FESS's room connectivity (:mod:`pdbsearch.sokoban.rooms`): the room
analysis on drawn boards, and the kernels' feature against a from-scratch
plain-Python oracle on random positions of levels with rooms."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.search.result import Limits
from pdbsearch.sokoban.features import ROOMS
from pdbsearch.sokoban.fess import SokobanFessDomain
from pdbsearch.sokoban.formats import load_levels
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.sokoban.rooms import room_map
from pdbsearch.testing.fess import cutting_cells, obstructed_room_links, room_links

from .helpers import LEVELS, random_position, xsb
from .test_fess_macros import DEAD_ONLY, fess_children

#: Two 3x3 rooms joined by a corridor of four cells (row 2, columns 4 to
#: 7), with a dead-end alcove below its third cell that links nothing.
TWO_ROOMS = xsb("""\
############
#.  ####  $#
# @        #
#   ## #   #
###### #####
############
""")
CORRIDOR = ((2, 4), (2, 5), (2, 6), (2, 7))
ALCOVE = ((3, 6), (4, 6))


def _cells(level, *row_cols):
    return {level.cell(r, c) for r, c in row_cols}


def test_two_rooms_and_their_link():
    rooms = room_map(TWO_ROOMS)
    assert len(set(rooms.room_of.values())) == 2
    assert rooms.links == [frozenset(_cells(TWO_ROOMS, *CORRIDOR, *ALCOVE))]
    assert rooms.cutting == [frozenset(_cells(TWO_ROOMS, *CORRIDOR))]


@pytest.mark.parametrize("box, blocked", [(CORRIDOR[0], 1), (CORRIDOR[2], 1), (ALCOVE[0], 0),
                                          ((1, 1), 0)])
def test_a_box_in_the_corridor_obstructs_the_link(box, blocked):
    assert obstructed_room_links(TWO_ROOMS, _cells(TWO_ROOMS, box)) == blocked
    puzzle = SokobanPuzzle(TWO_ROOMS.with_state(boxes=_cells(TWO_ROOMS, box)), "pushes",
                           "matching", DEAD_ONLY)
    domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False)
    _children, info = fess_children(domain, puzzle.initial_key())
    assert info[1 + ROOMS] == blocked


def test_one_room_has_no_links():
    level = xsb("""\
######
#.   #
# @$ #
#    #
######
""")
    assert room_map(level).links == []


HOLLAND = load_levels(LEVELS / "sokoban" / "holland.txt")


@pytest.mark.parametrize("name", ["holland", "grigr2002", "microban"])
def test_links_and_cutting_cells_match_the_oracle_on_every_level(name):
    """Tarjan's articulation points against one flood per cell."""
    for level in load_levels(LEVELS / "sokoban" / f"{name}.txt"):
        rooms = room_map(level)
        links, _room_of = room_links(level)
        assert sorted(map(sorted, rooms.links)) == sorted(sorted(link) for link, _ in links)
        assert set().union(*rooms.cutting) == cutting_cells(level), level.title


@pytest.mark.parametrize("index", [0, 3, 14, 21, 33])
def test_the_feature_matches_the_oracle_on_random_positions(index):
    """The position's own feature and every child's, against
    :func:`obstructed_room_links` (rooms rebuilt from their definition)."""
    level = HOLLAND[index]
    assert room_map(level).links, "a level with room links"
    puzzle = SokobanPuzzle(level, "pushes", "matching", DEAD_ONLY)
    domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False)
    rng = np.random.default_rng(index)
    blocked_seen = 0
    for _ in range(6):
        boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
        got, info = fess_children(domain, puzzle.key_of(boxes, player))
        want = obstructed_room_links(level, boxes)
        assert info[1 + ROOMS] == want
        blocked_seen += want
        for (new_boxes, _player), (_pushes, _flags, feat, _key) in got.items():
            assert feat[ROOMS] == obstructed_room_links(level, new_boxes)
    assert blocked_seen > 0, "some position obstructs a link"


def test_without_rooms_the_feature_is_zero():
    level = HOLLAND[0]
    puzzle = SokobanPuzzle(level, "pushes", "matching", DEAD_ONLY)
    domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False,
                               use_rooms=False)
    rng = np.random.default_rng(1)
    boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
    got, info = fess_children(domain, puzzle.key_of(boxes, player))
    assert info[1 + ROOMS] == 0
    assert all(feat[ROOMS] == 0 for _p, _f, feat, _k in got.values())
