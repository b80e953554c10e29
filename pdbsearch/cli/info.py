"""``pdbsearch info``: what a pattern database file holds, and its histogram."""

from __future__ import annotations

import argparse
import json
import sys

from ..api import pdb_info
from ..pictures.figures import check_png_path, pyplot
from ..pictures.histogram import plot_histogram
from .exitcodes import EXIT_BAD_INPUT, EXIT_OK


def add_parser(sub) -> None:
    """Register ``info``."""
    p = sub.add_parser("info", help="describe a pattern database file, check it, plot it",
                       description="Print what a PDB file encodes (domain, abstraction, "
                                   "metric, parameters), its entries, maximum, histogram "
                                   "and build time, and whether its seal, checksum, "
                                   "histogram and fingerprint hold.  Exit 2 when the file "
                                   "is damaged.")
    p.add_argument("pdb", metavar="PDB", help="a .h5 file made by pdbsearch")
    p.add_argument("--plot", metavar="PNG",
                   help="draw the histogram into a PNG (needs matplotlib: pip install "
                        "'pdbsearch[plot]')")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the summary; exit 2 with one line on stderr if a check failed."""
    if args.plot:   # a bad name, or no matplotlib, is said before the file is read
        check_png_path(args.plot)
        pyplot(args.plot)
    summary = pdb_info(args.pdb)
    if args.json:
        print(json.dumps(summary.to_dict()))
    else:
        print(summary.text())
    if not summary.sound:
        print(f"pdbsearch: error: {summary.path}: {summary.problems[0]}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.plot:
        plot_histogram(summary.histogram, args.plot, title=summary.description)
        if not args.json:
            print(f"histogram drawn into {args.plot}")
    return EXIT_OK
