"""``pdbsearch generate``: seeded random Hakoiri boards, each proved solvable."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import PdbsearchError
from ..hakoiri.database import parse_size
from ..hakoiri.formats import format_board
from ..hakoiri.generator import Recipe, default_recipe, generate
from ..hakoiri.vocabulary import METRICS
from ..io import atomic_write_text
from .exitcodes import EXIT_OK
from .options import positive_int


def add_parser(sub) -> None:
    """Register ``generate``."""
    p = sub.add_parser("generate", help="write seeded random Hakoiri boards proved solvable",
                       description="Write random Hakoiri boards; each is kept only once a "
                                   "search has solved it (the note says how).")
    p.add_argument("size", nargs="?", metavar="SIZE",
                   help="WIDTHxHEIGHT, the same as --size")
    p.add_argument("--size", dest="size_option", metavar="SIZE",
                   help="WIDTHxHEIGHT (default 6x7)")
    p.add_argument("--verticals", type=int, help="number of 2x1 pieces (default: classic mix)")
    p.add_argument("--horizontals", type=int, help="number of 1x2 pieces (default: classic mix)")
    p.add_argument("--empty", type=positive_int, default=2, help="empty cells (default 2)")
    p.add_argument("--square", default="top",
                   help="where the 2x2 starts: top, random or X,Y (default top)")
    p.add_argument("--exit", default="bottom", help="exit of the 2x2: bottom or X,Y")
    p.add_argument("--count", type=positive_int, default=1, help="how many boards")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--metric", choices=list(METRICS.names), default=METRICS.default,
                   help=f"metric of the solvability check (default {METRICS.default})")
    p.add_argument("--node-limit", type=positive_int, default=2_000_000,
                   help="node budget of the solvability check per board")
    p.add_argument("--out", default="puzzles/hakoiri/random", help="output folder")
    p.add_argument("--prefix", default="random_", help="file name prefix")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Generate the boards and write one file each."""
    if args.size and args.size_option and args.size != args.size_option:
        raise PdbsearchError(f"two sizes: {args.size} and --size {args.size_option}")
    width, height = parse_size(args.size or args.size_option or "6x7")
    recipe = default_recipe(width, height, args.empty)
    recipe = Recipe(width, height,
                    args.verticals if args.verticals is not None else recipe.verticals,
                    args.horizontals if args.horizontals is not None else recipe.horizontals,
                    args.empty, args.square, args.exit)
    recipe.check()
    boards = generate(recipe, args.count, args.seed, args.metric, args.node_limit)
    out = Path(args.out)
    for i, (board, note) in enumerate(boards, start=1):
        path = out / f"{args.prefix}{width}x{height}_s{args.seed}_{i:03d}.txt"
        atomic_write_text(path, format_board(board))
        if not args.quiet:
            print(f"{path}: {note}")
    return EXIT_OK
