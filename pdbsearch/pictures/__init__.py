"""Pictures of puzzles and pattern databases: animated solutions, start
positions and PDB histograms.

One module per job:

* :mod:`.frame`: the domain-neutral model of a picture (a :class:`~.frame.Scene`
  of walls, floor and targets, and :class:`~.frame.Frame` s of blocks); the
  domains turn their states into it (``Puzzle.picture`` and
  ``Puzzle.solution_film``), so nothing here knows Hakoiri or Sokoban;
* :mod:`.palette`: the colours; :mod:`.layout`: cell size, frame timing and
  the size limits shared by the writers;
* :mod:`.raster` (Pillow: GIF and PNG), :mod:`.svg` (SVG, no dependency),
  :mod:`.html` (a self-contained page with a player, no dependency);
* :mod:`.output`: choosing the writer by the file's extension;
* :mod:`.animate`: a solved result or a start position to a file;
* :mod:`.figures` (matplotlib, shared with the α-sweep plot) and
  :mod:`.histogram` (a PDB's values).

This package imports nothing at load time: Pillow and matplotlib are
optional extras (``pictures`` and ``plot``) imported when a file is drawn.
"""
