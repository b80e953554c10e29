"""A* and IDA* with an upper bound from a fast solver
(:mod:`pdbsearch.search.incumbent`), against our plain-Python push BFS:
the optimum exactly when the BFS finds a solution, "unsolvable" exactly
when it finds none, whatever the fast solver returned (an optimal
solution, a longer one, none), and every solution replayed by the
independent checker.

The search runs alone first for a share of the time limit; most of these
tests set that share to nothing, so that the fast solver is asked before
it expands anything."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.batch.levels import copy_search_figures
from pdbsearch.cli import main
from pdbsearch.report import incumbent_text
from pdbsearch.search import Limits, Status, incumbent, solve
from pdbsearch.sokoban.checker import check_solution
from pdbsearch.sokoban.collection import LevelRecord, RunOptions, solve_level, summary_table
from pdbsearch.sokoban.puzzle import SokobanPuzzle
from pdbsearch.sokoban.vocabulary import PORTFOLIO_MEMBERS
from pdbsearch.testing.sokoban import bfs_min_pushes

from .helpers import MICROBAN, microban
from .test_engines_random_rooms import rooms

LEVEL = 7


@pytest.fixture
def finder_first(monkeypatch):
    """The fast solver asked at once."""
    monkeypatch.setattr(incumbent, "FIRST_SHARE", 0.0)


def _with_finder(puzzle: SokobanPuzzle, algo: str) -> SokobanPuzzle:
    """``puzzle`` whose fast solver is ``algo`` (greedy: solutions that are
    often longer than the optimum)."""
    found = puzzle.incumbent_finder
    puzzle.incumbent_finder = lambda: (algo, found()[1])
    return puzzle


def _check(level, result, puzzle) -> None:
    optimum = bfs_min_pushes(level)
    if optimum is None:
        assert result.status is Status.UNSOLVABLE
        return
    assert result.status is Status.SOLVED and result.optimal
    _, pushes = puzzle.check_solution([s.code for s in result.steps])
    assert pushes == result.cost == result.lower_bound == optimum
    report = result.extra.get("incumbent")
    if report is not None and report.get("cost") is not None:
        assert report["cost"] >= optimum


@pytest.mark.usefixtures("finder_first")
@settings(max_examples=30, deadline=None)
@given(rooms(), st.sampled_from(["astar", "idastar"]), st.sampled_from(["fess", "greedy"]),
       st.sampled_from([0, 8]))
def test_an_optimal_search_with_a_fast_solver_finds_the_optimum_on_random_rooms(
        level, algo, finder, shorten):
    puzzle = _with_finder(SokobanPuzzle(level, "pushes", "matching"), finder)
    result = solve(puzzle, algo, limits=Limits(time_seconds=5, threads=1), shorten=shorten)
    _check(level, result, puzzle)


@pytest.mark.usefixtures("finder_first")
@pytest.mark.parametrize("algo", ["astar", "idastar"])
@pytest.mark.parametrize("finder", ["fess", "greedy"])
@pytest.mark.parametrize("shorten", [0, 8])
def test_the_fast_solver_is_asked_and_the_search_proves_the_optimum(algo, finder, shorten):
    level = microban(LEVEL)
    puzzle = _with_finder(SokobanPuzzle(level, "pushes", "matching"), finder)
    result = solve(puzzle, algo, limits=Limits(time_seconds=20, threads=1), shorten=shorten)
    _check(level, result, puzzle)
    report = result.extra["incumbent"]
    assert report["algo"] == finder and report["status"] == "solved"
    if "proved_by" in report:
        # The solution reported is the fast solver's, proved optimal.
        assert report["proved_by"] in (f"{algo} lower bound", "shortening")
        assert report["cost"] == result.cost
        # ... and named as the winner (a level's record counts it).
        assert result.winner == report["winner"]
        if finder == "greedy":
            assert result.winner == "greedy"
        else:
            assert result.winner in PORTFOLIO_MEMBERS   # the member that found it
    else:
        assert report["cost"] >= result.cost     # A* found the optimum itself
    if algo == "astar" and report.get("proved_by") != "shortening":
        # A* went on with the solution's cost as its cap (the perimeter's
        # forward search, which left out the nodes at or past it)
        assert result.extra["astar"]["capped"] >= 0


def test_astar_solves_alone_what_it_solves_in_its_first_share():
    result = solve(SokobanPuzzle(microban(LEVEL), "pushes", "matching"), "astar",
                   limits=Limits(time_seconds=20, threads=1))
    assert result.optimal and "incumbent" not in result.extra


def test_no_fast_solver_under_the_moves_metric():
    assert SokobanPuzzle(microban(LEVEL), "moves", "matching").incumbent_finder() is None


@pytest.mark.usefixtures("finder_first")
@pytest.mark.parametrize("algo, shorten, proof", [
    ("astar", "0", "A*'s lower bound reached its cost"),   # FESS's solution is optimal here
    ("idastar", "0", "IDA*'s lower bound reached its cost"),
    ("astar", "8", "A* re-solved it whole (its shortening)")])
def test_the_command_line_says_how_the_optimum_was_proved(capsys, algo, shorten, proof):
    optimum = bfs_min_pushes(microban(LEVEL))
    code = main(["solve", str(MICROBAN), "--level", str(LEVEL), "--algo", algo,
                 "--heuristic", "matching", "--time-limit", "20", "--threads", "1",
                 "--shorten", shorten])
    out = capsys.readouterr().out
    assert code == 0
    assert f"solved by {algo}: {optimum} pushes" in out and "(push-optimal)" in out
    assert f"the solution ({optimum} pushes) was found by fess in " in out
    assert f"; proved optimal: {proof}" in out


@pytest.mark.usefixtures("finder_first")
def test_a_collection_shows_where_the_optimum_lies_when_astar_stops():
    """``levels``: a level A* does not finish shows its lower bound, and the
    fast solver's cost when there is one (the optimum lies between)."""
    number = 90                             # A* needs 1,385 expansions under pushes
    level = microban(number)
    optimum = bfs_min_pushes(level)
    records = []
    for metric in ("pushes", "moves"):      # no fast solver under moves
        result = solve(SokobanPuzzle(level, metric, "matching"), "astar",
                       limits=Limits(nodes=30, threads=1), shorten=0)
        assert result.status is Status.LIMIT
        record = LevelRecord(number, None, len(level.boxes))
        copy_search_figures(record, result)
        records.append(record)
    pushes, moves = records
    assert pushes.lower_bound <= optimum <= pushes.upper_bound
    assert moves.upper_bound is None and moves.lower_bound is not None
    rows = summary_table(records).splitlines()[2:4]
    assert f" {pushes.lower_bound:g}..{pushes.upper_bound} " in rows[0]
    assert f" >={moves.lower_bound:g} " in rows[1]


@pytest.mark.usefixtures("finder_first")
def test_a_search_stopped_before_its_proof_keeps_the_fast_solvers_solution(capsys, tmp_path):
    """Nothing found is lost: when a limit stops A* before it proves the
    fast solver's solution optimal, that solution (replayed) is kept apart
    from the search's own, which it is not: the API's result, ``solve``'s
    text, JSON and drawing, and a level's record give it; the status stays
    the limit's."""
    number = 90                             # A* needs 1,385 expansions under pushes
    level = microban(number)
    optimum = bfs_min_pushes(level)
    puzzle = SokobanPuzzle(level, "pushes", "matching")
    result = solve(puzzle, "astar", limits=Limits(nodes=30, threads=1), shorten=0)
    assert result.status is Status.LIMIT and not result.optimal
    assert result.steps == [] and result.cost is None
    report = result.extra["incumbent"]
    lurd = "".join(report["moves"])
    assert lurd == "".join(s.text for s in result.incumbent_steps)
    assert check_solution(level, lurd)[0] == report["cost"] >= optimum
    assert result.to_dict()["incumbent"]["moves"] == report["moves"]

    record = solve_level(level, number, RunOptions(heuristic="matching", shorten=0),
                         Limits(nodes=30, threads=1))
    assert record.status == "limit" and record.lurd is None
    assert check_solution(level, record.upper_bound_lurd)[0] == record.upper_bound

    drawing = tmp_path / "found.svg"
    code = main(["solve", str(MICROBAN), "--level", str(number), "--heuristic", "matching",
                 "--node-limit", "30", "--threads", "1", "--shorten", "0",
                 "--animate", str(drawing)])
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert code == 3
    assert "of the solution fess found (not proved optimal)" in captured.err
    assert drawing.read_text().lstrip().startswith("<")   # drawn (SVG), not refused
    at = out.index("the solution fess found, not proved optimal:")
    shown = out[at + 1].removeprefix("lurd: ")
    assert out[at + 1].startswith("lurd: ")
    assert f"fess found a solution of {check_solution(level, shown)[0]} pushes" in "\n".join(out)


def test_a_solved_search_keeps_no_solution_apart():
    result = solve(SokobanPuzzle(microban(LEVEL), "pushes", "matching"), "astar",
                   limits=Limits(time_seconds=20, threads=1))
    assert result.optimal and result.incumbent_steps == []


@pytest.mark.parametrize("algo, metric, searches", [
    ("astar", "pushes", ["astar", "fess"]), ("idastar", "pushes", ["idastar", "fess"]),
    ("astar", "moves", ["astar"]), ("wastar", "pushes", ["wastar"])])
def test_a_warm_up_loads_the_fast_solvers_kernels_for_the_searches_that_ask_it(
        monkeypatch, algo, metric, searches):
    """A run of levels warms up before its children fork: the fast
    solver's kernels too when the search asks it (compiled in a child, they
    would count against the job's deadline)."""
    import pdbsearch.search as search
    ran = []
    solve_one = search.solve
    monkeypatch.setattr(search, "solve", lambda puzzle, algo, *a, **k: ran.append(algo)
                        or solve_one(puzzle, algo, *a, **k))
    search.warm_up(SokobanPuzzle(microban(LEVEL), metric, "matching"), algo, 2.0
                   if algo == "wastar" else None)
    assert ran == searches


@pytest.mark.usefixtures("finder_first")
def test_the_capped_finder_proves_a_solution_at_astars_bound(monkeypatch):
    """A* stopped at once after the fast solver (a greedy search: longer
    solutions), its lower bound below that solution's cost: FESS capped at
    the bound is asked, and a solution it finds at the bound is proved
    optimal by it; whatever it finds, the result is the optimum (BFS)."""
    monkeypatch.setattr(incumbent, "RETRY_SHARE", 0.0)
    proved = []
    for number in (1, 3, 6, 16, 36):
        level = microban(number)
        puzzle = _with_finder(SokobanPuzzle(level, "pushes", "matching"), "greedy")
        result = solve(puzzle, "astar", limits=Limits(time_seconds=20, threads=1), shorten=0)
        _check(level, result, puzzle)
        tries = result.extra["incumbent"].get("capped", [])
        bounds = [t["bound"] for t in tries]
        assert bounds == sorted(set(bounds))     # each try at a higher bound
        for capped in tries:
            assert capped["algo"] == "fess-only" and capped["bound"] <= result.cost
        if tries and tries[-1]["status"] == "solved" and \
                tries[-1]["cost"] == tries[-1]["bound"]:
            assert result.extra["incumbent"]["proved_by"] == "astar lower bound"
            assert result.winner == "fess-only capped"
            proved.append(number)
            assert f"was found by fess-only capped at {result.cost} pushes in " in \
                incumbent_text(result.extra["incumbent"], result.cost, "pushes")
    assert proved      # Microban 3 and 16 here


@pytest.mark.usefixtures("finder_first")
def test_ctrl_c_in_the_capped_finders_turn_stops_the_search(monkeypatch):
    """An interrupt the capped finder's run took stops the whole search,
    its incumbent kept (as in the fast solver's turn)."""
    monkeypatch.setattr(incumbent, "RETRY_SHARE", 0.0)
    real = incumbent._find_incumbent

    def interrupted_when_capped(find, limits, spent, cost_below=None):
        found, seconds, cpu = real(find, limits, spent, cost_below)
        if cost_below is not None:
            found.stop_reason = "interrupted"
        return found, seconds, cpu
    monkeypatch.setattr(incumbent, "_find_incumbent", interrupted_when_capped)
    level = microban(36)       # greedy's solution is far above A*'s first bounds
    puzzle = _with_finder(SokobanPuzzle(level, "pushes", "matching"), "greedy")
    result = solve(puzzle, "astar", limits=Limits(time_seconds=20, threads=1), shorten=0)
    assert result.status is Status.LIMIT and result.stop_reason == "interrupted"
    assert len(result.extra["incumbent"]["capped"]) == 1
    assert check_solution(level, "".join(result.extra["incumbent"]["moves"]))[0] >= \
        bfs_min_pushes(level)
