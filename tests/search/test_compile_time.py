"""Compiling is not search: numba's compiles are tallied as they happen
(:mod:`pdbsearch.compile_time`), and the time limits of the set-up and of
the search leave them out (a fresh install once spent a 2 s limit
compiling the set-up's kernels and expanded nothing)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numba as nb
import pdbsearch.search as search
from pdbsearch._jit_cache import set_compile_notice
from pdbsearch.compile_time import compile_seconds_spent
from pdbsearch.search import Limits, Status, solve
from pdbsearch.search.bfs import BreadthFirstSearch
from pdbsearch.search.driver import run_engine
from pdbsearch.sokoban.puzzle import SokobanPuzzle

from ..sokoban.helpers import microban


def fresh_kernels():
    """Two kernels numba has never compiled in this process (defined anew
    at each call, no cache), the outer calling the inner."""
    @nb.njit(cache=False)
    def inner(n):
        total = 0.0
        for i in range(n):
            total += (i % 7) * 0.5
        return total

    @nb.njit(cache=False)
    def outer(n):
        return inner(n) + inner(n // 2)

    return outer


def timed_compile() -> tuple[float, float]:
    """(wall seconds of a first call that compiles two nested kernels,
    seconds the tally grew by meanwhile)."""
    outer = fresh_kernels()
    before = compile_seconds_spent()
    t0 = time.perf_counter()
    outer(10)
    return time.perf_counter() - t0, compile_seconds_spent() - before


def test_a_compile_is_tallied_once_however_nested():
    """The tally grows by about the first call's time (the compiling is
    nearly all of it), not by the outer and the inner compile added up;
    a second call compiles nothing and adds nothing."""
    wall, tallied = timed_compile()
    assert 0.5 * wall < tallied <= wall
    outer = fresh_kernels()
    outer(10)
    before = compile_seconds_spent()
    outer(20)
    assert compile_seconds_spent() == before


class CompilingFirst(BreadthFirstSearch):
    """Breadth-first search whose first chunk compiles a fresh kernel first
    (as a kernel the engine's ``load_kernels`` missed would)."""

    def __init__(self, puzzle):
        super().__init__(puzzle)
        self.compile_seconds = None

    def run(self, budget):
        if self.compile_seconds is None and budget > 0:   # not load_kernels' call
            self.compile_seconds, _ = timed_compile()
            return super().run(0)   # a chunk that only compiled
        return super().run(budget)


def test_a_compile_inside_the_search_is_not_search_time():
    """Microban 1 by breadth-first search under a limit shorter than the
    compile its first chunk makes: solved all the same, its search time
    without the compile, which is counted as compile time."""
    puzzle = SokobanPuzzle(microban(1), "pushes", "zero")
    # The faster of two probes: a process's first compile also pays numba's
    # one-time start (once 0.68 s against 0.16 s for the next, which then
    # fell short of a quarter of it).
    probe_wall = min(timed_compile()[0] for _ in range(2))
    limit = probe_wall / 4
    engine = CompilingFirst(puzzle)
    result = run_engine(puzzle, engine, algo="bfs", weight=1.0, bound=1.0,
                        limits=Limits(time_seconds=limit), progress=False)
    assert engine.compile_seconds > limit, "the compile must outlast the limit"
    assert result.status is Status.SOLVED
    assert result.seconds < engine.compile_seconds
    assert result.compile_seconds >= 0.5 * engine.compile_seconds


def test_a_compile_in_the_set_up_is_not_spent_from_the_limit(monkeypatch):
    """A set-up that compiles (a fresh kernel before the usual tables):
    the search is given the time limit less the set-up's work only, and
    the compile is reported as compile time."""
    original_prepare = search.prepare
    compiled = {}
    given = {}

    def compiling_prepare(puzzle, limits, started):
        compiled["wall"], compiled["tallied"] = timed_compile()
        original_prepare(puzzle, limits, started)

    def recording_run_engine(puzzle, engine, **kwargs):
        given["limits"] = kwargs["limits"]
        return run_engine(puzzle, engine, **kwargs)

    monkeypatch.setattr(search, "prepare", compiling_prepare)
    monkeypatch.setattr(search, "run_engine", recording_run_engine)
    # (Greedy, unshortened: one run of the engine, given the whole limit;
    # A* may split its limit, see pdbsearch.search.incumbent.)
    result = solve(SokobanPuzzle(microban(1), "pushes", "matching"), "greedy",
                   limits=Limits(time_seconds=30), shorten=0)
    assert result.status is Status.SOLVED
    work = result.setup_seconds - compiled["tallied"]
    assert given["limits"].time_seconds >= 30 - work - 0.01
    assert given["limits"].time_seconds > 30 - result.setup_seconds + 0.5 * compiled["wall"]
    assert result.compile_seconds >= compiled["tallied"]


def test_the_first_compile_tells_the_commands_note_once():
    """A command's note (``set_compile_notice``) is told at the first
    compile of the process, with the cache folder, and never again: not at
    the next compile, not for a kernel already compiled; unset, it tells
    no one."""
    told = []
    set_compile_notice(told.append)
    try:
        fresh_kernels()(10)
        fresh_kernels()(10)
    finally:
        set_compile_notice(None)
    assert len(told) == 1
    assert "compiling" in told[0] and os.environ["NUMBA_CACHE_DIR"] in told[0]
    fresh_kernels()(10)
    assert len(told) == 1


def test_a_kernel_loaded_from_the_cache_tells_nothing(tmp_path):
    """What numba loads from its cache is not compiled: a warm command runs
    without the note.  A process sets the note, then calls a kernel of the
    package that the suite has compiled and cached (it is called once
    first, in a process of its own, in case it has not): nothing is told.
    The same process with an empty cache folder compiles it and tells the
    note once."""
    # pdbsearch.puzzle, which every domain imports, registers the listener.
    call = ("import pdbsearch.puzzle\n"
            "from pdbsearch.sokoban.matching import matching_cost\n"
            "import numpy as np\n"
            "print(matching_cost(np.array([[3, 2], [2, 5]], dtype=np.int64)))\n")
    noted = ("import pdbsearch\n"
             "from pdbsearch._jit_cache import set_compile_notice\n"
             "told = []\n"
             "set_compile_notice(told.append)\n" + call + "print(len(told))\n")

    def run(code, **env):
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env={**os.environ, **env}).stdout.split()

    assert run("import pdbsearch\n" + call) == ["4"]
    assert run(noted) == ["4", "0"]
    assert run(noted, NUMBA_CACHE_DIR=str(tmp_path)) == ["4", "1"]
