"""Shared helpers of the Sokoban solver tests: level files, a plain-Python
successor function (the second opinion on the kernels), kernel calls."""

from __future__ import annotations

import importlib
import sys
from collections import deque
from dataclasses import replace
from pathlib import Path

import numpy as np

from pdbsearch.byref import to_ref
from pdbsearch.search.common import expand_into, successor_buffers
from pdbsearch.sokoban import Level, load_levels, parse_xsb_collection
from pdbsearch.sokoban.deadlocks import cut_work, sealed_goal_deadlock, stranded_goal_deadlock
from pdbsearch.sokoban.kernels import N_COUNTERS, SEEN
from pdbsearch.sokoban.puzzle import Rules

LEVELS = Path(__file__).resolve().parents[2] / "puzzles"
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
PUSH = LEVELS / "push"
MICROBAN = LEVELS / "sokoban" / "microban.txt"

#: The freeze rule alone (with its sealed/stranded-goal check), every other rule off.
ONLY_FREEZE = replace(Rules.none(), freeze=True)

#: Microban levels whose push- and move-optimal BFS take well under a second.
SMALL_MICROBAN = (1, 2, 3, 4, 5, 7, 9, 12, 14, 17, 21, 25)




_cache: dict[Path, list[Level]] = {}


def script_module(name: str):
    """The module of ``scripts/<name>.py`` (the scripts are no package)."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def microban(number: int) -> Level:
    """Microban level ``number`` (1-based)."""
    path = MICROBAN
    if path not in _cache:
        _cache[path] = load_levels(path)
    return _cache[path][number - 1]


def xsb(text: str) -> Level:
    """The first level of an XSB text."""
    return parse_xsb_collection(text)[0]


def walk_distances(level: Level, player: int, boxes) -> dict[int, int]:
    """Steps from ``player`` to every cell it can walk to."""
    dist = {player: 0}
    todo = deque([player])
    while todo:
        c = todo.popleft()
        for n in level.neighbors(c):
            if n not in boxes and n not in dist:
                dist[n] = dist[c] + 1
                todo.append(n)
    return dist


def python_successors(level: Level, boxes, player: int, metric: str,
                      dead=frozenset()) -> set[tuple]:
    """Every push from a position, as ``(boxes, player, cost, code)``: the
    plain-Python definition the kernels must agree with (no pruning other
    than never pushing onto ``dead`` cells)."""
    boxes = frozenset(boxes)
    reach = walk_distances(level, player, boxes)
    out = set()
    for box in boxes:
        for k, ch in enumerate("lurd"):
            d = level.delta(ch)
            target = box + d
            if (box - d not in reach or target in boxes or target in dead
                    or not level.is_floor(target)):
                continue
            new_boxes = (boxes - {box}) | {target}
            if metric == "pushes":
                out.add((new_boxes, level.normalized_player(box, new_boxes), 1, box * 4 + k))
            else:
                out.add((new_boxes, box, reach[box - d] + 1, box * 4 + k))
    return out


def kernel_successors(puzzle, boxes, player: int) -> set[tuple]:
    """The kernel's successors of a position, in the same form."""
    keys, costs, moves = successor_buffers(puzzle)
    n = expand_into(puzzle.params, puzzle.key_of(boxes, player), keys, costs, moves)
    out = set()
    for i in range(n):
        new_boxes, new_player = puzzle.position_of(keys[i])
        out.add((new_boxes, new_player, int(costs[i]), int(moves[i])))
    return out


def random_position(level: Level, rng: np.random.Generator,
                    avoid=frozenset()) -> tuple[frozenset[int], int]:
    """Random boxes (as many as the level has, none on ``avoid``) and a
    random player, all on playable cells."""
    cells = sorted(level.playable_cells())
    box_cells = [c for c in cells if c not in avoid]
    boxes = frozenset(box_cells[i] for i in rng.choice(len(box_cells), size=len(level.boxes),
                                                       replace=False))
    free = [c for c in cells if c not in boxes]
    return boxes, free[rng.integers(len(free))]


def goal_heavy_boxes(level: Level, rng: np.random.Generator, dead=frozenset()) -> frozenset[int]:
    """Random boxes (as many as the level has), a random number of them on
    goals and the rest anywhere live: positions where boxes on goals wall
    others in are common."""
    goals = sorted(level.goals)
    live = sorted(set(level.playable_cells()) - set(dead))
    k = len(level.boxes)
    on_goals = set(rng.choice(goals, size=rng.integers(0, k + 1), replace=False).tolist())
    rest = [c for c in live if c not in on_goals]
    more = rng.choice(rest, size=k - len(on_goals), replace=False).tolist()
    return frozenset(on_goals | set(more))


def _goal_test_arrays(puzzle, boxes) -> tuple:
    """The boxes, their occupancy and fresh work arrays for the goal tests
    of :mod:`pdbsearch.sokoban.deadlocks`."""
    n_grid = puzzle.params.inside.shape[0]
    cells = np.array(sorted(boxes), np.int32)
    occ = np.zeros(n_grid, np.uint8)
    occ[cells] = 1
    work = (np.zeros(n_grid, np.int64), 1, np.zeros(n_grid, np.int64),
            np.zeros(N_COUNTERS, np.int64), SEEN, np.zeros(n_grid, np.int32))
    return cells, occ, work


def sealed_kernel(puzzle, boxes) -> bool:
    """:func:`~pdbsearch.sokoban.deadlocks.sealed_goal_deadlock` on ``boxes``."""
    p = puzzle.params
    cells, occ, work = _goal_test_arrays(puzzle, boxes)
    return bool(sealed_goal_deadlock(cells, len(cells), occ, p.inside, p.goal, p.goal_cells,
                                     p.dead, p.deltas, *work))


def stranded_kernel(puzzle, boxes, player: int, cut=None) -> bool:
    """:func:`~pdbsearch.sokoban.deadlocks.stranded_goal_deadlock` on
    ``boxes`` and ``player``; ``cut`` is the pull's scratch to use (fresh
    if None), which a caller passes again to test what one call leaves
    for the next."""
    p = puzzle.params
    cells, occ, work = _goal_test_arrays(puzzle, boxes)
    if cut is None:
        cut = to_ref(cut_work(len(occ)))
    return bool(stranded_goal_deadlock(cells, len(cells), player, occ, p.inside, p.goal,
                                       p.goal_cells, p.dead, p.deltas, *work, cut))


def many_boxes_text(n: int) -> str:
    """An XSB level of ``n`` boxes and ``n`` goals (rows of 40 interior
    cells: the player, the boxes, then the goals), to test the box limit."""
    cells = "@" + "$" * n + "." * n
    width = 40
    rows = ["#" * (width + 2)]
    for start in range(0, len(cells), width):
        rows.append("#" + cells[start:start + width].ljust(width) + "#")
    rows.append("#" * (width + 2))
    return "\n".join(rows) + "\n"
