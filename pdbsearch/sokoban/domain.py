"""Loading Sokoban instances for the command line.

:func:`load_puzzle` is what :data:`pdbsearch.domains.DOMAINS` calls for the
``sokoban`` domain: a Push!! file becomes a :class:`.push_batch.PushBatch`
(one answer per map), any other file one :class:`.puzzle.SokobanPuzzle`
(the level picked by ``--level``, default the first).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import PdbsearchError
from .formats import detect_format, parse_levels, select_level
from .model import Level
from .puzzle import Rules, SokobanPuzzle


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The pruning rules chosen by the ``--no-...`` switches (all on by default)."""
    return Rules(dead_squares=not getattr(args, "no_dead_squares", False),
                 freeze=not getattr(args, "no_freeze", False),
                 corral=not getattr(args, "no_corral", False),
                 tunnels=not getattr(args, "no_tunnels", False))


def algo_and_weight(args: argparse.Namespace) -> tuple[str, float]:
    """The search algorithm and weight the options ask for (``--weight``
    turns A* into weighted A*, as for ``pdbsearch solve``)."""
    weighted = args.weight is not None and args.algo in ("astar", "wastar")
    return ("wastar" if weighted else args.algo,
            args.weight if args.weight is not None else 1.0)


def read_levels(path: str | None, fmt: str | None = None) -> tuple[list[Level], str]:
    """Every level of a file and the file's format (detected unless given).

    Raises :class:`PdbsearchError` for a missing or unreadable file and
    :class:`~pdbsearch.errors.PuzzleFormatError` (with file, line and column)
    for a malformed one.
    """
    if path is None:
        raise PdbsearchError("sokoban needs a level file (XSB, Push!! or seed 002 text)")
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise PdbsearchError(f"{path}: cannot read the level file: "
                             f"{exc.strerror or exc}") from None
    fmt = fmt or detect_format(text)
    return parse_levels(text, str(path), fmt), fmt


def load_puzzle(path: str | None, args: argparse.Namespace):
    """The instance ``pdbsearch solve`` runs on: a :class:`SokobanPuzzle`, or
    a :class:`~.push_batch.PushBatch` for a Push!! file."""
    levels, fmt = read_levels(path, getattr(args, "format", None))
    metric = getattr(args, "metric", None) or "pushes"
    heuristic = getattr(args, "heuristic", None) or "pdb"
    rules = rules_from_args(args)
    spec = getattr(args, "level", None)
    if fmt == "push":
        from .push_batch import PushBatch
        chosen = levels if spec is None else [select_level(levels, spec, str(path))]
        return PushBatch(chosen, metric, heuristic, rules, **pattern_options(args))
    level = select_level(levels, spec if spec is not None else 1, str(path))
    return SokobanPuzzle(level, metric, heuristic, rules, **pattern_options(args))


def pattern_options(args: argparse.Namespace) -> dict:
    """The pattern-PDB keyword arguments of :class:`SokobanPuzzle` that the
    options ask for (``--db-dir``, ``--pdb``, ``--pattern-boxes``,
    ``--grouping``); builds are reported on stderr."""
    from ..pdb.store import log_to_stderr
    return {"db_dir": getattr(args, "db_dir", None), "pdb_path": getattr(args, "pdb", None),
            "pattern_boxes": getattr(args, "pattern_boxes", None),
            "grouping": getattr(args, "grouping", None) or "greedy",
            "log": None if getattr(args, "quiet", False) else log_to_stderr}
