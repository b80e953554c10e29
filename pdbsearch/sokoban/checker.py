"""The independent checker of Sokoban solutions: LURD replay in plain Python.

Every solution the program reports is replayed here before it is shown.  It
is deliberately simple and shares no code with the numba kernels.

Metrics: **pushes** counts upper-case moves only; **steps** (or moves)
counts every move, pushes included.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from pdbsearch.errors import IllegalMoveError
from pdbsearch.sokoban.model import Level

_LURD = "lurd"


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
    pushes = steps = 0
    for man, _, pushed in _moves(level, lurd, box_set, man):
        steps += 1
        pushes += pushed is not None
    return frozenset(box_set), man, pushes, steps


def replay_positions(level: Level, lurd: str
                     ) -> list[tuple[frozenset[int], int, str, int | None]]:
    """Every position along a LURD string from the level's start, with the
    same rules and errors as :func:`replay_lurd`: ``(boxes, player, move,
    pushed)`` for the start (move ``""``) and after each move, ``pushed``
    being the cell a push moved its box to (None for a step).  What the
    solution animations draw."""
    box_set = set(level.boxes)
    positions = [(frozenset(box_set), level.player, "", None)]
    for man, ch, pushed in _moves(level, lurd, box_set, level.player):
        positions.append((frozenset(box_set), man, ch, pushed))
    return positions


def _moves(level: Level, lurd: str, box_set: set[int], man: int
           ) -> Iterator[tuple[int, str, int | None]]:
    """The replay itself: play each move of ``lurd`` on ``box_set`` (changed
    in place) and the player at ``man``, yielding after each one ``(player,
    move, the pushed box's new cell or None)``; raises
    :class:`IllegalMoveError` at the first illegal move."""
    offsets = dict(zip(_LURD, _deltas(level)))
    steps = 0
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
        pushed = None
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
            pushed = beyond
        man = target
        steps += 1
        yield man, ch, pushed


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
