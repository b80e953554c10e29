"""A plain-Python breadth-first search of the Hakoiri rules: the test oracle.

It shares nothing with the package but the :class:`~pdbsearch.hakoiri.model.Board`
it reads the start from: its own grid, its own move generator for the three
metrics, its own goal test (the 2×2's top-left cell on the exit).  States are
canonical (pieces of the same shape interchangeable), as the puzzle's are.
"""

from __future__ import annotations

from collections import deque

# shape name -> (width, height)
_SIZES = {"1x1": (1, 1), "1x2": (2, 1), "2x1": (1, 2), "2x2": (2, 2)}
_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


class TooManyStates(Exception):
    """The space is larger than the caller allowed."""


def _start_state(board) -> frozenset:
    names = {(1, 1): "1x1", (2, 1): "1x2", (1, 2): "2x1", (2, 2): "2x2"}
    return frozenset((names[p.shape.size], p.x, p.y) for p in board.pieces)


def _successors(state: frozenset, width: int, height: int, metric: str):
    """Every state one move away (each move costs 1)."""
    grid = {}
    for i, (shape, x, y) in enumerate(sorted(state)):
        w, h = _SIZES[shape]
        for j in range(h):
            for k in range(w):
                grid[(x + k, y + j)] = (shape, x, y)
    for piece in state:
        shape, x0, y0 = piece
        w, h = _SIZES[shape]

        def free(x, y):
            if x < 0 or y < 0 or x + w > width or y + h > height:
                return False
            return all(grid.get((x + k, y + j), piece) == piece
                       for j in range(h) for k in range(w))

        targets = set()
        if metric == "free":
            seen = {(x0, y0)}
            todo = deque([(x0, y0)])
            while todo:
                x, y = todo.popleft()
                for dx, dy in _STEPS:
                    nxt = (x + dx, y + dy)
                    if nxt not in seen and free(*nxt):
                        seen.add(nxt)
                        todo.append(nxt)
            targets = seen - {(x0, y0)}
        else:
            for dx, dy in _STEPS:
                d = 1
                while free(x0 + d * dx, y0 + d * dy):
                    targets.add((x0 + d * dx, y0 + d * dy))
                    if metric == "unit":
                        break
                    d += 1
        for x, y in targets:
            yield (state - {piece}) | {(shape, x, y)}


def optimum(board, metric: str, max_states: int = 50000) -> int | None:
    """The fewest moves that bring the 2x2 to the exit, or None when no
    reachable state has it there (breadth first, stopping at the first goal
    generated, whose depth is then the least).  Raises
    :class:`TooManyStates` past ``max_states``."""
    goal = ("2x2", board.exit[0], board.exit[1])
    start = _start_state(board)
    if goal in start:
        return 0
    depth = {start: 0}
    todo = deque([start])
    while todo:
        state = todo.popleft()
        for nxt in _successors(state, board.width, board.height, metric):
            if nxt not in depth:
                depth[nxt] = depth[state] + 1
                if goal in nxt:
                    return depth[nxt]
                if len(depth) > max_states:
                    raise TooManyStates(len(depth))
                todo.append(nxt)
    return None
