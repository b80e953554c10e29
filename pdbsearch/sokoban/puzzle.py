"""Sokoban on the generic :class:`~pdbsearch.puzzle.Puzzle` interface.

:class:`SokobanPuzzle` turns a :class:`~.level.Level`, a metric, a lower
bound and a set of pruning :class:`Rules` into the params of the jitted
kernels (:mod:`.kernels`), and replays every solution the engines report
with the plain-Python checker of :mod:`.reference` before it is shown.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from dataclasses import dataclass, fields
from typing import Any, Sequence

import numpy as np

from ..errors import IllegalMoveError, PdbsearchError
from ..puzzle import Puzzle, Step
from .deadlocks import dead_square_mask
from .formats import format_xsb
from .kernels import (GROUPING_CODES, HEURISTIC_CODES, METRIC_CODES, MOVE_BASE,
                      SokobanParams)
from .model import Level
from .checker import check_solution as replay_check
from .tables import (KeyLayout, grid_deltas, player_aware_tables, pull_distances,
                     region_cells, tunnel_axes)

_LURD = "lurd"
#: the lower bounds of this domain (all admissible, for both metrics),
#: weakest first; ``pdb`` is max(matching, additive k-box pattern bound)
HEURISTICS = ("zero", "simple", "matching", "pdb")
#: how the pattern bound groups boxes (see kernels._pattern_bound)
GROUPINGS = ("greedy", "static")
METRICS = ("pushes", "moves")


@dataclass(frozen=True)
class Rules:
    """Which deadlock and pruning rules the search uses (all sound; see
    :mod:`.deadlocks`).  Each has a ``--no-...`` switch on the command line
    so that its effect can be measured."""

    dead_squares: bool = True   #: never push a box onto a dead square
    freeze: bool = True         #: prune freeze deadlocks (2x2 blocks, frozen chains)
    corral: bool = True         #: PI-corral pruning and corral deadlocks
    tunnels: bool = True        #: one-way tunnel pruning

    def names(self) -> list[str]:
        """The names of the rules switched on."""
        return [f.name.replace("_", "-") for f in fields(self) if getattr(self, f.name)]

    def describe(self) -> str:
        """The rules switched on, as ``dead-squares+freeze+...`` (or ``none``)."""
        return "+".join(self.names()) or "none"


class SokobanPuzzle(Puzzle):
    """One Sokoban level under a metric, with a lower bound and pruning rules."""

    domain = "sokoban"

    #: most k-subsets (k >= 3) the greedy grouping looks up per state
    GROUP_LIMIT = 128

    def __init__(self, level: Level, metric: str = "pushes", heuristic: str = "matching",
                 rules: Rules = Rules(), *, patterns=None, pattern_boxes: int | None = None,
                 grouping: str = "greedy", db_dir=None, pdb_path=None, log=None):
        """``heuristic="pdb"`` uses ``patterns`` (a loaded
        :class:`~.pattern_db.PatternTables`), or finds or builds the level's
        pattern PDB of up to ``pattern_boxes`` boxes (default: as many as
        fit, up to 4) in ``db_dir`` (or reads ``pdb_path``); ``log`` (None:
        silent) hears about builds.  The default heuristic stays
        ``matching`` here, so that making a puzzle writes no file; the
        command line defaults to ``pdb``."""
        if metric not in METRICS:
            raise PdbsearchError(f"unknown metric {metric!r}; choose from {', '.join(METRICS)}")
        if heuristic not in HEURISTICS:
            raise PdbsearchError(f"unknown heuristic {heuristic!r}; choose from "
                                 f"{', '.join(HEURISTICS)}")
        if grouping not in GROUPINGS:
            raise PdbsearchError(f"unknown grouping {grouping!r}; choose from "
                                 f"{', '.join(GROUPINGS)}")
        if pattern_boxes is not None and not 1 <= pattern_boxes <= 4:
            raise PdbsearchError(f"patterns of {pattern_boxes} boxes: choose from 1 to 4")
        if heuristic == "pdb" and patterns is None:
            from .database import MAX_K, obtain_patterns
            patterns = obtain_patterns(level, pattern_boxes or MAX_K, db_dir, pdb_path,
                                       log=log)
        self.patterns = patterns if heuristic == "pdb" else None
        self.grouping = grouping
        self.level = level
        self.metric = metric
        self.heuristic_name = heuristic
        self.heuristic_admissible = True
        self.unit_costs = metric == "pushes"
        self.rules = rules
        self.max_successors = 4 * len(level.boxes)
        self._build_params()

    # -- tables -----------------------------------------------------------

    def _build_params(self) -> None:
        level, rules = self.level, self.rules
        n_grid = level.width * level.height
        region = region_cells(level)
        dist = pull_distances(level, region)
        dead = dead_square_mask(dist, n_grid)
        inside = np.zeros(n_grid, dtype=np.uint8)
        inside[region] = 1
        dead &= inside
        self.dead_squares = frozenset(np.flatnonzero(dead).tolist())
        # A box never stands on a dead square once they are pruned (except
        # where it starts), so those cells need no bit in the key.
        if rules.dead_squares:
            box_cells = [c for c in region if not dead[c] or c in level.boxes]
        else:
            box_cells = region
        layout = KeyLayout.build(region, box_cells)
        self.layout = layout
        self.key_words = layout.words
        goal = np.zeros(n_grid, dtype=np.uint8)
        goal[sorted(level.goals)] = 1
        box_bit = np.full(n_grid, -1, dtype=np.int32)
        box_bit[list(layout.box_cells)] = np.arange(len(layout.box_cells), dtype=np.int32)
        player_index = np.full(n_grid, -1, dtype=np.int32)
        player_index[list(layout.region)] = np.arange(len(layout.region), dtype=np.int32)
        box_mask = np.zeros(layout.words, dtype=np.uint64)
        for i in range(len(layout.box_cells)):
            box_mask[i >> 6] |= np.uint64(1 << (i & 63))
        goal_mask = layout.encode(level.goals, 0)
        n_boxes = len(level.boxes)
        tunnel = tunnel_axes(level, region) if rules.tunnels else np.zeros(n_grid, np.int8)
        goal_cells = np.array(sorted(level.goals), dtype=np.int32)
        deltas = grid_deltas(level.width)
        aware, side_comp, side_dist = player_aware_tables(inside, region, goal_cells, deltas,
                                                          player_index)
        self.params = SokobanParams(
            width=level.width, metric=METRIC_CODES[self.metric],
            heuristic=HEURISTIC_CODES[self.heuristic_name], incremental=1,
            freeze=int(rules.freeze), corral=int(rules.corral), tunnels=int(rules.tunnels),
            n_boxes=n_boxes, player_shift=layout.player_shift,
            inside=inside, goal=goal,
            dead=dead if rules.dead_squares else np.zeros(n_grid, np.uint8),
            tunnel=tunnel, box_bit=box_bit,
            bit_cell=np.array(layout.box_cells, dtype=np.int32),
            player_index=player_index, index_cell=np.array(layout.region, dtype=np.int32),
            box_mask=box_mask, goal_mask=goal_mask, dist=dist,
            nearest=dist.min(axis=0).astype(np.int32), aware=int(aware),
            goal_cells=goal_cells, side_comp=side_comp, side_dist=side_dist, deltas=deltas,
            **self._pattern_fields(n_grid, n_boxes), **work_arrays(n_grid, n_boxes))

    def _pattern_fields(self, n_grid: int, n_boxes: int) -> dict[str, Any]:
        """The ``pdb_*`` fields of the params (small placeholders without a PDB)."""
        pt = self.patterns
        if pt is None:
            return dict(pdb=np.full(1, 255, np.uint8), pdb_offset=np.zeros(2, np.int64),
                        pdb_k=0, pdb_binom=np.zeros((1, 1), np.int64),
                        pdb_index=np.full(n_grid, -1, np.int64),
                        pdb_grouping=GROUPING_CODES[self.grouping], pdb_limit=0,
                        pdb_box=np.zeros(1, np.int64), pdb_h1=np.zeros(1, np.int64),
                        pdb_used=np.zeros(1, np.int64), pdb_gain=np.zeros(1, np.int64),
                        pdb_members=np.zeros((1, 4), np.int64))
        # candidate groups: every pair, and up to the limit of triples and quadruples
        groups = n_boxes * (n_boxes - 1) // 2 + 2 * self.GROUP_LIMIT + 1
        return dict(pdb=pt.table, pdb_offset=pt.offsets, pdb_k=pt.k, pdb_binom=pt.binom,
                    pdb_index=pt.pat_index, pdb_grouping=GROUPING_CODES[self.grouping],
                    pdb_limit=self.GROUP_LIMIT,
                    pdb_box=np.zeros(n_boxes, np.int64), pdb_h1=np.zeros(n_boxes, np.int64),
                    pdb_used=np.zeros(n_boxes, np.int64), pdb_gain=np.zeros(groups, np.int64),
                    pdb_members=np.zeros((groups, 4), np.int64))

    # -- keys -------------------------------------------------------------

    def key_of(self, boxes, player: int) -> np.ndarray:
        """The key of a position (the player is normalised for pushes)."""
        boxes = frozenset(boxes)
        if self.metric == "pushes":
            player = self.level.normalized_player(player, boxes)
        return self.layout.encode(boxes, self.layout.region.index(player))

    def position_of(self, key: np.ndarray) -> tuple[frozenset[int], int]:
        """``(box cells, player cell)`` of a key."""
        return self.layout.decode(key)

    def initial_key(self) -> np.ndarray:
        """The key of the level's start position."""
        return self.key_of(self.level.boxes, self.level.player)

    def render(self, key: np.ndarray) -> str:
        """The position in XSB (the normalised player cell under pushes)."""
        boxes, player = self.position_of(key)
        return format_xsb(self.level, boxes, player, title=False).rstrip("\n")

    # -- solutions --------------------------------------------------------

    def check_solution(self, move_codes: Sequence[int]) -> tuple[list[Step], int]:
        """Rebuild the walks between the pushes (shortest walks, by BFS),
        then replay the whole LURD string with the independent checker of
        :mod:`.reference`; returns the steps (one per push, its text the
        walk and the push, e.g. ``"llUR"`` gives ``"llU"`` and ``"R"``) and
        the cost in this puzzle's metric."""
        level = self.level
        boxes = set(level.boxes)
        player = level.player
        steps = []
        for number, code in enumerate(move_codes, start=1):
            box, d = divmod(int(code), MOVE_BASE)
            delta = level.delta(_LURD[d])
            if box not in boxes:
                raise IllegalMoveError(f"push {number}: no box at row "
                                       f"{box // level.width + 1}, column {box % level.width + 1}")
            walk = shortest_walk(level, player, box - delta, boxes)
            if walk is None:
                raise IllegalMoveError(f"push {number}: the player cannot reach the cell "
                                       f"behind the box at row {box // level.width + 1}, "
                                       f"column {box % level.width + 1}")
            text = walk + _LURD[d].upper()
            steps.append(Step(int(code), 1 if self.metric == "pushes" else len(text), text))
            boxes.remove(box)
            boxes.add(box + delta)
            player = box
        lurd = "".join(s.text for s in steps)
        pushes, n_steps = replay_check(level, lurd)
        if pushes != len(steps):
            raise IllegalMoveError(f"the replay counts {pushes} pushes, not {len(steps)}")
        return steps, pushes if self.metric == "pushes" else n_steps

    @staticmethod
    def solution_fields(result) -> dict[str, Any]:
        """``pushes``, ``steps`` and ``lurd`` of a result (None if unsolved)."""
        if not result.steps and result.cost is None:
            return {"pushes": None, "steps": None, "lurd": None}
        lurd = "".join(s.text for s in result.steps)
        return {"pushes": sum(ch.isupper() for ch in lurd), "steps": len(lurd), "lurd": lurd}

    # -- command line -----------------------------------------------------

    def solve_command(self, args) -> int:
        """``pdbsearch solve LEVEL``: solve, print (text or ``--json`` with
        ``pushes``, ``steps`` and ``lurd``), and return the exit code."""
        from ..cli import _limits, _status_exit
        from ..search import solve
        from .domain import algo_and_weight

        algo, weight = algo_and_weight(args)
        progress = not (args.quiet or args.json) and sys.stderr.isatty()
        result = solve(self, algo, weight, _limits(args), progress=progress)
        if args.json:
            print(json.dumps({**result.to_json(), **self.solution_fields(result)}))
        elif args.quiet:
            print(result.cost if result.cost is not None else result.status.value)
        else:
            from ..cli import format_result
            print(format_result(self, result, args.boards))
        return _status_exit(result)

    # -- wording of reports (see Puzzle) --------------------------------------

    @property
    def cost_unit(self) -> str:
        """The metric's unit: pushes or moves."""
        return self.metric

    def optimality_word(self) -> str:
        """``push-optimal`` or ``move-optimal``."""
        return {"pushes": "push-optimal", "moves": "move-optimal"}[self.metric]

    def cost_text(self, result) -> str:
        """Both counts, e.g. ``"13 pushes, 41 steps"``."""
        sol = self.solution_fields(result)
        return f"{sol['pushes']} pushes, {sol['steps']} steps"

    def solution_lines(self, result) -> list[str]:
        """The LURD string."""
        return ["lurd: " + "".join(s.text for s in result.steps)]

    def describe(self) -> str:
        """One line naming the instance."""
        lv = self.level
        title = f" {lv.title!r}" if lv.title else ""
        boxes = f"{len(lv.boxes)} box{'es' if len(lv.boxes) != 1 else ''}"
        heuristic = self.heuristic_name
        if self.patterns is not None:
            heuristic += f" (patterns of 1-{self.patterns.k} boxes, {self.grouping})"
        return (f"sokoban{title} {lv.width}x{lv.height}, {boxes}, "
                f"{self.metric} metric, heuristic {heuristic}, "
                f"rules {self.rules.describe()}")


def work_arrays(n_grid: int, n_boxes: int) -> dict[str, np.ndarray]:
    """The kernels' scratch arrays (see :class:`~.kernels.SokobanParams`)."""
    per_cell = {"occ": np.uint8, "area": np.int64, "walk": np.int32, "seen": np.int64,
                "label": np.int64, "barmark": np.int64, "frozen": np.int64,
                "queue": np.int32, "stack": np.int32, "base_row": np.int32,
                "base_mark": np.int64}
    per_box = {"boxes": np.int32, "bars": np.int32, "all_bars": np.int32,
               "h_boxes": np.int32, "h_sides": np.int64, "h_changed": np.int32,
               "h_free": np.int32, "row_seen": np.int64, "base_cells": np.int32,
               "base_sides": np.int64}
    arrays = {name: np.zeros(n_grid, dtype) for name, dtype in per_cell.items()}
    arrays.update({name: np.zeros(n_boxes, dtype) for name, dtype in per_box.items()})
    arrays.update(counters=np.zeros(6, np.int64), base_info=np.zeros(3, np.int64),
                  base_cost=np.zeros((n_boxes, n_boxes), np.int64),
                  base_work=np.zeros((6, n_boxes + 1), np.int64))
    return arrays


def shortest_walk(level: Level, start: int, goal: int, boxes) -> str | None:
    """Lower-case LURD of a shortest walk from ``start`` to ``goal`` that
    avoids walls and ``boxes``, or None if there is none."""
    if not level.is_floor(goal) or goal in boxes:
        return None
    came: dict[int, tuple[int, int] | None] = {start: None}
    todo = deque([start])
    while todo and goal not in came:
        c = todo.popleft()
        for k, ch in enumerate(_LURD):
            n = c + level.delta(ch)
            if n not in came and level.is_floor(n) and n not in boxes:
                came[n] = (c, k)
                todo.append(n)
    if goal not in came:
        return None
    path = []
    while came[goal] is not None:
        goal, k = came[goal]
        path.append(_LURD[k])
    return "".join(reversed(path))
