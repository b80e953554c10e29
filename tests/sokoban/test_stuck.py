"""FESS's stuck patterns (Festival's xy test, :func:`pdbsearch.sokoban.learning.learn_stuck`,
then each cluster of touching boxes alone): the kernel against the
plain-Python xy search on random positions, its
soundness (every position it calls dead has no solution: our own push
BFS, and its pattern prunes the position from then on), and the engine's
use of it (the test runs on positions under which many expansions were
made, a dead one takes its subtree along, and a dead best position is
forgotten)."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.search import ALGORITHMS, Status, solve
from pdbsearch.search.driver import run_engine
from pdbsearch.search.fess_protocol import (NOT_PROVED, PROVED_DEAD, late_check_once,
                                            stuck_check_once)
from pdbsearch.search.fess_space import BEST_NODE, NODE_STUCK
from pdbsearch.search.result import Limits
from pdbsearch.sokoban.fess import SokobanFessDomain
from pdbsearch.sokoban.learning import (LOCAL, LOCAL_LIMIT, MAX_PATTERN_BOXES, MAX_STUCK_BOXES,
                                        TRIED)
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.sokoban import bfs_min_pushes, box_clusters, xy_dead, xy_reduced

from .helpers import SMALL_MICROBAN, microban, random_position, xsb


def _domain(level, **options):
    """FESS's domain with the xy test alone (no dead-end probes: test_probe.py;
    no frozen-box cut: test_frozencut.py)."""
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False,
                               use_hotspots=False, use_probes=False, use_frozen_cut=False,
                               **options)
    return puzzle, domain


def _forget_tries(domain):
    """A fresh table of sets tried and a fresh budget (each position is then
    judged on its own)."""
    lw = domain.params.base.learn
    lw.tried_slots[:] = -1
    lw.counters[TRIED] = 0
    lw.counters[LOCAL] = 0


def _small_dead_clusters(level, boxes, player, dead) -> tuple[list, bool]:
    """The clusters the kernel tries whole (two boxes or more, not all the
    boxes, one off its goal, fewer than MAX_PATTERN_BOXES so that the
    kernel's capped growth finds all of it) that the xy search proves dead
    in few positions; and whether some cluster was too large to judge."""
    goals = set(level.goals)
    found, capped = [], False
    for cluster in box_clusters(level, boxes):
        if len(cluster) >= MAX_PATTERN_BOXES:
            capped = True
        elif 2 <= len(cluster) < len(boxes) and not cluster <= goals:
            is_dead, explored = xy_dead(level, cluster, player, dead)
            if is_dead and explored < LOCAL_LIMIT // 4:
                found.append(cluster)
    return found, capped


def _check_level(number: int) -> int:
    """Kernel against the reference, and soundness, on random positions of
    Microban ``number``; returns how many it called dead."""
    level = microban(number)
    puzzle, domain = _domain(level)
    dead = puzzle.dead_squares
    rng = np.random.default_rng(number)
    fired = 0
    for _ in range(30):
        boxes, player = random_position(level, rng, avoid=dead)
        key = puzzle.key_of(boxes, player)
        _forget_tries(domain)
        got = stuck_check_once(domain.params, key) == PROVED_DEAD
        reduced = xy_reduced(level, boxes, player, dead)
        ref_dead, explored = xy_dead(level, reduced, player, dead)
        clusters, capped = _small_dead_clusters(level, boxes, player, dead)
        xy_case = (ref_dead and len(reduced) < len(boxes) and len(reduced) <= MAX_STUCK_BOXES
                   and explored < LOCAL_LIMIT // 4 and not reduced <= set(level.goals))
        if got:
            fired += 1
            assert ref_dead or clusters or capped
            assert bfs_min_pushes(level.with_state(boxes=boxes, player=player)) is None
            assert late_check_once(domain.params, key), "the learned pattern prunes it"
        elif xy_case or clusters:
            pytest.fail(f"missed: boxes {sorted(boxes)}, player {player}")
    return fired


@pytest.mark.parametrize("number", SMALL_MICROBAN)
def test_the_kernel_matches_the_xy_search_and_is_sound(number):
    _check_level(number)


def test_the_kernel_fires_on_random_positions():
    """The property above is not vacuous: some positions are stuck."""
    assert sum(_check_level(n) for n in SMALL_MICROBAN) > 0


#: Four boxes jammed in a corner (MasterHead 11's knot, on a board of our
#: own): no box of the level is xy-free, so only the cluster test sees it.
KNOT = """\
############
##      ####
#  $$###...#
# $ $ @  .*#
############
"""


def test_a_knot_no_xy_free_box_undoes_is_proved_dead_by_its_cluster():
    level = xsb(KNOT)
    puzzle, domain = _domain(level)
    boxes, player = level.boxes, level.player
    dead = puzzle.dead_squares
    assert xy_reduced(level, boxes, player, dead) == boxes   # the xy half has nothing to say
    knot = frozenset(b for b in boxes if b not in level.goals)
    assert set(box_clusters(level, boxes)) == {knot, boxes - knot}
    assert xy_dead(level, knot, player, dead)[0]
    assert bfs_min_pushes(level) is None
    key = puzzle.key_of(boxes, player)
    _forget_tries(domain)
    assert stuck_check_once(domain.params, key, again=1) == NOT_PROVED, \
        "asked again, the xy test does not run twice"
    assert stuck_check_once(domain.params, key) == PROVED_DEAD
    assert late_check_once(domain.params, key), "the learned pattern prunes it"


def test_off_it_never_fires():
    level = microban(4)
    puzzle, domain = _domain(level, use_stuck=False)
    rng = np.random.default_rng(0)
    for _ in range(20):
        boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
        assert stuck_check_once(domain.params, puzzle.key_of(boxes, player)) == NOT_PROVED


@pytest.mark.parametrize("number", [93, 139, 143])
def test_fess_drops_stuck_subtrees_and_still_solves(number):
    """On levels where FESS spends more than SUBTREE_CHECK expansions under
    some positions, the test runs there, proves some dead, their subtrees
    are dropped, and the solution still replays (the driver replays every
    solution before it returns it)."""
    puzzle = SokobanPuzzle(microban(number), "pushes", "matching")
    result = solve(puzzle, "fess-only", limits=Limits(time_seconds=30))
    assert result.status is Status.SOLVED
    figures = result.extra["fess"]
    assert figures["stuck"] > 0 and figures["stuck_dropped"] > 0


def test_a_best_position_proved_dead_is_forgotten():
    """Microban 144: within 10,000 expansions the stuck test proves the
    best position dead (or an ancestor of it); the engine then forgets it,
    and the best position it reports is one it has not dropped."""
    puzzle = SokobanPuzzle(microban(144), "pushes", "matching")
    limits = Limits(nodes=10_000)
    engine = ALGORITHMS["fess-only"].make(puzzle, 1.0, limits)
    result = run_engine(puzzle, engine, algo="fess-only", weight=1.0, bound=None,
                        limits=limits, progress=False)
    assert result.status is Status.LIMIT
    assert engine.report()["dead_best_resets"] > 0
    path = engine.store.path_to(int(engine.fs[BEST_NODE]))
    assert not any(engine.nodes.flags[i] & NODE_STUCK for i in path)
    assert len(engine.best_keys()) == len(path)
