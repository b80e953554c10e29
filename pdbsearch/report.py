"""The human-readable report of a search (the command line's text output)."""

from __future__ import annotations

from .puzzle import Puzzle
from .search import member_label
from .search.result import SearchResult, Status


def format_result(puzzle: Puzzle, result: SearchResult, show_boards: bool = False) -> str:
    """What was solved, how, at what cost and guarantee, with the figures and
    the solution (each domain supplies its wording through :class:`Puzzle`)."""
    lines = [puzzle.describe()]
    algo = result.algo + (f" (weight {result.weight:g})" if result.algo == "wastar" else "")
    if result.status is Status.SOLVED:
        if result.optimal:
            quality = puzzle.optimality_word()
        elif result.bound is not None:
            quality = f"at most {result.bound:g} x optimal"
        else:
            quality = "no optimality guarantee"
        lines.append(f"solved by {algo}: {puzzle.cost_text(result)} ({quality})")
        shortened = result.extra.get("shortened")
        if shortened:
            lines.append(shortening_text(shortened, puzzle.cost_unit))
        incumbent = result.extra.get("incumbent")
        if incumbent and incumbent.get("proved_by"):
            lines.append(incumbent_text(incumbent, result.cost, puzzle.cost_unit))
    elif result.status is Status.UNSOLVABLE:
        lines.append(f"proved unsolvable by {algo}: every reachable state was searched")
    else:
        bound = (f"; the optimum is at least {result.lower_bound:g} {puzzle.cost_unit}"
                 if result.lower_bound is not None else "")
        if result.stop_reason == "incomplete":
            lines.append(f"stopped: {algo} ran out of moves, but its moves may miss a "
                         f"solution, so this proves nothing{bound}")
        else:
            lines.append(f"stopped by the {result.stop_reason} limit ({algo}){bound}")
            hint = puzzle.limit_hint(result.algo)
            if hint and result.stop_reason != "interrupted":
                lines.append(hint)
        incumbent = result.extra.get("incumbent")
        if incumbent and incumbent.get("cost") is not None:
            lines.append(f"{incumbent['algo']} found a solution of {incumbent['cost']} "
                         f"{puzzle.cost_unit}: the optimum is at most that")
        if result.note:
            lines.append(result.note)
    lines.append(f"expanded {result.expanded:,}, generated {result.generated:,}, "
                 f"stored {result.stored:,} states, {result.memory_bytes / 2**20:.1f} MiB; "
                 f"search {result.seconds:.3f} s, compile/load {result.compile_seconds:.2f} s")
    # The driver files a portfolio's report under the engine's name.
    portfolio = result.extra.get(member_label(result.algo, result.weight))
    if isinstance(portfolio, dict) and len(portfolio.get("members", ())) > 1:
        lines.append(members_text(portfolio["members"]))
    if result.status is Status.SOLVED:
        if show_boards:
            pictures = puzzle.render_path(result.path_keys, result.steps)
            for i, picture in enumerate(pictures):
                title = "start" if i == 0 else f"{i}. {result.steps[i - 1].text}"
                lines.extend(["", title, picture])
            lines.append("")
        lines.extend(puzzle.solution_lines(result))
    elif result.incumbent_steps:
        # Not the search's solution: a helper's, replayed, not proved optimal.
        lines.append(f"the solution {result.extra['incumbent']['algo']} found, "
                     f"not proved optimal:")
        lines.extend(puzzle.solution_lines(result.kept_solution()))
    return "\n".join(lines)


def members_text(members: dict) -> str:
    """One line on what each member of a portfolio did: the figures above
    it add up all members (A*'s perimeter, filled beside it, often
    expands more positions than A* itself), so each member's own
    expansions and seconds are named."""
    parts = [f"{label} {m['expanded']:,} in {m['seconds']:.2f} s"
             for label, m in members.items()]
    return "of which expanded: " + ", ".join(parts)


def shortening_text(report: dict, unit: str) -> str:
    """One line on what the shortening of a solution did
    (``result.extra["shortened"]``)."""
    done = []
    if report["windows"]:
        done.append(f"{_count(report['windows'], 'stretch', 'stretches')} re-solved")
    if report["shortcuts"]:
        done.append(f"{_count(report['shortcuts'], 'shortcut', 'shortcuts')} taken")
    looked = []
    if report["window_moves"]:
        looked.append(f"windows of up to {report['window_moves']} moves")
    if report["depth"]:
        looked.append(f"shortcuts of up to {report['depth']} moves")
    if not report["finished"]:
        looked.append("stopped by its time")
    looked.append(f"{report['seconds']:.2f} s")
    proved = ", proved optimal by A* over the whole solution" \
        if report.get("proved_optimal") else ""
    if report["after"] < report["before"]:
        return (f"shortened from {report['before']} to {report['after']} {unit}: "
                f"{' and '.join(done)}{proved} ({'; '.join(looked)})")
    return f"no shorter way found{proved} ({'; '.join(looked)})"


def incumbent_text(report: dict, cost: int, unit: str) -> str:
    """One line on how an optimal solution came from the optimal search's
    fast helper (``result.extra["incumbent"]``, :mod:`pdbsearch.search.incumbent`)."""
    searcher = {"astar lower bound": "A*", "idastar lower bound": "IDA*"}
    how = (f"{searcher[report['proved_by']]}'s lower bound reached its cost"
           if report["proved_by"] in searcher
           else "A* re-solved it whole (its shortening)")
    found = f"{report['algo']} in {report['seconds']:.2f} s"
    capped = [c for c in report.get("capped", ()) if c.get("cost") == cost]
    if capped:
        found = (f"{capped[-1]['algo']} capped at {capped[-1]['bound']:g} {unit} in "
                 f"{capped[-1]['seconds']:.2f} s")
    return f"the solution ({cost} {unit}) was found by {found}; proved optimal: {how}"


def _count(n: int, one: str, many: str) -> str:
    """``n`` and the noun for it."""
    return f"{n} {one if n == 1 else many}"
