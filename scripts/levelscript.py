"""The command line shared by the scripts that study one Sokoban level
(``fess_best_position.py``, ``bound_profile.py``): the level file, which
level, the search's seconds and the bound, loaded as ``solve`` would."""

from __future__ import annotations

import argparse

from pdbsearch.api import load
from pdbsearch.cli.options import positive_float
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.sokoban.vocabulary import HEURISTICS


def level_parser(doc: str, seconds: float, seconds_help: str) -> argparse.ArgumentParser:
    """A parser described by ``doc``'s first paragraph, with FILE,
    ``--level``, ``--time-limit`` (default ``seconds``) and ``--heuristic``."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("file", help="a level collection (XSB and the other formats of solve)")
    parser.add_argument("--level", default="1", help="number or title of the level (default 1)")
    parser.add_argument("--time-limit", type=positive_float, default=seconds,
                        help=f"{seconds_help} (default {seconds:g})")
    parser.add_argument("--heuristic", choices=HEURISTICS.names, default=HEURISTICS.default,
                        help=f"the puzzle's bound (default {HEURISTICS.default}, as solve's)")
    return parser


def load_level(args: argparse.Namespace) -> SokobanPuzzle:
    """The level the parsed ``args`` name, under the pushes metric, through
    the public loader (the CLI's messages for a missing file or folder;
    raises :class:`~pdbsearch.errors.PdbsearchError`)."""
    return load(args.file, domain="sokoban", level=args.level, metric="pushes",
                heuristic=args.heuristic)
