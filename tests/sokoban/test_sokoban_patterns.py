"""The k-box pattern databases: the numba builder against a plain-Python
BFS, exact sub-problem distances, an admissible additive heuristic, and the
HDF5 cache (reused; a file made for another level refused)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from pdbsearch.cli import main
from pdbsearch.errors import PdbFileError
from pdbsearch.puzzle import DEAD
from pdbsearch.search import ALGORITHMS, Limits, solve
from pdbsearch.search.common import evaluate_bound_halves, evaluate_heuristic
from pdbsearch.sokoban import Level, replay_lurd
from pdbsearch.testing.sokoban import bfs_min_moves, bfs_min_pushes, bfs_min_pushes_solution
from pdbsearch.sokoban.database import obtain_patterns
from pdbsearch.sokoban.abstraction import build_pattern_table, pattern_params, pattern_rank
from pdbsearch.testing.sokoban import reference_table
from pdbsearch.sokoban.puzzle import SokobanPuzzle, cell_parity
from pdbsearch.sokoban.rules import Rules

from .helpers import MICROBAN, microban, python_successors, xsb

#: a tiny level where boxes block each other and the player's side matters
TINY = xsb("""\
#######
#.  . #
# $$  #
#  #@ #
# $  .#
#######
""")


#: (level, k) for every k up to the level's boxes (TINY has 3 boxes,
#: Microban 1, 2 and 3 have 2, 3 and 2)
BUILDER_CASES = [("tiny", 1), ("tiny", 2), ("tiny", 3), (1, 1), (1, 2), (2, 1), (2, 2),
                 (2, 3), (3, 1), (3, 2)]


@pytest.mark.parametrize("which, k", BUILDER_CASES)
def test_builder_kernel_equals_plain_python_bfs(which, k):
    level = TINY if which == "tiny" else microban(which)
    assert k <= len(level.boxes)
    table, _ = build_pattern_table(level, k)
    assert np.array_equal(table, reference_table(level, k))
    assert (table < 255).any()


def _sub_level(level: Level, boxes, goals, player) -> Level:
    return Level(level.width, level.height, level.walls, frozenset(goals), frozenset(boxes),
                 player)


@pytest.mark.parametrize("which", ["tiny", 3, 5])
def test_pattern_values_are_the_optimal_pushes_of_the_k_box_subproblem(which):
    """The value of k boxes and a player is the fewest pushes that put them on
    some k goals: the minimum, over the k-goal subsets, of the plain BFS of
    the level with only those boxes and goals (so at most each of them)."""
    level = TINY if which == "tiny" else microban(which)
    rng = np.random.default_rng(5)
    positions = [(level.boxes, level.player)] + _pushed_positions(level, rng, 6, 8)
    checked = 0
    for k in (1, 2):
        params = pattern_params(level, k)
        table, _ = build_pattern_table(level, k)
        for boxes, player in positions:
            for group in combinations(sorted(boxes), k):
                if any(params.pat_index[c] < 0 for c in group):
                    continue
                value = int(table[pattern_rank(params, group, player)])
                optima = [bfs_min_pushes(_sub_level(level, group, goals, player))
                          for goals in combinations(sorted(level.goals), k)]
                finite = [o for o in optima if o is not None]
                for o in finite:
                    assert value <= o
                assert value == (min(finite) if finite else 255)
                checked += 1
    assert checked >= 10


def _pushed_positions(level: Level, rng, count: int, depth: int):
    """Positions a few random pushes away from the start (reachable ones)."""
    out = []
    for _ in range(count):
        boxes, player = level.boxes, level.player
        for _ in range(int(rng.integers(1, depth + 1))):
            succ = sorted(python_successors(level, boxes, player, "pushes"),
                          key=lambda s: (sorted(s[0]), s[1], s[3]))
            if not succ:
                break
            boxes, player = succ[int(rng.integers(len(succ)))][:2]
        out.append((boxes, player))
    return out


def _solution_positions(level: Level):
    """The start and the position after every push of a push-optimal solution."""
    lurd = bfs_min_pushes_solution(level)
    out = [(level.boxes, level.player)]
    for i, ch in enumerate(lurd):
        if ch.isupper():
            boxes, player, _, _ = replay_lurd(level, lurd[:i + 1])
            out.append((boxes, player))
    return out


@pytest.mark.parametrize("grouping", ["greedy", "static"])
@pytest.mark.parametrize("number", [1, 2, 3, 4, 5, 7])
def test_additive_bound_never_exceeds_the_true_pushes(number, grouping):
    level = microban(number)
    puzzle = SokobanPuzzle(level, heuristic="pdb", grouping=grouping)
    moves = SokobanPuzzle(level, metric="moves", heuristic="pdb", patterns=puzzle.patterns,
                          grouping=grouping)
    rng = np.random.default_rng(number)
    positions = _solution_positions(level) + _pushed_positions(level, rng, 12, 10)
    solvable = 0
    for boxes, player in positions:
        if any(c in puzzle.dead_squares for c in boxes):
            continue
        here = level.with_state(boxes, player)
        h = int(evaluate_heuristic(puzzle.params, puzzle.key_of(boxes, player)))
        true = bfs_min_pushes(here)
        if true is None:
            continue  # a dead state: any value (DEAD included) is a bound
        solvable += 1
        assert h <= true, (sorted(boxes), player)
        # raised to the parity every solution's pushes have
        assert (true - h) % 2 == 0, (sorted(boxes), player, h, true)
        assert true % 2 == (cell_parity(boxes, level.width) - cell_parity(level.goals, level.width)) % 2
        h_moves = int(evaluate_heuristic(moves.params, moves.key_of(boxes, player)))
        assert h_moves < DEAD and h_moves <= bfs_min_moves(here)
    assert solvable >= 5


@pytest.mark.parametrize("metric", ["pushes", "moves"])
@pytest.mark.parametrize("number", [1, 3, 4, 5, 7])
def test_the_two_halves_of_the_bound_make_the_whole(number, metric):
    """Lazy A* queues a node with the cheap half (the matching) and takes
    the dear half (the pattern bound) when the node comes first: the larger
    of the two must be the whole heuristic, DEAD when either is, on the
    positions (alive or dead) of a solution and of random pushes."""
    level = microban(number)
    puzzle = SokobanPuzzle(level, metric=metric, heuristic="pdb")
    assert puzzle.lazy_bound
    rng = np.random.default_rng(100 + number)
    positions = _solution_positions(level) + _pushed_positions(level, rng, 30, 12)
    raised = dead = 0
    for boxes, player in positions:
        if any(c in puzzle.dead_squares for c in boxes):
            continue        # no key: a box on a dead square is pruned by the push
        key = puzzle.key_of(boxes, player)
        whole = int(evaluate_heuristic(puzzle.params, key))
        first, dear = (int(v) for v in evaluate_bound_halves(puzzle.params, key))
        both = DEAD if DEAD in (first, dear) else max(first, dear)
        assert min(both, DEAD) == min(whole, DEAD), (sorted(boxes), player, first, dear, whole)
        raised += first < dear < DEAD
        dead += whole >= DEAD
    assert raised + dead > 0    # the dear half did some work on these positions


def test_only_push_optimal_astar_defers_the_pattern_bound():
    """Weighted A*, greedy search and the heuristics without pattern tables
    queue nodes by the whole bound; A* with the pdb heuristic reports its
    refinements."""
    level = microban(4)
    lazy = solve(SokobanPuzzle(level, heuristic="pdb", rules=Rules(perimeter=False)), "astar")
    assert lazy.optimal and lazy.cost == bfs_min_pushes(level)
    report = lazy.extra["astar"]
    assert 0 < report["refined"] <= lazy.generated and report["refined_raised"] <= report["refined"]
    assert not SokobanPuzzle(level, heuristic="matching").lazy_bound
    for algo, weight in (("wastar", 2.0), ("greedy", 1.0)):
        engine = ALGORITHMS[algo].make(SokobanPuzzle(level, heuristic="pdb"), weight, Limits())
        assert engine.lazy is False


@pytest.mark.parametrize("number", [1, 3, 5, 7])
def test_astar_with_patterns_is_push_optimal(number):
    level = microban(number)
    result = solve(SokobanPuzzle(level, heuristic="pdb"), "astar")
    assert result.optimal and result.cost == bfs_min_pushes(level)


def test_the_start_pushes_its_walk_into_the_moves_bound():
    """Moves metric: a player away from every box must walk first, and the
    bound says so (2 steps to reach the box, and it stays below the optimum)."""
    level = xsb("""\
#######
#@  $.#
#######
""")
    puzzle = SokobanPuzzle(level, metric="moves", heuristic="pdb")
    h = int(evaluate_heuristic(puzzle.params, puzzle.initial_key()))
    assert h == 1 + 2 and bfs_min_moves(level) == 3


def test_the_cache_is_reused_and_a_file_for_another_level_refused(tmp_path, capsys):
    level, other = microban(1), microban(2)
    said = []
    first = obtain_patterns(level, db_dir=tmp_path, log=said.append)
    assert any("building" in s for s in said)
    files = list(tmp_path.glob("sokoban-patterns-*.h5"))
    assert len(files) == 1
    said.clear()
    again = obtain_patterns(level, db_dir=tmp_path, log=said.append)
    assert said == [] and np.array_equal(first.table, again.table)
    # another start position on the same board shares the file
    moved = level.with_state(player=min(level.playable_cells() - level.boxes))
    obtain_patterns(moved, db_dir=tmp_path, log=said.append)
    assert said == []
    with pytest.raises(PdbFileError, match="made for level"):
        obtain_patterns(other, pdb_path=files[0])
    code = main(["solve", str(MICROBAN), "--level", "2", "--pdb", str(files[0])])
    err = capsys.readouterr().err
    assert code == 2 and "made for level" in err and str(files[0]) in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_compiling_the_builder_does_not_use_up_the_tables_time(monkeypatch):
    """A fresh install compiles the builder on its first table for seconds;
    the deadline of the tables after it moves back by that much (it once
    stopped a 5 s solve's 2-box table before it began)."""
    import time

    from pdbsearch.compile_time import note_compile_seconds
    from pdbsearch.sokoban import database

    real = database.build_pattern_table
    calls = []

    def slow_first_compile(level, k, progress=False, deadline=None):
        if not calls:
            note_compile_seconds(3600.0)   # as if compiling took an hour
            deadline += 3600.0            # (build_table moves its own deadline)
        calls.append(k)
        return real(level, k, progress, deadline=deadline)

    monkeypatch.setattr(database, "build_pattern_table", slow_first_compile)
    level = microban(1)
    started = time.perf_counter()
    # a deadline already past when the first table is done
    _, _, built = database.build_patterns(level, 2, deadline=started - 1.0)
    assert calls == [1, 2] and built == 2
