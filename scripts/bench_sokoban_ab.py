#!/usr/bin/env python
"""Two versions of the code side by side on the same Sokoban levels: which
levels each solves, at what cost, in how much CPU, with how many expansions.

    git worktree add --detach /tmp/base HEAD~1
    python scripts/bench_sokoban_ab.py --code base=/tmp/base --code new=. \\
        --levels /data/Kevin01.xsb --only 17,66,67 --algo astar --time-limit 60
    python scripts/bench_sokoban_ab.py --code a=/tmp/a --code b=/tmp/b \\
        --levels puzzles/sokoban/microban.txt --first 20 --time-limit 5 -- --members fess-only

Each ``--code NAME=DIR`` names a directory holding a ``pdbsearch`` package
and its ``scripts/bench_sokoban_solving.py`` (a git worktree of a commit,
say).  Both runs start at once, each with its own version of that harness,
one level at a time on one thread (``--jobs 1 --threads 1``): each has a
core of its own, and they share the same minutes of the machine, so their
ratios mean something where lone times would not.  The harness's limit
counts CPU seconds.  Each runs from a temporary folder whose only level set
is ``--levels`` (so that neither imports the other's code, and the trees
are not written to); a code whose ``import pdbsearch`` does not come from
its directory is refused.  Arguments after ``--`` go to both harnesses.

Prints a table level by level and a summary: the levels each solves, the
CPU seconds and expansions on the levels both solve, the expansions on the
levels neither solves (what a change of speed shows as), and the levels
whose costs differ.  Writes both runs' figures, the comparison and the
machine to ``--json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

from benchcode import code_env, parse_code
from pdbsearch.batch.levels import cost_or_bounds
from pdbsearch.cli.options import positive_float, positive_int, positive_int_list
from pdbsearch.io import atomic_write_text
from pdbsearch.machine import machine_info

ROOT = Path(__file__).resolve().parents[1]
HARNESS = Path("scripts") / "bench_sokoban_solving.py"
#: The name of the level set in each run's temporary folder.
SET = "ab"


def parse_code_with_harness(spec: str) -> tuple[str, Path]:
    """``NAME=DIR``, where DIR holds a ``pdbsearch`` package and the harness."""
    return parse_code(spec, needs=(str(HARNESS),))


def level_file(text: str) -> Path:
    """An existing level file."""
    path = Path(text).resolve()
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text}: no such file")
    return path


def imports_from(code: Path, where: Path) -> Path:
    """Where ``import pdbsearch`` finds the package, run from ``where`` with
    ``code`` on the path (the check that each run tests its own code)."""
    out = subprocess.run([sys.executable, "-c", "import pdbsearch; print(pdbsearch.__file__)"],
                         cwd=where, env=code_env(code), capture_output=True, text=True,
                         check=True)
    return Path(out.stdout.strip()).resolve().parent.parent


def _start(name: str, code: Path, levels: Path, work: Path, args, extra: list[str]):
    """Start ``code``'s harness on ``levels`` in its own folder under
    ``work``; returns the process, its JSON path and its log path."""
    home = work / name
    (home / "scripts").mkdir(parents=True)
    (home / "puzzles" / "sokoban").mkdir(parents=True)
    shutil.copy(code / HARNESS, home / HARNESS)
    shutil.copy(levels, home / "puzzles" / "sokoban" / f"{SET}.txt")
    found = imports_from(code, home)
    if found != code:
        raise SystemExit(f"bench_sokoban_ab: {name}: import pdbsearch finds {found}, not {code} "
                         f"(an installed copy first on the path?)")
    out, log = home / "run.json", home / "run.log"
    command = [sys.executable, str(home / HARNESS), "--sets", SET, "--algo", args.algo,
               "--time-limit", str(args.time_limit), "--jobs", "1", "--threads", "1",
               "--json", str(out)]
    if args.only:
        command += ["--only", ",".join(map(str, args.only))]
    if args.first:
        command += ["--first", str(args.first)]
    command += extra
    with open(log, "w") as sink:
        process = subprocess.Popen(command, cwd=home, env=code_env(code), stdout=sink,
                                   stderr=subprocess.STDOUT)
    return process, out, log


def _cost(level: dict) -> str:
    """A level's cost as ``levels`` shows it (:func:`cost_or_bounds`):
    pushes, ``L..U``, ``>=L`` or ``-``."""
    record = SimpleNamespace(solved=level["status"] == "solved",
                             lower_bound=level.get("lower_bound"),
                             upper_bound=level.get("upper_bound"))
    return cost_or_bounds(record, level["pushes"])


def compare_runs(runs: dict[str, list[dict]]) -> dict:
    """The comparison of two runs' level records (``name -> records``, the
    harness's ``levels``), on the levels both ran: each one's solved count;
    the levels only one solves; the CPU seconds and expansions of each on
    the levels both solve; the expansions on the levels neither solves and
    their ratio (second / first); the levels both solve at different costs."""
    (a, ra), (b, rb) = runs.items()
    by_a = {r["number"]: r for r in ra}
    by_b = {r["number"]: r for r in rb}
    common = sorted(set(by_a) & set(by_b))
    solved = {n: (by_a[n]["status"] == "solved", by_b[n]["status"] == "solved") for n in common}
    both = [n for n in common if all(solved[n])]
    neither = [n for n in common if not any(solved[n])]

    def total(records: dict, numbers: list[int], key: str) -> float:
        return sum(records[n][key] or 0 for n in numbers)

    exp_a, exp_b = total(by_a, neither, "expanded"), total(by_b, neither, "expanded")
    return {
        "codes": [a, b], "levels": len(common),
        "solved": {a: sum(s[0] for s in solved.values()), b: sum(s[1] for s in solved.values())},
        "only": {a: [n for n in common if solved[n] == (True, False)],
                 b: [n for n in common if solved[n] == (False, True)]},
        "both_solve": {"levels": len(both),
                       "cpu_seconds": {a: round(total(by_a, both, "cpu_seconds"), 3),
                                       b: round(total(by_b, both, "cpu_seconds"), 3)},
                       "expanded": {a: int(total(by_a, both, "expanded")),
                                    b: int(total(by_b, both, "expanded"))}},
        "neither_solves": {"levels": len(neither), "expanded": {a: int(exp_a), b: int(exp_b)},
                           "ratio": round(exp_b / exp_a, 4) if exp_a else None},
        "different_costs": [n for n in both if by_a[n]["pushes"] != by_b[n]["pushes"]],
    }


def level_table(runs: dict[str, list[dict]]) -> str:
    """One line a level: its boxes, then each run's status, cost, CPU
    seconds and expansions."""
    (a, ra), (b, rb) = runs.items()
    by_b = {r["number"]: r for r in rb}
    head = f"{'level':>5} {'boxes':>5}"
    for name in (a, b):
        head += f" | {name[:10]:<10} {'cost':>9} {'cpu s':>7} {'expanded':>11}"
    lines = [head, "-" * len(head)]
    for r in ra:
        other = by_b.get(r["number"])
        if other is None:
            continue
        line = f"{r['number']:>5} {r['boxes']:>5}"
        for x in (r, other):
            line += (f" | {x['status'][:10]:<10} {_cost(x):>9} {x['cpu_seconds'] or 0:>7.1f}"
                     f" {x['expanded'] or 0:>11,}")
        lines.append(line)
    return "\n".join(lines)


def summary_lines(cmp: dict) -> str:
    """The comparison in a few lines."""
    a, b = cmp["codes"]
    both, neither = cmp["both_solve"], cmp["neither_solves"]
    lines = [f"solved: {a} {cmp['solved'][a]}, {b} {cmp['solved'][b]} of {cmp['levels']}"
             f" (only {a}: {cmp['only'][a] or 'none'}; only {b}: {cmp['only'][b] or 'none'})",
             f"both solve {both['levels']}: CPU {both['cpu_seconds'][a]} -> "
             f"{both['cpu_seconds'][b]} s, expanded {both['expanded'][a]:,} -> "
             f"{both['expanded'][b]:,}",
             f"neither solves {neither['levels']}: expanded {neither['expanded'][a]:,} -> "
             f"{neither['expanded'][b]:,} (x{neither['ratio']})"]
    if cmp["different_costs"]:
        lines.append(f"different costs on levels both solve: {cmp['different_costs']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    """Run the two codes side by side; print and write the comparison."""
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=parse_code_with_harness, action="append", required=True,
                        metavar="NAME=DIR", help="a code to run (give two)")
    parser.add_argument("--levels", type=level_file, required=True,
                        help="a Sokoban level collection (any file the loader reads)")
    parser.add_argument("--only", type=positive_int_list, help="only these level numbers")
    parser.add_argument("--first", type=positive_int, help="only the first N levels")
    parser.add_argument("--algo", default="fess", help="the harness's --algo (default fess)")
    parser.add_argument("--time-limit", type=positive_float, default=5.0,
                        help="CPU seconds a level (default 5)")
    parser.add_argument("--json", default=str(ROOT / "bench-results" / "bench_sokoban_ab.json"),
                        help="where to write the results")
    args = parser.parse_args(argv)
    if len(args.code) != 2 or args.code[0][0] == args.code[1][0]:
        parser.error("give two --code NAME=DIR, with different names")
    with tempfile.TemporaryDirectory(prefix="bench_sokoban_ab_") as tmp:
        started = [(name, *_start(name, code, args.levels, Path(tmp), args, extra))
                   for name, code in args.code]
        runs, raw = {}, {}
        for name, process, out, log in started:
            if process.wait() != 0 or not out.is_file():
                sys.stderr.write(log.read_text())
                print(f"bench_sokoban_ab: the run of {name} failed (exit {process.returncode})",
                      file=sys.stderr)
                # The other run would go on writing into a deleted folder.
                for _, other, _, _ in started:
                    if other.poll() is None:
                        other.kill()
                        other.wait()
                return 1
            raw[name] = json.loads(out.read_text())
            runs[name] = raw[name]["sets"][SET]["levels"]
    cmp = compare_runs(runs)
    print(level_table(runs))
    print(summary_lines(cmp))
    report = {"machine": machine_info(), "levels": str(args.levels), "extra": extra,
              "codes": {name: str(code) for name, code in args.code},
              "comparison": cmp, "runs": raw}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.json, json.dumps(report, indent=1))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
