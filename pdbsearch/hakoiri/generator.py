"""A seeded random generator of solvable Hakoiri boards.

Pieces are dropped at random places (the 2×2 where asked), the remaining
cells becoming 1×1 pieces and empty cells.  A board is kept only when a
search *proves* it solvable by finding a solution, which the checker replays:
A* first (which also gives the optimal length when it finishes), then
weighted A*.  Boards proved unsolvable, or not solved within the node
budget, are discarded and drawn again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..errors import PdbsearchError
from .model import Board, Piece, Shape
from .formats import assign_labels, exit_cell


@dataclass(frozen=True)
class Recipe:
    """What to generate: board size, piece counts, and where the 2×2 starts."""

    width: int
    height: int
    verticals: int
    horizontals: int
    empty: int = 2
    square: str = "top"             #: "top", "random", or "X,Y"
    exit: str = "bottom"            #: "bottom" or "X,Y"

    @property
    def singles(self) -> int:
        """1×1 pieces: whatever area is left."""
        return (self.width * self.height - 4 - 2 * (self.verticals + self.horizontals)
                - self.empty)

    def check(self) -> None:
        """Raise PdbsearchError when the recipe cannot make a board."""
        if self.width < 2 or self.height < 2 or self.width > 64 or self.height > 64:
            raise PdbsearchError("board sides must be from 2 to 64")
        if self.empty < 1:
            raise PdbsearchError("a board needs at least one empty cell")
        if min(self.verticals, self.horizontals) < 0 or self.singles < 0:
            raise PdbsearchError(
                f"the pieces do not fit: {self.width}x{self.height} = {self.width * self.height} "
                f"cells, but 4 + 2x{self.verticals} + 2x{self.horizontals} + {self.empty} empty "
                f"= {4 + 2 * (self.verticals + self.horizontals) + self.empty}")


def default_recipe(width: int, height: int, empty: int = 2) -> Recipe:
    """The classic board's mix scaled to a size: of the cells that are not
    the 2×2 or empty, 4/7 in 2×1 pieces, 1/7 in 1×2 pieces, 2/7 in 1×1."""
    rest = width * height - 4 - empty
    verticals = round(rest * 4 / 7 / 2)
    horizontals = round(rest / 7 / 2)
    return Recipe(width, height, verticals, horizontals, empty)


def _xy(spec: str, width: int, height: int, what: str) -> tuple[int, int]:
    try:
        return exit_cell(spec, width, height)
    except PdbsearchError as exc:
        raise PdbsearchError(f"bad {what}: {exc}") from None


def random_board(recipe: Recipe, rng: random.Random, max_tries: int = 1000) -> Board:
    """One random placement of the recipe's pieces (not checked for solvability)."""
    recipe.check()
    w, h = recipe.width, recipe.height
    exit_xy = ((w - 2) // 2, h - 2) if recipe.exit == "bottom" else _xy(recipe.exit, w, h, "exit")
    for _ in range(max_tries):
        if recipe.square == "top":
            sq = ((w - 2) // 2, 0)
        elif recipe.square == "random":
            sq = (rng.randrange(w - 1), rng.randrange(h - 1))
        else:
            sq = _xy(recipe.square, w, h, "square position")
        if sq == exit_xy and w * h > 4:
            continue
        pieces = [Piece(Shape.SQUARE, *sq)]
        taken = set(pieces[0].cells())
        dominoes = [Shape.VERTICAL] * recipe.verticals + [Shape.HORIZONTAL] * recipe.horizontals
        rng.shuffle(dominoes)
        ok = True
        for shape in dominoes:
            sw, sh = shape.size
            spots = [(x, y) for y in range(h - sh + 1) for x in range(w - sw + 1)
                     if all(c not in taken for c in Piece(shape, x, y).cells())]
            if not spots:
                ok = False
                break
            piece = Piece(shape, *rng.choice(spots))
            pieces.append(piece)
            taken.update(piece.cells())
        if not ok:
            continue
        free = [(x, y) for y in range(h) for x in range(w) if (x, y) not in taken]
        for x, y in rng.sample(free, recipe.singles):
            pieces.append(Piece(Shape.SINGLE, x, y))
        return assign_labels(Board(w, h, exit_xy, tuple(pieces)))
    raise PdbsearchError(f"could not place the pieces after {max_tries} tries; "
                         f"use fewer dominoes or a larger board")


def generate(recipe: Recipe, count: int, seed: int, metric: str = "straight",
             node_limit: int = 2_000_000, heuristic: str = "simple",
             pdb=None) -> list[tuple[Board, str]]:
    """``count`` boards proved solvable, each with a note saying how.

    The same recipe, seed and metric always give the same boards.
    """
    from ..search import Limits, Status, solve
    from .puzzle import HakoiriPuzzle

    rng = random.Random(seed)
    found = []
    attempts = 0
    while len(found) < count:
        attempts += 1
        if attempts > 50 * count + 50:
            raise PdbsearchError(f"only {len(found)} solvable boards in {attempts} draws; "
                                 f"the recipe may be too dense")
        board = random_board(recipe, rng)
        puzzle = HakoiriPuzzle(board, metric, heuristic, pdb=pdb)
        result = solve(puzzle, "astar", limits=Limits(nodes=node_limit))
        if result.status is Status.SOLVED:
            note = f"solvable: optimal {result.cost} {metric} moves (A*, {heuristic} heuristic)"
        elif result.status is Status.UNSOLVABLE:
            continue
        else:
            result = solve(puzzle, "wastar", weight=5.0, limits=Limits(nodes=node_limit))
            if result.status is not Status.SOLVED:
                continue
            note = (f"solvable: a {result.cost}-move {metric} solution found "
                    f"(weighted A*, alpha 5); optimum unknown")
        comments = (f"random board {len(found) + 1}: {recipe.width}x{recipe.height}, "
                    f"{recipe.verticals} 2x1, {recipe.horizontals} 1x2, {recipe.singles} 1x1, "
                    f"{recipe.empty} empty, seed {seed}", note)
        found.append((Board(board.width, board.height, board.exit, board.pieces, comments), note))
    return found
