#!/usr/bin/env python
"""Time one FESS engine's expansions, the same search in two copies of the
code: for changes that must not change the search, only its speed.

    python scripts/bench_fess_expansion.py --code before=/tmp/old --code after=/tmp/new
    python scripts/bench_fess_expansion.py --code a=/tmp/a --code b=/tmp/b \\
        --level puzzles/sokoban/holland.txt:17,73 --members fess-only --nodes 20000

Each ``--code NAME=DIR`` names a directory holding a ``pdbsearch`` package
(say a ``git archive`` of a commit); the runs import it from there, run
from a temporary directory so that no other copy is found first.  Every
level is solved by the chosen portfolio member alone (``--members``), one
thread, up to ``--nodes`` expansions, by each code in turn, ``--repeat``
times, alternating, so that both see the same machine.  A run's time is
the engine's own CPU seconds (the portfolio's per-member figure: the
per-level preparation, such as the packing order, is left out).  The
table gives each code's best time per level and the ratio of the others
to the first; a level whose codes expanded or generated different
counts is marked, since then the searches differ and the times do not
compare.  Warm each copy's numba cache first (one run of any level).
Writes the figures and a description of the machine to ``--json``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

from benchcode import code_env, parse_code
from pdbsearch.cli.options import portfolio_members, positive_int, positive_int_list
from pdbsearch.io import atomic_write_text
from pdbsearch.machine import machine_info

ROOT = Path(__file__).resolve().parents[1]
#: Bundled levels that take a FESS engine a few seconds at the default nodes.
DEFAULT_LEVELS = ("puzzles/sokoban/holland.txt:17,64,73", "puzzles/sokoban/grigr2002.txt:10,27",
                  "puzzles/sokoban/sasquatch5.txt:30,40")


def parse_level_spec(spec: str) -> tuple[Path, list[int]]:
    """``FILE:N,N,...`` as a path (relative to the repository when not
    absolute) and level numbers."""
    path, _, numbers = spec.rpartition(":")
    if not path or not numbers:
        raise argparse.ArgumentTypeError(f"{spec!r}: expected FILE:N,N,...")
    levels = positive_int_list(numbers)
    file = Path(path) if Path(path).is_absolute() else ROOT / path
    if not file.is_file():
        raise argparse.ArgumentTypeError(f"{file}: no such file")
    return file, levels


def run_once(code: Path, file: Path, level: int, member: str, nodes: int) -> dict:
    """One solve of ``level`` by ``member`` alone with the code in ``code``."""
    env = code_env(code)
    command = [sys.executable, "-m", "pdbsearch", "solve", str(file), "--level", str(level),
               "--algo", "fess", "--members", member, "--node-limit", str(nodes),
               "--threads", "1", "--json"]
    with tempfile.TemporaryDirectory() as here:
        done = subprocess.run(command, cwd=here, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    record = json.loads(done.stdout)
    own = record["fess"]["members"][member]
    return {"seconds": own["seconds"], "expanded": record["expanded"],
            "generated": record["generated"], "status": record["status"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=parse_code, action="append", required=True,
                        metavar="NAME=DIR", help="a copy of the code (two or more)")
    parser.add_argument("--level", type=parse_level_spec, action="append", metavar="FILE:N,...",
                        help="levels to run (default: a few bundled hard levels)")
    parser.add_argument("--members", type=portfolio_members, default=("fess-nearest",),
                        help="the portfolio member to run alone (default fess-nearest)")
    parser.add_argument("--nodes", type=positive_int, default=30000, help="expansions a run")
    parser.add_argument("--repeat", type=positive_int, default=2, help="runs of each code a level")
    parser.add_argument("--json", default="bench-results/bench_fess_expansion.json")
    args = parser.parse_args()
    if len(args.code) < 2:
        parser.error("give at least two --code")
    if len(args.members) != 1:
        parser.error("--members: name one member (the script times one engine alone)")
    member = args.members[0]
    levels = args.level or [parse_level_spec(spec) for spec in DEFAULT_LEVELS]
    names = [name for name, _ in args.code]
    rows = []
    print(f"{'level':<28}" + "".join(f"{n:>12}" for n in names)
          + "".join(f"{n + '/' + names[0]:>16}" for n in names[1:]) + "  same search")
    for file, numbers in levels:
        for level in numbers:
            runs: dict[str, list[dict]] = {name: [] for name in names}
            for _ in range(args.repeat):
                for name, code in args.code:
                    runs[name].append(run_once(code, file, level, member, args.nodes))
            best = {name: min(r["seconds"] for r in runs[name]) for name in names}
            counts = {(r["expanded"], r["generated"]) for rs in runs.values() for r in rs}
            same = len(counts) == 1
            label = f"{file.stem} {level}"
            ratios = [best[n] / best[names[0]] for n in names[1:]]
            print(f"{label:<28}" + "".join(f"{best[n]:>12.3f}" for n in names)
                  + "".join(f"{r:>16.3f}" for r in ratios) + ("  yes" if same else "  NO"))
            rows.append({"file": str(file), "level": level, "best_seconds": best,
                         "runs": runs, "same_search": same})
    for n in names[1:]:
        logs = [math.log(r["best_seconds"][n] / r["best_seconds"][names[0]]) for r in rows
                if r["same_search"]]
        if logs:
            print(f"geometric mean {n}/{names[0]} over {len(logs)} same-search levels: "
                  f"{math.exp(sum(logs) / len(logs)):.3f}")
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, json.dumps({"machine": machine_info(), "members": member,
                                       "nodes": args.nodes, "repeat": args.repeat,
                                       "codes": {n: str(c) for n, c in args.code},
                                       "levels": rows}, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
