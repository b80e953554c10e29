"""Boxes cut off from every free goal by boxes frozen on goals
(:mod:`pdbsearch.sokoban.frozencut`): the kernel against the plain
definition, its verdicts against an exhaustive search, and FESS's stuck
test saying so."""

from __future__ import annotations

import numpy as np

from pdbsearch.pdb.learned import learned_match, new_store, stored_counts, stored_patterns
from pdbsearch.sokoban.frozencut import frozen_cut_deadlock, frozen_cut_work
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.fess import PlanReach, confined_cells, frozen_cut_dead
from pdbsearch.testing.sokoban import StateLimitError, bfs_min_pushes, frozen_boxes

from .helpers import goal_heavy_boxes, microban, xsb

#: Two boxes frozen on goals (a wall on the left of each, the other box
#: above or below) shut the goal room's door: a box above it reaches no
#: goal, though each empty goal is still fed by the box in the room.
SHUT = """\
########
#@   $ #
#### ###
#  #*  #
#  #*  #
#  . $.#
########
"""


def kernel(puzzle, work, boxes, player, store=None) -> bool:
    """The kernel's verdict on a position (its lesson kept in ``store``
    if one is given)."""
    cells = np.array(sorted(boxes), np.int32)
    learn = store is not None
    store = store if learn else new_store(puzzle.key_words, len(puzzle.params.index_cell), 1)
    return bool(frozen_cut_deadlock(puzzle.params, work, cells, len(cells), player, store,
                                    int(learn)))


def fresh_work(puzzle):
    """The test's tables for the puzzle's level."""
    p = puzzle.params
    return frozen_cut_work(p.goal_cells, len(p.inside), len(p.index_cell),
                           len(puzzle.level.boxes), key_words=puzzle.key_words)


def frozen_on_goals(level, rng, dead, tries):
    """Random goal-heavy positions (``tries`` drawn) whose frozen boxes all
    stand on goals (a frozen box off its goal is the freeze test's), each
    with a random player: ``(boxes, frozen boxes, player)``."""
    for _ in range(tries):
        boxes = goal_heavy_boxes(level, rng, dead)
        frozen = frozen_boxes(level, boxes, dead)
        if frozen and frozen <= level.goals:
            free = sorted(set(level.playable_cells()) - set(boxes))
            yield boxes, frozen, free[rng.integers(len(free))]


def confirmed_dead(level, boxes, player) -> bool:
    """True when an exhaustive search of at most 5,000 positions finds the
    position unsolvable (it fails the test if it finds a solution); False
    when the search stops short."""
    try:
        assert bfs_min_pushes(level.with_state(frozenset(boxes), player),
                              max_states=5_000) is None
        return True
    except StateLimitError:
        return False


def cell(level, x, y):
    return y * level.width + x


def test_boxes_frozen_on_goals_shut_the_room():
    """The hand-made room: dead with a box (and the player) above the door,
    alive with them below it; the exhaustive search agrees."""
    level = xsb(SHUT)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    work = fresh_work(puzzle)
    dead = frozenset(np.flatnonzero(puzzle.params.dead).tolist())
    frozen = {cell(level, 4, 3), cell(level, 4, 4)}
    inside = cell(level, 5, 5)
    above = (frozen | {inside, cell(level, 5, 1)}, cell(level, 1, 1), True)
    below = (frozen | {inside, cell(level, 2, 4)}, cell(level, 1, 3), False)
    for boxes, player, verdict in (above, below):
        assert kernel(puzzle, work, boxes, player) is verdict
        assert frozen_cut_dead(level, boxes, player, dead) is verdict
        solvable = bfs_min_pushes(level.with_state(frozenset(boxes), player)) is not None
        assert solvable is not verdict


def test_the_kernel_matches_the_definition_and_never_lies():
    """Random goal-heavy positions of Microban levels whose frozen boxes
    stand on goals (a frozen box off its goal is the freeze test's): the
    kernel's verdict is the plain definition's, and each dead verdict an
    exhaustive search confirms when it can finish.  The sample holds dead
    and live positions with frozen boxes, and confirmed dead ones."""
    counts = {"dead": 0, "alive": 0, "confirmed": 0}
    for number in (3, 36, 93, 105, 150):
        level = microban(number)
        puzzle = SokobanPuzzle(level, "pushes", "matching")
        work = fresh_work(puzzle)
        dead = frozenset(np.flatnonzero(puzzle.params.dead).tolist())
        rng = np.random.default_rng(number)
        for boxes, _, player in frozen_on_goals(level, rng, dead, 150):
            got = kernel(puzzle, work, boxes, player)
            assert got == frozen_cut_dead(level, boxes, player, dead), (number, sorted(boxes))
            counts["dead" if got else "alive"] += 1
            if got:
                counts["confirmed"] += confirmed_dead(level, boxes, player)
    assert min(counts.values()) > 0, counts


def test_fess_stuck_test_drops_the_shut_room():
    """FESS's stuck test (the xy test and the probes off) proves the
    position dead with the frozen-box cut on, and not with it off or on
    the live position."""
    from pdbsearch.search.fess_protocol import NOT_PROVED, PROVED_DEAD, stuck_check_once
    from pdbsearch.search.result import Limits
    from pdbsearch.sokoban.fess import SokobanFessDomain

    level = xsb(SHUT)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    frozen = {cell(level, 4, 3), cell(level, 4, 4)}
    shut = puzzle.key_of(frozenset(frozen | {cell(level, 5, 5), cell(level, 5, 1)}),
                         cell(level, 1, 1))
    live = puzzle.key_of(frozenset(frozen | {cell(level, 5, 5), cell(level, 2, 4)}),
                         cell(level, 1, 3))
    verdicts = {}
    for on in (True, False):
        domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False,
                                   use_hotspots=False, use_stuck=False, use_probes=False,
                                   use_frozen_cut=on)
        verdicts[on] = (stuck_check_once(domain.params, shut),
                        stuck_check_once(domain.params, live))
    assert verdicts[True] == (PROVED_DEAD, NOT_PROVED)
    assert verdicts[False] == (NOT_PROVED, NOT_PROVED)


def _cells_of(bits, index_to_cell) -> frozenset[int]:
    return frozenset(int(index_to_cell[b]) for b in bits)


def test_a_dead_verdict_teaches_a_sound_pattern_its_variants_match():
    """Each dead verdict of the cut on random goal-heavy Microban
    positions is learned, and the pattern is what the module doc says:
    the position's frozen boxes; player cells in the player's part that
    hold the teaching position's player; counted cells that are exactly
    the plain reading's confined cells for the goals they reach; a need
    one more than those goals.  The position matches it, and every other
    random position that matches one is dead by the plain definition (and
    by an exhaustive search, on a sample, when it finishes)."""
    counts = {"learned": 0, "variants": 0, "confirmed": 0}
    for number in (3, 93, 150):
        level = microban(number)
        puzzle = SokobanPuzzle(level, "pushes", "matching")
        p = puzzle.params
        work = fresh_work(puzzle)
        store = new_store(puzzle.key_words, len(p.index_cell), 512)
        dead = frozenset(np.flatnonzero(p.dead).tolist())
        bit_cell = {int(b): c for c, b in enumerate(p.box_bit) if b >= 0}
        rng = np.random.default_rng(number + 7)
        taught = set()
        for boxes, frozen, player in frozen_on_goals(level, rng, dead, 200):
            before = len(stored_patterns(store))
            if not kernel(puzzle, work, boxes, player, store):
                assert len(stored_patterns(store)) == before
                continue
            assert len(stored_patterns(store)) == before + 1, (number, sorted(boxes))
            counts["learned"] += 1
            taught.add((boxes, player))
            (bits, region), (counted, need) = stored_patterns(store)[-1], stored_counts(store)[-1]
            f_cells = _cells_of(bits, bit_cell)
            players = _cells_of(region, p.index_cell)
            confined = _cells_of(counted, bit_cell)
            assert f_cells == frozen
            part = PlanReach(level, sorted(frozen)).part(len(frozen), -1, player)
            assert player in players and players <= part
            reach = PlanReach(level, sorted(frozen) + sorted(level.goals - frozen))
            goals = {reach.order[j] for b in confined for at in players if at != b
                     for j in reach.goals(len(frozen), b, at)} | (confined & level.goals)
            assert need == len(goals) + 1
            assert confined == confined_cells(level, frozen, players, goals, dead)
            assert len(confined & boxes) >= need
        assert learned_match(store, puzzle.key_of(frozenset(level.goals), level.player),
                             p.box_mask, p.player_index[level.player]) is False
        for _ in range(300):
            boxes = goal_heavy_boxes(level, rng, dead)
            free = sorted(set(level.playable_cells()) - set(boxes))
            player = free[rng.integers(len(free))]
            if (boxes, player) in taught or not learned_match(
                    store, puzzle.key_of(boxes, player), p.box_mask, p.player_index[player]):
                continue
            counts["variants"] += 1
            assert frozen_cut_dead(level, boxes, player, dead), (number, sorted(boxes), player)
            if counts["variants"] % 8 == 0:   # one in eight: the search's cost
                counts["confirmed"] += confirmed_dead(level, boxes, player)
    assert min(counts.values()) > 0, counts
