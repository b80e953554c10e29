"""Plain-Python Sokoban oracles: replay, dead squares, exhaustive BFS.

Everything here is deliberately simple and independent of the numba code,
so that tests can check the fast solver against it.  The searches are
exhaustive breadth-first searches over Python sets: fine for small levels
(up to some hundred thousand states), hopeless for big ones.

Metrics: **pushes** counts upper-case moves only; **steps** (or moves)
counts every move, pushes included.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable

import numpy as np

from pdbsearch.errors import IllegalMoveError, PdbsearchError
from pdbsearch.sokoban.level import Level

#: Default cap on the number of distinct states a BFS may store.
DEFAULT_MAX_STATES = 1_000_000

_LURD = "lurd"


class StateLimitError(PdbsearchError, RuntimeError):
    """A reference search stored more states than its ``max_states``."""


def _deltas(level: Level) -> tuple[int, int, int, int]:
    """Index offsets of l, u, r, d (LURD order)."""
    w = level.width
    return (-1, -w, 1, w)


# -- replay -------------------------------------------------------------------


def replay_lurd(level: Level, lurd: str, boxes: Iterable[int] | None = None,
                player: int | None = None
                ) -> tuple[frozenset[int], int, int, int]:
    """Replay a LURD string; return ``(boxes, player, pushes, steps)``.

    Lower case letters are steps (the target cell must be free floor), upper
    case letters are pushes (the target cell must hold a box, and the cell
    beyond it must be free floor).  Whitespace is skipped, so wrapped
    solutions replay.  The replay starts from the level's start position
    unless ``boxes``/``player`` are given.

    Raises :class:`IllegalMoveError` at the first illegal move; the error's
    ``move_number`` attribute is the 1-based number of that move (blanks not
    counted) and ``index`` its 0-based index in ``lurd``.
    """
    box_set = set(level.boxes if boxes is None else boxes)
    man = level.player if player is None else player
    offsets = dict(zip(_LURD, _deltas(level)))
    pushes = steps = 0
    for index, ch in enumerate(lurd):
        if ch.isspace():
            continue
        def illegal(why: str) -> IllegalMoveError:
            return _illegal(level, man, ch, index, steps + 1, why)

        if ch.lower() not in offsets:
            raise illegal("not a LURD move")
        d = offsets[ch.lower()]
        target = man + d
        if not level.is_floor(target):
            raise illegal("walks into a wall")
        if ch.islower():
            if target in box_set:
                raise illegal("a step runs into a box (pushes are upper case)")
        else:
            if target not in box_set:
                raise illegal("a push with no box to push (steps are lower "
                              "case)")
            beyond = target + d
            if not level.is_floor(beyond):
                raise illegal("pushes the box into a wall")
            if beyond in box_set:
                raise illegal("pushes the box into another box")
            box_set.remove(target)
            box_set.add(beyond)
            pushes += 1
        man = target
        steps += 1
    return frozenset(box_set), man, pushes, steps


def _illegal(level: Level, man: int, ch: str, index: int, number: int,
             why: str) -> IllegalMoveError:
    """The error for move ``number`` (``ch`` at ``index`` of the string)."""
    row, col = level.row_col(man)
    err = IllegalMoveError(f"move {number} ({ch!r}, character {index + 1}) "
                           f"from row {row + 1}, column {col + 1}: {why}")
    err.move_number, err.index = number, index
    return err


def check_solution(level: Level, lurd: str) -> tuple[int, int]:
    """Replay ``lurd`` and return ``(pushes, steps)`` if it solves the level.

    Raises :class:`IllegalMoveError` if a move is illegal or if some box is
    off its goal at the end.
    """
    boxes, _, pushes, steps = replay_lurd(level, lurd)
    if not level.is_solved(boxes):
        off = len(boxes - level.goals)
        raise IllegalMoveError(
            f"the solution replays ({steps} moves, {pushes} pushes) but ends "
            f"with {off} box{'es' if off != 1 else ''} off the goals")
    return pushes, steps


# -- dead squares -------------------------------------------------------------


def dead_squares(level: Level) -> np.ndarray:
    """Floor cells from which a lone box can never reach any goal.

    Found backwards: a box on a goal is live, and a box that can be pulled
    from a live cell ``c`` to ``c - d`` (the player standing on ``c - d``
    steps back to ``c - 2d``: both must be floor) is live too.  The player's
    access to the pulling side is ignored, so a cell marked dead is surely
    dead (the converse need not hold).  Returns a bool array of shape
    ``(height, width)``; walls and outside cells are False.
    """
    deltas = _deltas(level)
    live = set(level.goals)
    todo = deque(level.goals)
    while todo:
        c = todo.popleft()
        for d in deltas:
            prev = c - d
            if (prev not in live and level.is_floor(prev)
                    and level.is_floor(c - 2 * d)):
                live.add(prev)
                todo.append(prev)
    dead = np.zeros((level.height, level.width), dtype=bool)
    for cell in level.floor_cells():
        if cell not in live:
            dead.flat[cell] = True
    return dead


def _dead_set(level: Level, prune_dead: bool) -> frozenset[int]:
    if not prune_dead:
        return frozenset()
    return frozenset(np.flatnonzero(dead_squares(level)).tolist())


# -- push-optimal BFS ---------------------------------------------------------

# A push-level state: (box cells, normalised player cell).
_PushState = tuple[frozenset[int], int]


def _push_bfs(level: Level, max_states: int, prune_dead: bool
              ) -> tuple[_PushState, dict] | None:
    """BFS by pushes.  Returns the goal state and the parent links
    (state -> (parent state, box cell, direction index)), or None."""
    deltas = _deltas(level)
    dead = _dead_set(level, prune_dead)
    start: _PushState = (level.boxes, level.normalized_player())
    parents: dict[_PushState, tuple | None] = {start: None}
    if level.is_solved():
        return start, parents
    frontier = [start]
    while frontier:
        layer = []
        for state in frontier:
            boxes, man = state
            reach = level.reachable(man, boxes)
            for box in boxes:
                for k, d in enumerate(deltas):
                    target = box + d
                    if (box - d not in reach or target in boxes
                            or target in dead or not level.is_floor(target)):
                        continue
                    new_boxes = (boxes - {box}) | {target}
                    man_area = level.normalized_player(box, new_boxes)
                    child = (new_boxes, man_area)
                    if child in parents:
                        continue
                    parents[child] = (state, box, k)
                    if new_boxes == level.goals:
                        return child, parents
                    if len(parents) > max_states:
                        raise StateLimitError(
                            f"push BFS stopped after {max_states} states")
                    layer.append(child)
        frontier = layer
    return None


def bfs_min_pushes(level: Level, max_states: int = DEFAULT_MAX_STATES,
                   prune_dead: bool = True) -> int | None:
    """The minimum number of pushes that solves the level, or None if no
    sequence of pushes does.

    Exhaustive BFS over (boxes, normalised player) states; boxes are never
    pushed onto dead squares when ``prune_dead`` (which cannot change the
    answer).  Raises :class:`StateLimitError` beyond ``max_states``.
    """
    found = _push_bfs(level, max_states, prune_dead)
    if found is None:
        return None
    state, parents = found
    pushes = 0
    while parents[state] is not None:
        state = parents[state][0]
        pushes += 1
    return pushes


def bfs_min_pushes_solution(level: Level,
                            max_states: int = DEFAULT_MAX_STATES,
                            prune_dead: bool = True) -> str | None:
    """A LURD solution with the minimum number of pushes, or None.

    The walks between pushes are shortest paths, but the total number of
    steps is not minimised among push-optimal solutions.
    """
    found = _push_bfs(level, max_states, prune_dead)
    if found is None:
        return None
    state, parents = found
    pushes: list[tuple[frozenset[int], int, int]] = []
    while parents[state] is not None:
        parent, box, k = parents[state]
        pushes.append((parent[0], box, k))
        state = parent
    pushes.reverse()
    deltas = _deltas(level)
    man, moves = level.player, []
    for boxes, box, k in pushes:
        moves.append(_walk(level, man, box - deltas[k], boxes))
        moves.append(_LURD[k].upper())
        man = box
    return "".join(moves)


def _walk(level: Level, start: int, goal: int, boxes: frozenset[int]) -> str:
    """Lower-case LURD of a shortest walk from ``start`` to ``goal``."""
    deltas = _deltas(level)
    came: dict[int, tuple[int, int] | None] = {start: None}
    todo = deque([start])
    while todo and goal not in came:
        c = todo.popleft()
        for k, d in enumerate(deltas):
            n = c + d
            if n not in came and level.is_floor(n) and n not in boxes:
                came[n] = (c, k)
                todo.append(n)
    if goal not in came:
        raise AssertionError("push BFS produced an unreachable push")
    path = []
    while came[goal] is not None:
        goal, k = came[goal]
        path.append(_LURD[k])
    return "".join(reversed(path))


# -- move-optimal BFS ---------------------------------------------------------

# A step-level state: (box cells, exact player cell).
_MoveState = tuple[frozenset[int], int]


def _move_bfs(level: Level, max_states: int, prune_dead: bool
              ) -> tuple[_MoveState, dict] | None:
    """BFS by single moves (steps and pushes alike cost 1).  Returns the
    goal state and parent links (state -> (parent, move char)), or None."""
    deltas = _deltas(level)
    dead = _dead_set(level, prune_dead)
    start: _MoveState = (level.boxes, level.player)
    parents: dict[_MoveState, tuple | None] = {start: None}
    if level.is_solved():
        return start, parents
    todo = deque([start])
    while todo:
        state = todo.popleft()
        boxes, man = state
        for k, d in enumerate(deltas):
            target = man + d
            if not level.is_floor(target):
                continue
            if target in boxes:
                beyond = target + d
                if (beyond in boxes or beyond in dead
                        or not level.is_floor(beyond)):
                    continue
                child = ((boxes - {target}) | {beyond}, target)
                move = _LURD[k].upper()
            else:
                child = (boxes, target)
                move = _LURD[k]
            if child in parents:
                continue
            parents[child] = (state, move)
            if child[0] == level.goals:
                return child, parents
            if len(parents) > max_states:
                raise StateLimitError(
                    f"move BFS stopped after {max_states} states")
            todo.append(child)
    return None


def bfs_min_moves(level: Level, max_states: int = DEFAULT_MAX_STATES,
                  prune_dead: bool = True) -> int | None:
    """The minimum number of moves (steps, pushes included) that solves the
    level, or None if it cannot be solved.

    Exhaustive BFS over (boxes, exact player cell) states.  Raises
    :class:`StateLimitError` beyond ``max_states``.
    """
    solution = bfs_min_moves_solution(level, max_states, prune_dead)
    return None if solution is None else len(solution)


def bfs_min_moves_solution(level: Level,
                           max_states: int = DEFAULT_MAX_STATES,
                           prune_dead: bool = True) -> str | None:
    """A LURD solution with the minimum number of moves, or None."""
    found = _move_bfs(level, max_states, prune_dead)
    if found is None:
        return None
    state, parents = found
    moves = []
    while parents[state] is not None:
        state, move = parents[state]
        moves.append(move)
    return "".join(reversed(moves))
