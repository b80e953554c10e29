"""First-run compile time of each domain and engine, as a user meets it.

    python scripts/bench_compile.py [--only NAME ...] [--json bench-results/bench_compile.json]

Each case is one whole ``pdbsearch solve`` process run twice: first with an
empty numba cache (everything it needs is compiled: what a user waits for on
a fresh install), then again with the cache that run left (what every later
run pays).  Pattern databases come from one temporary folder, built by a
warm-up run that is not timed, so the figures are compile and load time plus
a search of a few milliseconds.  Prints a table; writes JSON with the
machine's description.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOKOBAN = str(ROOT / "puzzles" / "sokoban" / "microban.txt")
KORF = str(ROOT / "puzzles" / "fifteen" / "korf100.txt")

#: name -> arguments of ``pdbsearch solve`` (small instances: the search is
#: negligible beside the compile)
CASES = {
    "hakoiri astar": [],
    "hakoiri bfs": ["--algo", "bfs", "--heuristic", "zero"],
    "hakoiri idastar": ["--algo", "idastar"],
    "hakoiri fess": ["--algo", "fess"],
    "sokoban astar": [SOKOBAN, "--level", "1"],
    "sokoban fess": [SOKOBAN, "--level", "1", "--algo", "fess"],
    "fifteen idastar": [KORF, "--level", "1", "--heuristic", "manhattan", "--algo", "idastar"],
}


def run_solve(args: list[str], env: dict[str, str]) -> float:
    """Seconds of one whole ``pdbsearch solve`` process (it must succeed)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pdbsearch", "solve", "--quiet", *args], env=env,
                   check=True, capture_output=True)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    """Time every case cold and warm; print the table and write the JSON."""
    from pdbsearch.io import atomic_write_text
    from pdbsearch.machine import machine_info

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), help="cases to run")
    parser.add_argument("--json", default=str(ROOT / "bench-results" / "bench_compile.json"))
    options = parser.parse_args(argv)
    names = options.only or list(CASES)
    rows = {}
    with tempfile.TemporaryDirectory() as databases:
        base = dict(os.environ, PDBSEARCH_DB_DIR=databases)
        for name in names:
            args = CASES[name]
            run_solve(args, base)   # builds the databases; the user's cache, untimed
            with tempfile.TemporaryDirectory() as cache:
                env = dict(base, NUMBA_CACHE_DIR=cache)
                cold = run_solve(args, env)
                warm = run_solve(args, env)
            rows[name] = {"cold_seconds": round(cold, 2), "warm_seconds": round(warm, 2),
                          "args": args}
            print(f"{name:18s} cold {cold:7.1f} s   warm {warm:5.2f} s", flush=True)
    record = {"machine": machine_info(), "cases": rows}
    Path(options.json).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(options.json, json.dumps(record, indent=2) + "\n")
    print(f"wrote {options.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
