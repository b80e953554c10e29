"""Sokoban as the domain registry sees it: loading instances from text.

A Push!! text becomes a list of :class:`~.puzzle.SokobanPuzzle` (the contest
asks one answer per map); any other text one puzzle, the level picked by
``level`` (a 1-based number or a title; default the first).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from ..errors import PdbsearchError
from .formats import detect_format, parse_levels, read_level
from .rules import Rules

if TYPE_CHECKING:
    from .puzzle import SokobanPuzzle


def load(text: str, source: str, *, level: int | str | None = None, metric: str | None = None,
         heuristic: str | None = None, db_dir=None, pdb=None,
         log: Callable[[str], None] | None = None, progress: bool = False,
         format: str | None = None, rules: Rules | None = None,
         pattern_boxes: int | None = None,
         grouping: str | None = None,
         members: Sequence[str] | None = None) -> SokobanPuzzle | list[SokobanPuzzle]:
    """The puzzle (or, for a Push!! text, the puzzles) of ``text``.

    ``format`` is ``xsb``, ``slc``, ``push`` or ``seed002`` (default: detected);
    ``rules`` the pruning rules (default: all on); ``pattern_boxes`` and
    ``grouping`` tune the ``pdb`` heuristic; ``members`` keeps only those
    members of the ``--algo fess`` portfolio (see :class:`SokobanPuzzle`).
    """
    from .puzzle import SokobanPuzzle   # the kernels: only when a Sokoban text comes
    fmt = format or detect_format(text)
    options = dict(metric=metric, heuristic=heuristic, rules=rules or Rules(), db_dir=db_dir,
                   pdb_path=pdb, pattern_boxes=pattern_boxes, grouping=grouping, members=members,
                   log=log)
    if fmt == "push" and level is None:
        levels = parse_levels(text, source, fmt)
        if pdb is not None and len(levels) > 1:
            raise PdbsearchError("a PDB file is made for one map; pick it with the level option")
        return [SokobanPuzzle(one, **options) for one in levels]
    # Only the chosen level is parsed and checked: level N of a large
    # collection starts at once.
    chosen = read_level(text, source, level if level is not None else 1, fmt)
    return SokobanPuzzle(chosen, **options)
