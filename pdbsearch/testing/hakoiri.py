"""Plain-Python oracles of the Hakoiri abstraction, for the tests."""

from __future__ import annotations

from collections import deque


def reference_distances(width: int, height: int, exit_xy: tuple[int, int], n_empty: int,
                        metric: str) -> dict[tuple[tuple[int, int], frozenset], int]:
    """Exact relaxed distances by a plain BFS from every goal (small boards only)."""
    from itertools import combinations

    cells = [(x, y) for y in range(height) for x in range(width)]

    def body_moves(start, w, h, free):
        def fits(x, y):
            return all(0 <= x + i < width and 0 <= y + j < height and (x + i, y + j) in free
                       for j in range(h) for i in range(w))
        out = []
        if metric == "free":
            seen, queue = {start}, deque([start])
            while queue:
                x, y = queue.popleft()
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    nxt = (x + dx, y + dy)
                    if nxt not in seen and fits(*nxt):
                        seen.add(nxt)
                        queue.append(nxt)
                        out.append(nxt)
            return out
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            k = 1
            while fits(start[0] + k * dx, start[1] + k * dy):
                out.append((start[0] + k * dx, start[1] + k * dy))
                if metric == "unit":
                    break
                k += 1
        return out

    def footprint(x, y, w, h):
        return {(x + i, y + j) for j in range(h) for i in range(w)}

    def neighbours(state):
        (sx, sy), empties = state
        square = footprint(sx, sy, 2, 2)
        pieces = [c for c in cells if c not in square and c not in empties]
        bodies = [((sx, sy), 2, 2)] + [(c, 1, 1) for c in pieces]
        piece_set = set(pieces)
        for (x, y) in pieces:
            if (x + 1, y) in piece_set:
                bodies.append(((x, y), 2, 1))
            if (x, y + 1) in piece_set:
                bodies.append(((x, y), 1, 2))
        for (x, y), w, h in bodies:
            old = footprint(x, y, w, h)
            for nx, ny in body_moves((x, y), w, h, set(empties) | old):
                new = footprint(nx, ny, w, h)
                new_empties = frozenset((set(empties) | old) - new)
                new_square = (nx, ny) if (w, h) == (2, 2) else (sx, sy)
                yield (new_square, new_empties)

    dist = {}
    queue = deque()
    ex, ey = exit_xy
    square = footprint(ex, ey, 2, 2)
    for empties in combinations([c for c in cells if c not in square], n_empty):
        state = ((ex, ey), frozenset(empties))
        dist[state] = 0
        queue.append(state)
    while queue:
        state = queue.popleft()
        for nxt in neighbours(state):
            if nxt not in dist:
                dist[nxt] = dist[state] + 1
                queue.append(nxt)
    return dist
