"""FESS's dead-end probes (:mod:`pdbsearch.sokoban.probe`): the probe
against our plain-Python push BFS on random positions (a position it calls
dead has no solution; a dead position whose whole push space is smaller
than the probe's limit is called dead), a position near one from a real
search that only the probe sees, the table of positions a dead probe met (FESS
no longer generates them), and the engine's use of it all."""

from __future__ import annotations

import numpy as np
import pytest

from pdbsearch.search import Status, solve
from pdbsearch.search.common import EXPANDED
from pdbsearch.search.driver import run_engine
from pdbsearch.search.fess import FessSearch
from pdbsearch.search.fess_protocol import (ASK_LATER, NOT_PROVED, PROVED_DEAD, expand_once,
                                            late_check_once, stuck_check_once)
from pdbsearch.search.result import Limits
from pdbsearch.sokoban.fess import SokobanFessDomain
from pdbsearch.sokoban.probe import HITS, KEPT, PROBE_LIMIT, PROBE_LOOSE, PROBES, SPENT
from pdbsearch.sokoban.puzzle import Rules, SokobanPuzzle
from pdbsearch.testing.sokoban import StateLimitError, bfs_min_pushes

from .helpers import SMALL_MICROBAN, microban, random_position, xsb

#: Near a position FESS reached on holland 8 ("Salamandar v3", puzzles/
#: sokoban/holland.txt) and kept as its best for the rest of a 30 s run:
#: thirteen boxes packed in the goal room, three loose.  That position is
#: now seen by the stranded-goal test (the pull from the goal at row 10,
#: column 4 follows the player); here its loose box of row 10 stands below
#: the empty goal at row 12, column 4 instead, the one of row 4 a step to
#: the left, and the player on the goal of row 4.  Dead (our push BFS finds no
#: solution), but no box is frozen, each box alone reaches a goal, and the
#: pulls from the empty goals reach boxes the player can get behind, so
#: neither the bound nor any rule of the expansion sees it, and the xy
#: test takes the loose boxes off and finds the rest on goals.  The pushes
#: from it are few (a few thousand positions).
DEAD_ENDGAME = xsb("""\
       ###
##### #   ###
#   ##      #
# # ##    # #
# #*+ $  ## #
#  * #  #   #
###**#      #
  #**#   # ##
  #**#   # #
  #**##### ##
  #*.#      #
  #**# $    #
  ##.### #####
  # $        #
  #   ####   #
  #####  #####
""")


def _domain(level, **options):
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    # The probes alone: the xy test and the frozen-box cut (test_frozencut.py)
    # would see some of these positions first.
    options = {"use_stuck": False, "use_frozen_cut": False, **options}
    domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False,
                               use_hotspots=False, **options)
    return puzzle, domain


def _fresh_budget(domain) -> None:
    domain.params.probe.counters[SPENT] = 0


def _reference(level, boxes, player) -> bool | None:
    """True: no solution; False: one; None: more positions than a probe keeps."""
    try:
        pushes = bfs_min_pushes(level.with_state(boxes=boxes, player=player),
                                max_states=PROBE_LIMIT // 2)
    except StateLimitError:
        return None
    return pushes is None


def _check_level(number: int) -> int:
    """The probe against the push BFS on random positions of Microban
    ``number``; returns how many it proved dead."""
    level = microban(number)
    puzzle, domain = _domain(level)
    rng = np.random.default_rng(number)
    proved = 0
    for _ in range(25):
        boxes, player = random_position(level, rng, avoid=puzzle.dead_squares)
        key = puzzle.key_of(boxes, player)
        _fresh_budget(domain)
        got = stuck_check_once(domain.params, key) == PROVED_DEAD
        loose = len(set(boxes) - set(level.goals))
        expected = _reference(level, boxes, player)
        if got:
            proved += 1
            assert expected is True, f"called dead, but solvable: {sorted(boxes)}, {player}"
        elif expected is True and loose <= PROBE_LOOSE:
            pytest.fail(f"missed a dead position with a small push space: "
                        f"{sorted(boxes)}, player {player}")
    return proved


@pytest.mark.parametrize("number", SMALL_MICROBAN)
def test_the_probe_agrees_with_the_push_bfs(number):
    _check_level(number)


def test_the_probe_fires_on_random_positions():
    """The property above is not vacuous: some random positions are dead."""
    assert sum(_check_level(n) for n in SMALL_MICROBAN) > 0


def test_a_dead_position_that_only_the_probe_sees():
    assert bfs_min_pushes(DEAD_ENDGAME) is None
    puzzle, domain = _domain(DEAD_ENDGAME)
    key = puzzle.initial_key()
    assert not late_check_once(domain.params, key), "the bound and the rules do not see it"
    assert stuck_check_once(domain.params, key) == PROVED_DEAD
    _, xy_only = _domain(DEAD_ENDGAME, use_stuck=True, use_probes=False)
    assert stuck_check_once(xy_only.params, key) == NOT_PROVED, "the xy test does not see it"
    _, off = _domain(DEAD_ENDGAME, use_probes=False)
    assert stuck_check_once(off.params, key) == NOT_PROVED


def test_the_budget_and_the_loose_boxes_limit_the_probes():
    puzzle, domain = _domain(DEAD_ENDGAME)
    key = puzzle.initial_key()
    counters = domain.params.probe.counters
    counters[SPENT] = 10 ** 9          # far beyond the budget
    assert stuck_check_once(domain.params, key) == ASK_LATER, "worth a probe, later"
    assert counters[PROBES] == 0
    counters[SPENT] = 0
    assert stuck_check_once(domain.params, key, again=1) == PROVED_DEAD
    # A position with more loose boxes than PROBE_LOOSE is not probed.
    wide = xsb("""\
####################
#                  #
# $ $ $ $ $ $ $ $ $#
#@.........        #
####################
""")
    assert len(wide.boxes) > PROBE_LOOSE
    puzzle, domain = _domain(wide)
    assert stuck_check_once(domain.params, puzzle.initial_key()) == NOT_PROVED
    domain.params.probe.counters[SPENT] = 10 ** 9
    assert stuck_check_once(domain.params, puzzle.initial_key()) == NOT_PROVED, \
        "never worth a probe: not asked again"
    assert domain.params.probe.counters[PROBES] == 0


@pytest.mark.parametrize("number", [93, 144])
def test_fess_drops_subtrees_the_probes_prove_dead_and_still_solves(number):
    """On levels where FESS spends many expansions under dead positions,
    probes prove some dead and drop their subtrees; the solution still
    replays (the driver replays every solution before returning it)."""
    puzzle = SokobanPuzzle(microban(number), "pushes", "matching")
    result = solve(puzzle, "fess-only", limits=Limits(time_seconds=30))
    assert result.status is Status.SOLVED
    figures = result.extra["fess"]
    assert figures["probes_dead"] > 0 and figures["stuck_dropped"] > 0


def _fess_children(domain, key) -> list[np.ndarray]:
    """The children FESS generates from ``key``."""
    m, f, k = domain.max_children, domain.n_features, domain.key_words
    out_keys = np.zeros((m, k), np.uint64)
    n = expand_once(domain.params, key, np.zeros(f + 1, np.int64), out_keys,
                    np.zeros(m, np.int64), np.zeros(m, np.int32), np.zeros((m, f), np.int32),
                    np.zeros(m, np.int64), np.zeros(m, np.uint8))
    return [out_keys[i].copy() for i in range(n)]


def test_what_a_dead_probe_met_is_dropped_at_generation():
    """Every position a dead probe stored is reachable from a dead one, so
    dead: FESS no longer generates them.  What it still generates from the
    dead position, the probe did not store because the bound calls it dead."""
    puzzle, domain = _domain(DEAD_ENDGAME)
    key = puzzle.initial_key()
    before = _fess_children(domain, key)
    assert before
    assert stuck_check_once(domain.params, key) == PROVED_DEAD
    counters = domain.params.probe.counters
    assert counters[KEPT] > 0
    after = _fess_children(domain, key)
    assert len(after) < len(before)
    assert counters[HITS] == len(before) - len(after)
    for child in after:
        assert late_check_once(domain.params, child)


def test_the_rule_switch_turns_the_probes_off():
    """``--no-probes`` (``Rules(probes=False)``): FESS runs no probe, and still solves."""
    puzzle = SokobanPuzzle(microban(76), "pushes", "matching", rules=Rules(probes=False))
    assert "probes" not in puzzle.describe()
    result = solve(puzzle, "fess-only", limits=Limits(time_seconds=30))
    assert result.status is Status.SOLVED
    assert result.extra["fess"]["probes"] == 0


def _exhaust(delay: int | None) -> dict:
    """FESS alone (no xy test) on DEAD_ENDGAME, its probe budget spent for
    the first ``delay`` expansions (None: probes off); the engine's figures
    once it has searched every position."""
    puzzle = SokobanPuzzle(DEAD_ENDGAME, "pushes", "matching")
    domain = SokobanFessDomain(puzzle, Limits(), use_packing=False, h_rank=False,
                               use_hotspots=False, use_stuck=False,
                               use_probes=delay is not None, use_frozen_cut=False)
    domain.params.probe.counters[SPENT] = delay or 0
    engine = FessSearch(puzzle, Limits(), domain)
    result = run_engine(puzzle, engine, algo="fess-only", weight=1.0, bound=None,
                        limits=Limits(), progress=False)
    assert result.status is Status.UNSOLVABLE
    return {**engine.report(), "expanded": int(engine.stats[EXPANDED])}


def test_a_test_put_off_for_want_of_budget_runs_when_the_budget_returns():
    """Positions whose subtree reaches the mark while the probes' budget is
    spent are deferred, probed once it returns (best-ranked first), and
    their subtrees dropped; with the budget never back, none is."""
    off = _exhaust(None)
    at_once = _exhaust(0)
    assert at_once["stuck_deferrals"] == 0 and at_once["stuck"] >= 1
    assert at_once["expanded"] < off["expanded"] / 10, "the root is proved dead at the mark"
    later = _exhaust(300)
    assert later["stuck_deferrals"] > 0 and later["stuck_deferred_dead"] > 0
    assert later["expanded"] < off["expanded"]
    never = _exhaust(10 ** 9)
    assert never["stuck_deferrals"] > 0
    assert never["stuck_deferred_dead"] == 0 and never["probes"] == 0
    assert never["expanded"] == off["expanded"]
