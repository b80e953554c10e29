#!/usr/bin/env python
"""Generate solvable Sokoban levels with a goal room, to measure the
goal-room macros (``pdbsearch.sokoban.goalrooms``) on the kind of level
they are for, which none of the bundled development sets has.

Each level is a chamber with scattered inner walls and, through a corridor
of one to three cells, a room of three rows (the corridor enters the
middle one) whose cells are about half goals (a full room cannot be
filled from one door).  It
starts solved (a box on every goal, the player in the chamber) and is
played *backwards*: random macro pulls (one box pulled any number of
times, :func:`pdbsearch.sokoban.macros.box_macros`), each step taking one
of the pulls that leave the most boxes in the chamber, until every box is
out of the room and its corridor, then some more pulls inside the chamber.
Pulls reversed are pushes, so every level is solvable.

    python scripts/gen_goalroom_levels.py --count 20 --out bench-results/goalrooms.xsb
    pdbsearch levels bench-results/goalrooms.xsb --algo fess-only --time-limit 10
    pdbsearch levels bench-results/goalrooms.xsb --algo fess-only --time-limit 10 --no-goal-rooms
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from pdbsearch.cli.options import positive_int
from pdbsearch.io import atomic_write_text
from pdbsearch.sokoban.formats import format_xsb_collection
from pdbsearch.sokoban.macros import box_macros, macro_work
from pdbsearch.sokoban.model import Level
from pdbsearch.sokoban.tables import flood_smallest, grid_deltas


def _board(rng: np.random.Generator, boxes: int):
    """Walls, the goals (in the room), the room and corridor cells, the
    chamber's cells and the corridor's first cell."""
    # Three rows, the corridor entering the middle one: every goal can be
    # reached from it while the goals are filled from the far end.
    room_h = 3
    room_w = -(-boxes // 2) + int(rng.integers(0, 2))   # about half the cells goals
    # The chamber grows with the boxes (room to pull them apart).
    ch_h = int(rng.integers(6, 9)) + boxes // 8
    ch_w = int(rng.integers(7, 11)) + boxes // 4
    corridor = int(rng.integers(1, 4))
    height = ch_h + 2
    width = ch_w + corridor + room_w + 3
    walls = np.ones((height, width), dtype=bool)
    walls[1:1 + ch_h, 1:1 + ch_w] = False
    door_row = int(rng.integers(2, ch_h))
    corridor_cells = [door_row * width + 1 + ch_w + i for i in range(corridor)]
    for c in corridor_cells:
        walls.flat[c] = False
    top = door_row - 1
    left = 1 + ch_w + corridor
    room = [(top + r) * width + left + c for r in range(room_h) for c in range(room_w)]
    for c in room:
        walls.flat[c] = False
    goals = [int(c) for c in rng.permutation(room)[:boxes]]
    chamber = [r * width + c for r in range(1, 1 + ch_h) for c in range(1, 1 + ch_w)]
    # Inner walls, never two touching one another (the chamber stays open).
    for c in rng.permutation(chamber)[: len(chamber) // 8]:
        c = int(c)
        near = [c + d for d in (-1, 1, -width, width, -width - 1, -width + 1, width - 1,
                                width + 1)]
        if c % width in (1, ch_w) or c // width in (1, ch_h):
            continue
        if not any(walls.flat[x] and x in chamber for x in near):
            walls.flat[c] = True
    chamber = [c for c in chamber if not walls.flat[c]]
    return walls, goals, set(room) | set(corridor_cells), chamber, corridor_cells[0]


def _steps_from(start: int, inside: np.ndarray, deltas) -> np.ndarray:
    """Walking distance of every cell from ``start``."""
    dist = np.full(inside.shape[0], 1 << 20, np.int64)
    dist[start] = 0
    todo = [start]
    for c in todo:
        for d in deltas:
            x = c + int(d)
            if inside[x] and dist[x] > dist[c] + 1:
                dist[x] = dist[c] + 1
                todo.append(x)
    return dist


def _pull_step(rng, inside, occ, boxes, player, deltas, dead, mw, area, stack, label, tag,
               inner: set[int], far: np.ndarray):
    """One random macro pull among those leaving the most boxes out of
    ``inner``, and the pulled box at least three steps from the room's
    door when it can (``far``: distances from it; the door stays clear);
    returns the new boxes and player (None: no pull)."""
    flood_smallest(player, occ, inside, deltas, area, tag, stack)
    options = []
    for s in boxes:
        n = box_macros(s, player, area, tag, inside, occ, dead, deltas, label, -1, -1, mw,
                       4 * inside.shape[0], True)
        for i in range(n):
            st = int(mw.emit[i])
            t, k = st >> 2, st & 3
            if t != s:
                options.append((s, t, t + int(deltas[k])))
    if not options:
        return None
    out = [(sum(b not in inner for b in boxes if b != s) + (t not in inner), min(far[t], 3))
           for s, t, _ in options]
    best = max(out)
    s, t, man = options[int(rng.choice([i for i, v in enumerate(out) if v == best]))]
    return (boxes - {s}) | {t}, man


def generate(rng: np.random.Generator, boxes: int, extra: int) -> Level | None:
    """One level (None when the backward play got stuck)."""
    walls, goals, inner, chamber, door = _board(rng, boxes)
    height, width = walls.shape
    inside = (~walls).astype(np.uint8).ravel()
    # Outside the board is walls all round: the region is every floor cell.
    deltas = grid_deltas(width)
    n_grid = width * height
    dead = np.zeros(n_grid, np.uint8)
    mw = macro_work(n_grid)
    area = np.zeros(n_grid, np.int64)
    stack = np.empty(n_grid, np.int64)
    label = np.zeros(n_grid, np.int32)
    state = frozenset(goals)
    player = int(rng.choice([c for c in chamber if c not in state]))
    occ = np.zeros(n_grid, np.uint8)
    far = _steps_from(door, inside, deltas)
    steps = 0
    moved_out = False
    while steps < 40 * boxes:
        occ[:] = 0
        occ[list(state)] = 1
        step = _pull_step(rng, inside, occ, state, player, deltas, dead, mw, area, stack,
                          label, steps + 1, inner, far)
        if step is None:
            return None
        state, player = step
        steps += 1
        if not moved_out and not state & inner:
            moved_out = True
            steps = 40 * boxes - extra
    if state & inner or player in inner:
        return None
    return Level.from_parts(walls, goals, sorted(state), [player])


def main(argv=None) -> int:
    """Write ``--count`` generated levels to ``--out`` as an XSB collection."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=positive_int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--boxes", type=positive_int, nargs=2, default=(6, 10),
                        metavar=("LOW", "HIGH"), help="boxes per level, drawn in LOW..HIGH")
    parser.add_argument("--extra", type=positive_int, default=8,
                        help="pulls in the chamber once every box is out of the room")
    parser.add_argument("--out", required=True, help="the XSB file to write")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    levels = []
    tries = 0
    while len(levels) < args.count:
        tries += 1
        if tries > 50 * args.count:
            print("gave up: the backward play keeps getting stuck", file=sys.stderr)
            return 1
        level = generate(rng, int(rng.integers(args.boxes[0], args.boxes[1] + 1)), args.extra)
        if level is not None:
            levels.append(level)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(Path(args.out), "; Generated by scripts/gen_goalroom_levels.py "
                      f"--seed {args.seed} (solvable by construction)\n\n"
                      + format_xsb_collection(levels))
    print(f"wrote {len(levels)} levels to {args.out} ({tries} tries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
