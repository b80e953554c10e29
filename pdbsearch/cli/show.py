"""``pdbsearch show``: draw a puzzle's start position into a picture file."""

from __future__ import annotations

import argparse

from ..api import load, show
from ..domains import DOMAINS
from ..pictures.animate import check_picture_path
from .exitcodes import EXIT_OK
from .options import add_format_option, log


def add_parser(sub) -> None:
    """Register ``show``."""
    p = sub.add_parser("show", help="draw a puzzle's start position (PNG, SVG, GIF, HTML)",
                       description="Draw the start position of a Hakoiri board or a Sokoban "
                                   "level: each piece its own colour and letter, the exit "
                                   "or the goals marked.  PNG and GIF need Pillow (pip "
                                   "install 'pdbsearch[pictures]'); SVG and HTML need "
                                   "nothing.")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="puzzle file, - for the standard input (default: the built-in "
                        "classic Hakoiri board)")
    p.add_argument("-o", "--out", required=True, metavar="OUT",
                   help="the picture file: .png, .svg, .gif or .html")
    p.add_argument("--domain", choices=list(DOMAINS), default=None,
                   help="puzzle family (default: told from the file)")
    p.add_argument("--level", default=None, metavar="N|TITLE",
                   help="sokoban: which level of a collection (1-based number or title; "
                        "default 1)")
    add_format_option(p)
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
