"""``pdbsearch show``: draw a puzzle's start position into a picture file."""

from __future__ import annotations

import argparse

from ..api import load, show
from ..pictures.animate import check_picture_path
from .exitcodes import EXIT_OK
from .options import add_file_options, log


def add_parser(sub) -> None:
    """Register ``show``."""
    p = sub.add_parser("show", help="draw a puzzle's start position (PNG, SVG, GIF, HTML)",
                       description="Draw the start position of a Hakoiri board, a Sokoban "
                                   "level or a sliding-tile board: each piece its own colour "
                                   "and letter, the exit or the goals marked.  PNG and GIF "
                                   "need Pillow (pip install 'pdbsearch[pictures]'); SVG and "
                                   "HTML need nothing.")
    add_file_options(p)
    p.add_argument("-o", "--out", required=True, metavar="OUT",
                   help="the picture file: .png, .svg, .gif or .html")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Load the puzzle and draw its start."""
    check_picture_path(args.out)   # before reading anything: a bad name is said first
    options = {"format": args.format} if args.format is not None else {}
    puzzle = load(args.file, level=args.level, domain=args.domain, **options)
    drawing = show(puzzle, args.out, log=log(args))
    if not args.quiet:
        print(f"drew the start of {puzzle.describe()} into {drawing.path}")
    return EXIT_OK
