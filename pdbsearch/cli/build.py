"""``pdbsearch build``: build (or rebuild) a pattern database."""

from __future__ import annotations

import argparse

from ..api import build_pdb
from ..domains import DOMAINS
from .exitcodes import EXIT_OK
from .options import (add_format_option, add_pdb_options, add_sokoban_options, positive_int,
                      sokoban_options, wants_progress)


def add_parser(sub) -> None:
    """Register ``build``."""
    p = sub.add_parser("build", help="build the pattern database of a board, size or level",
                       description="Build a pattern database and save it where solve looks "
                                   "for it: the relaxed-problem PDB of a Hakoiri board file's "
                                   "geometry or of a size like 8x20, or the k-box pattern "
                                   "tables of a Sokoban level.")
    p.add_argument("target", nargs="?", metavar="FILE|WxH",
                   help="a board or level file, or a Hakoiri size like 8x20 (default: the "
                        "classic board)")
    p.add_argument("--domain", choices=list(DOMAINS), default=None,
                   help="puzzle family (default: told from the file; hakoiri for a size)")
    p.add_argument("--metric", default=None, help="hakoiri: unit, straight (default) or free")
    p.add_argument("--empty", type=positive_int, default=2,
                   help="hakoiri, with a size: empty cells (default 2)")
    p.add_argument("--exit", default="bottom",
                   help="hakoiri, with a size: the 2x2's exit X,Y, or bottom (default)")
    p.add_argument("--level", default=None, metavar="N|TITLE",
                   help="sokoban: which level of the collection (default 1)")
    add_format_option(p)
    p.add_argument("--partition", default=None,
                   help="fifteen: the pattern groups, 7-8 (default on 4x4), 6-6-3, 5-5-5 or "
                        "tiles like 1,2,3/4,5,6/...")
    p.add_argument("--out", default=None, help="output file (default: the database folder)")
    p.add_argument("--threads", type=positive_int, default=1,
                   help="threads sweeping each BFS layer (default 1)")
    add_pdb_options(p)
    add_sokoban_options(p)
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Build, save, and print the table's figures."""
    if args.pdb is not None:
        from ..errors import PdbsearchError
        raise PdbsearchError("build writes a PDB; name the file with --out, not --pdb")
    options = sokoban_options(args)
    options.pop("rules", None)  # the tables do not depend on the pruning rules
    if args.partition is not None:
        options["partition"] = args.partition
    info = build_pdb(args.target, domain=args.domain, metric=args.metric, level=args.level,
                     exit_at=args.exit, empty=args.empty, db_dir=args.db_dir, out=args.out,
                     threads=args.threads, progress=wants_progress(args), **options)
    for info in (info if isinstance(info, list) else [info]):
        if args.quiet:
            continue
        print(info.description)
        print(f"entries {info.entries:,} (1 byte each), maximum {info.maximum}, "
              f"unreachable {info.unreachable:,}")
        print("histogram: " + ", ".join(f"{v}:{c}" for v, c in enumerate(info.histogram[:255])
                                         if c))
        print(f"built in {info.seconds:.3f} s (compile/load {info.compile_seconds:.2f} s); "
              f"saved to {info.path}")
    return EXIT_OK
