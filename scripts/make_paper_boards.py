"""Make the boards of the paper's sizes in puzzles/hakoiri/ (seeded, reproducible).

Seed 003's puzzle pictures cannot be recovered from its text, so boards of
the same sizes and density stand in for them: two empty cells, the classic
mix of pieces, the 2x2 starting at the top middle and leaving at the bottom
middle.  Each board is kept only once a search has solved it (the file's
comment says how, and the optimum when A* proved it).

    python scripts/make_paper_boards.py [--out puzzles/hakoiri]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pdbsearch.hakoiri.database import obtain_pdb, relaxed_spec
from pdbsearch.hakoiri.formats import format_board
from pdbsearch.hakoiri.generator import default_recipe, generate
from pdbsearch.io import atomic_write_text

#: (width, height, seed, A* node budget for proving the optimum)
BOARDS = [(6, 7, 1, 3_000_000), (7, 8, 1, 3_000_000), (8, 20, 1, 200_000), (10, 20, 1, 200_000)]


def main() -> None:
    """Write paper_WxH.txt for each size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="puzzles/hakoiri")
    args = parser.parse_args()
    for width, height, seed, budget in BOARDS:
        recipe = default_recipe(width, height, 2)
        pdb = obtain_pdb(relaxed_spec(width, height, ((width - 2) // 2, height - 2), 2,
                                      "straight"))
        [(board, note)] = generate(recipe, 1, seed, "straight", budget, "pdb", pdb)
        comments = (f"Paper-size board {width}x{height} (stands in for seed 003's picture): "
                    f"{recipe.verticals} 2x1, {recipe.horizontals} 1x2, {recipe.singles} 1x1, "
                    f"2 empty cells; made by scripts/make_paper_boards.py (seed {seed}).",
                    note)
        board = type(board)(board.width, board.height, board.exit, board.pieces, comments)
        path = Path(args.out) / f"paper_{width}x{height}.txt"
        atomic_write_text(path, format_board(board))
        print(f"{path}: {note}")


if __name__ == "__main__":
    main()
