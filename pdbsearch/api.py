"""The Python API: load a puzzle, solve it, build its pattern database, compare
weights, draw a solution or a start position, describe a PDB file.

    >>> import pdbsearch
    >>> puzzle = pdbsearch.load()                 # the classic Hakoiri board
    >>> result = pdbsearch.solve(puzzle)           # A* with the relaxed-problem PDB
    >>> result.cost, result.optimal
    (90, True)

Everything here decides what the command line decides too (algorithm and
weight, defaults, where databases live); the command line is a thin layer
over these functions.  Heavy modules (numba) are imported on first use, so
``import pdbsearch`` stays quick.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .errors import PdbsearchError

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from .pdb.store import PdbInfo
    from .pdb.summary import PdbSummary
    from .pictures.animate import Drawing
    from .puzzle import Puzzle
    from .search.result import SearchResult

#: The weights ``compare`` sweeps when none are given (seed 003's Table 1).
DEFAULT_WEIGHTS = (1.0, 2.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0)


def load(path: str | Path | None = None, *, level: int | str | None = None,
         domain: str | None = None, metric: str | None = None, heuristic: str | None = None,
         db_dir: str | Path | None = None, pdb: str | Path | None = None,
         log: Callable[[str], None] | None = None, progress: bool = False,
         **options: Any) -> "Puzzle | list[Puzzle]":
    """A puzzle from a file (or the built-in classic Hakoiri board when
    ``path`` is None), ready to solve.

    * ``domain``: ``hakoiri`` or ``sokoban`` (default: told from the file);
    * ``level``: which level of a Sokoban collection (1-based number or
      title; default the first); a Push!! file without a level gives the
      list of its maps;
    * ``metric``, ``heuristic``: names of the domain's vocabularies (defaults:
      ``straight``/``pushes`` and ``pdb``);
    * ``db_dir``: the folder where pattern databases are found or built
      (default ``$PDBSEARCH_DB_DIR``, else ``./databases``); ``pdb``: one PDB
      file to use instead (refused if made for something else);
    * ``log``: a callable that hears about database builds (default silent);
    * ``options``: domain options, e.g. Sokoban's ``format``, ``rules``,
      ``pattern_boxes``, ``grouping``.

    Raises :class:`~pdbsearch.errors.PdbsearchError` (file, line and problem)
    on bad input.
    """
    from .domains import DEFAULT_DOMAIN, DOMAINS, detect_domain
    from .io import read_text, source_name

    if domain is not None and domain not in DOMAINS:
        raise PdbsearchError(f"unknown domain {domain!r}; choose from {', '.join(DOMAINS)}")
    if path is None:
        family = DOMAINS[domain or DEFAULT_DOMAIN]
        if family.default is None:
            raise PdbsearchError(f"{family.name} needs a puzzle file")
        text, source = family.default
    else:
        text, source = read_text(path), source_name(path)
        family = DOMAINS[domain or detect_domain(text)]
    family.metrics.check(metric)
    family.heuristics.check(heuristic)
    import inspect
    accepted = inspect.signature(family.load).parameters
    for name in options:
        if name not in accepted:
            what = name.replace("_", "-")
            if name == "rules":   # made from several switches: name them
                what += " (the Sokoban switches --no-freeze, --no-perimeter and the like)"
            raise PdbsearchError(f"{source}: the option {what} does not apply "
                                 f"to {family.name} puzzles")
    return family.load(text, source, level=level, metric=metric, heuristic=heuristic,
                       db_dir=db_dir, pdb=pdb, log=log, progress=progress, **options)


def solve(puzzle: "Puzzle", *, algo: str | None = None, weight: float = 1.0,
          time_limit: float | None = None, node_limit: int | None = None,
          memory_limit: int | None = None, threads: int | None = None,
          progress: bool = False, shorten: int | None = None) -> "SearchResult":
    """Search ``puzzle`` and return the replayed result.

    ``algo`` is one of :data:`pdbsearch.search.ALGORITHMS` (default: A*, or
    weighted A* when ``weight`` > 1); a weight above 1 with an algorithm
    that ignores it is an error.  ``time_limit`` (seconds of search),
    ``node_limit`` (expansions) and ``memory_limit`` (MiB of search tables)
    stop the search cleanly with its figures (``status`` ``limit``).
    ``threads`` (default: one per core) is how many threads the search may
    run at once; only ``algo="fess"`` runs more than one.  A solution not
    proven optimal is then shortened (:mod:`pdbsearch.search.shorten`:
    Sokoban's stretches re-solved by A*, then shortcuts of up to
    ``shorten`` moves between the positions of its path; default
    :data:`~pdbsearch.search.DEFAULT_SHORTCUT_DEPTH`; 0: kept as found;
    ``result.extra["shortened"]`` says what it did).
    Every solution is replayed by the puzzle's independent checker first.
    """
    from .search import DEFAULT_SHORTCUT_DEPTH, Limits
    from .search import solve as run_search

    if isinstance(puzzle, list):
        raise PdbsearchError("solve takes one puzzle; solve the maps of a Push!! file one "
                             "by one")
    limits = Limits(time_seconds=time_limit, nodes=node_limit, memory_mb=memory_limit,
                    threads=threads)
    return run_search(puzzle, algo, weight, limits, progress=progress,
                      shorten=DEFAULT_SHORTCUT_DEPTH if shorten is None else shorten)


def compare(puzzle: "Puzzle", weights: Sequence[float] = DEFAULT_WEIGHTS, *,
            time_limit: float | None = None, node_limit: int | None = None,
            memory_limit: int | None = None, progress: bool = False,
            on_run: Callable[["SearchResult"], None] | None = None,
            dask: str | None = None) -> "list[SearchResult]":
    """One run per weight (α = 1 is plain A*, above it weighted A*), each
    with the same limits and its solution as the search found it (not
    shortened: the table compares the searches); ``on_run`` hears each
    result as it comes.  See
    :func:`pdbsearch.sweep.format_table` for the table of seed 003.

    ``dask`` (``local:N`` or a scheduler address) runs the weights as tasks
    on a Dask cluster, each in a job worker process (killed 10 s past
    ``time_limit``); the results come back in the order of ``weights``.
    """
    if not weights:
        raise PdbsearchError("compare needs at least one weight")
    if dask is not None:
        from .sweep import compare_as_batch
        return compare_as_batch(puzzle, weights, dask, time_limit=time_limit,
                                node_limit=node_limit, memory_limit=memory_limit,
                                on_run=on_run)
    runs = []
    for weight in weights:
        result = solve(puzzle, weight=weight, time_limit=time_limit, node_limit=node_limit,
                       memory_limit=memory_limit, progress=progress, shorten=0)
        runs.append(result)
        if on_run is not None:
            on_run(result)
    return runs


def build_pdb(target: str | Path | None = None, *, domain: str | None = None,
              metric: str | None = None, level: int | str | None = None,
              exit_at: str | tuple[int, int] = "bottom", empty: int = 2,
              db_dir: str | Path | None = None, out: str | Path | None = None,
              threads: int = 1, progress: bool = False,
              **options: Any) -> "PdbInfo | list[PdbInfo]":
    """Build (or rebuild) a pattern database and save it; returns what it holds.

    * Hakoiri: ``target`` is a board file, or a size such as ``"8x20"`` with
      ``exit_at`` (``"bottom"`` or ``(x, y)``) and ``empty`` cells; None means
      the classic board.  The relaxed-problem PDB of that geometry and metric.
    * Sokoban: ``target`` is a level file and ``level`` the level; the k-box
      pattern tables of that level (``pattern_boxes``: the largest k).
    * Fifteen: ``target`` is a board or collection file; the pattern tables of
      its partition (``partition``, default 7-8 on 4x4); a list of what each holds.

    The file goes to ``out``, else to the database folder under the name
    ``solve`` looks for.
    """
    from .domains import detect_domain
    from .io import read_text

    text = None
    if target is not None and os.path.exists(target):
        text = read_text(target)
        domain = domain or detect_domain(text)
    domain = domain or "hakoiri"
    if domain == "hakoiri":
        from .hakoiri.database import build_geometry
        return build_geometry(target, text, metric=metric, exit_at=exit_at, empty=empty,
                              db_dir=db_dir, out=out, threads=threads, progress=progress)
    if domain == "sokoban":
        if text is None:
            raise PdbsearchError(f"{target}: no such level file")
        from .sokoban.database import build_level_patterns
        puzzle_level = load(target, domain="sokoban", level=level if level is not None else 1,
                            heuristic="matching", format=options.get("format")).level
        return build_level_patterns(puzzle_level, options.get("pattern_boxes"), db_dir=db_dir,
                                    out=out, progress=progress)
    if domain == "fifteen":
        if text is None:
            raise PdbsearchError(f"{target}: no such board file")
        from .fifteen.database import build_partition
        puzzle = load(target, domain="fifteen", level=level, partition=options.get("partition"))
        b = puzzle.board
        return build_partition(b.width, b.height, puzzle.partition, db_dir=db_dir, out=out,
                               threads=threads, progress=progress)
    raise PdbsearchError(f"unknown domain {domain!r}")


def animate(puzzle: "Puzzle", result: "SearchResult", path: str | Path, *,
            log: Callable[[str], None] | None = None) -> "Drawing":
    """Draw a solved ``result`` of ``puzzle`` into ``path``, by its
    extension an animated GIF (needs Pillow: the ``pictures`` extra), SVG
    or HTML page (no dependency): one frame per move (Sokoban: per player
    step, pushes highlighted), replayed by the puzzle's independent
    checker, each captioned with the move number and the cost.  A huge
    level gets smaller cells and a very long solution fewer frames; ``log``
    hears when such a limit applies.  Returns what was drawn."""
    from .pictures.animate import animate as draw_solution
    return draw_solution(_one(puzzle), result, path, log)


def show(puzzle: "Puzzle", path: str | Path, *,
         log: Callable[[str], None] | None = None) -> "Drawing":
    """Draw ``puzzle``'s start position into ``path``: PNG or GIF (Pillow),
    SVG or HTML, by the extension."""
    from .pictures.animate import draw_start
    return draw_start(_one(puzzle), path, log)


def pdb_info(path: str | Path, *, plot: str | Path | None = None) -> "PdbSummary":
    """What the PDB file ``path`` encodes and whether it is sound: its
    attributes, the seal, checksum, histogram and maximum checked (a
    damaged file is described, its faults in ``problems``; a file that is
    no PDB raises :class:`~pdbsearch.errors.PdbFileError`).  ``plot`` draws
    the histogram into a PNG (needs matplotlib: the ``plot`` extra)."""
    from .errors import PdbFileError
    from .pdb.summary import summarize_pdb

    if plot is not None:
        from .pictures.figures import check_png_path, pyplot
        check_png_path(plot)
        pyplot(plot)
    summary = summarize_pdb(path)
    if plot is not None:
        if not summary.histogram:
            raise PdbFileError(f"{path}: no histogram to plot: {summary.problems[0]}")
        from .pictures.histogram import plot_histogram
        plot_histogram(summary.histogram, plot, title=summary.description)
    return summary


def _one(puzzle: "Puzzle | list[Puzzle]") -> "Puzzle":
    """``puzzle``, refusing the list of maps of a Push!! file."""
    if isinstance(puzzle, list):
        raise PdbsearchError("a picture shows one puzzle; pick a map of the Push!! file with "
                             "the level option")
    return puzzle
