"""FESS's stuck patterns (Festival's xy test, :func:`pdbsearch.sokoban.learning.learn_stuck`):
the kernel against the plain-Python xy search on random positions, its
soundness (every position it calls dead has no solution: our own push
BFS, and its pattern prunes the position from then on), and the engine's
use of it (the test runs on positions under which many expansions were
made, and a dead one takes its subtree along)."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.search import Status, solve
from pdbsearch.search.fess import late_check_once, stuck_check_once
from pdbsearch.search.result import Limits
from pdbsearch.sokoban.fess import SokobanFessDomain
from pdbsearch.sokoban.learning import LOCAL, LOCAL_LIMIT, MAX_STUCK_BOXES, TRIED
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.testing.sokoban import bfs_min_pushes, xy_dead, xy_reduced

from .helpers import SMALL_MICROBAN, microban, random_position


def _domain(level, **options):
    """FESS's domain with the xy test alone (no dead-end probes: test_probe.py)."""
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False,
                               use_hotspots=False, use_probes=False, **options)
    return puzzle, domain


def _forget_tries(domain):
    """A fresh table of sets tried and a fresh budget (each position is then
    judged on its own)."""
    lw = domain.params.base.learn
    lw.tried_slots[:] = -1
    lw.counters[TRIED] = 0
    lw.counters[LOCAL] = 0


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
        got = bool(stuck_check_once(domain.params, key))
        reduced = xy_reduced(level, boxes, player, dead)
        ref_dead, explored = xy_dead(level, reduced, player, dead)
        if got:
            fired += 1
            assert ref_dead
            assert bfs_min_pushes(level.with_state(boxes=boxes, player=player)) is None
            assert late_check_once(domain.params, key), "the learned pattern prunes it"
        elif (ref_dead and len(reduced) < len(boxes) and len(reduced) <= MAX_STUCK_BOXES
              and explored < LOCAL_LIMIT // 4 and not reduced <= set(level.goals)):
            pytest.fail(f"missed: boxes {sorted(boxes)}, player {player}")
    return fired


@pytest.mark.parametrize("number", SMALL_MICROBAN)
def test_the_kernel_matches_the_xy_search_and_is_sound(number):
    _check_level(number)


def test_the_kernel_fires_on_random_positions():
    """The property above is not vacuous: some positions are stuck."""
    assert sum(_check_level(n) for n in SMALL_MICROBAN) > 0


def test_off_it_never_fires():
    level = microban(4)
    puzzle, domain = _domain(level, use_stuck=False)
    rng = np.random.default_rng(0)
    for _ in range(20):
        boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
        assert not stuck_check_once(domain.params, puzzle.key_of(boxes, player))


@pytest.mark.parametrize("number", [36, 122, 139])
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
