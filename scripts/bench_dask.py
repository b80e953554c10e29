"""Dask against the local runner, in the same run: prints a table, writes JSON.

    python scripts/bench_dask.py [--levels puzzles/sokoban/boxoban_hard.txt] [--first N]
        [--workers 2] [--trivial 400] [--json bench-results/bench_dask.json]
        [-- extra options of pdbsearch levels]

1. The collection with ``levels --jobs W`` and with ``levels --dask local:W``
   (whole commands, one after the other): wall time of each, their ratio,
   and whether both solved the same levels with the same pushes.
   With ``--repeats R`` the pair runs R times, the order alternating
   (local, dask, dask, local, ...), so that a load that changes during the
   run weighs on both alike; the ratio is of the summed wall times.
2. The scheduling overhead per task: collections of trivial levels (one box,
   one push) of two sizes, run both ways.  Per runner the marginal CPU time
   per level (the whole process tree's CPU, from ``getrusage``: steadier
   than wall time on a shared machine) and the marginal wall time; Dask's
   overhead per task is its marginal CPU minus the local runner's (both
   fork a child per level, so the difference is the scheduling).  These
   runs give Dask one level a task (``PDBSEARCH_DASK_CHUNK=1``); the
   collection of step 1 is chunked as a user's run is.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pdbsearch.batch.cluster import CHUNK_ENV  # noqa: E402
from pdbsearch.io import atomic_write_text  # noqa: E402
from pdbsearch.machine import machine_info  # noqa: E402

TRIVIAL = "#####\n#@$.#\n#####\n"


def run_levels(path: str, where: list[str], extra: list[str], out: Path,
               env: dict[str, str] | None = None) -> dict:
    """One whole ``pdbsearch levels`` command (``env`` added to its
    environment): its wall time and report."""
    cmd = [sys.executable, "-m", "pdbsearch", "levels", path, "--no-progress",
           "--json", str(out), *where, *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    report = json.loads(out.read_text())
    return {"command": " ".join(cmd[2:]), "wall_seconds": round(wall, 2),
            "cpu_seconds": round(cpu, 2),
            "solved": report["summary"]["solved"], "levels": report["summary"]["levels"],
            "pushes": {r["number"]: r["pushes"] for r in report["levels"] if r["pushes"]}}


def main() -> None:
    """Run the comparison, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="puzzles/sokoban/boxoban_hard.txt")
    parser.add_argument("--first", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1,
                        help="runs of the collection pair, in alternating order")
    parser.add_argument("--trivial", type=int, default=400,
                        help="levels of the larger trivial collection (the smaller: a quarter)")
    parser.add_argument("--json", default=str(ROOT / "bench-results" / "bench_dask.json"))
    parser.add_argument("extra", nargs="*", help="options passed to pdbsearch levels")
    args = parser.parse_args()
    extra = list(args.extra) + (["--first", str(args.first)] if args.first else [])
    local = ["--jobs", str(args.workers)]
    dask = ["--dask", f"local:{args.workers}"]
    result: dict = {"machine": machine_info(), "levels": args.levels, "extra": extra,
                    "workers": args.workers}
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        # untimed: the kernels compiled (or loaded) into numba's disk cache first
        run_levels(args.levels, local, extra + ["--first", "2"], tmp_path / "warm.json")
        # and on the Dask workers too, so that the first timed Dask run pays for
        # no kernel the two-level warm-up above did not need (a first Dask run
        # was once seen to compile for minutes before any level finished)
        run_levels(args.levels, dask, extra + ["--first", "4"], tmp_path / "warm.json")
        runs: dict[str, list[dict]] = {"local": [], "dask": []}
        for r in range(args.repeats):
            order = (("local", local), ("dask", dask))
            for name, where in (order if r % 2 == 0 else order[::-1]):
                row = run_levels(args.levels, where, extra, tmp_path / f"{name}.json")
                runs[name].append(row)
                print(f"{name:5}: {row['solved']}/{row['levels']} solved in "
                      f"{row['wall_seconds']:.1f} s", flush=True)
        pushes = {name: [row.pop("pushes") for row in rows] for name, rows in runs.items()}
        same = all(p == pushes["local"][0] for p in pushes["local"] + pushes["dask"])
        wall = {name: sum(row["wall_seconds"] for row in rows) for name, rows in runs.items()}
        ratio = wall["dask"] / wall["local"]
        result["collection"] = {"runs": runs, "same_levels_same_pushes": same,
                                "dask_over_local_wall": round(ratio, 3)}

        sizes = (max(1, args.trivial // 4), args.trivial)
        trivial: dict[str, dict[str, list[float]]] = {}
        for size in sizes:
            path = tmp_path / f"trivial{size}.txt"
            path.write_text("\n".join(f"; {i + 1}\n{TRIVIAL}" for i in range(size)))
            for name, where in (("local", local), ("dask", dask)):
                # one level a task: the figure is Dask's overhead per task,
                # which chunks would spread over the levels of each task
                row = run_levels(str(path), where, [], tmp_path / "t.json",
                                 env={CHUNK_ENV: "1"})
                trivial.setdefault(name, {"wall": [], "cpu": []})
                trivial[name]["wall"].append(row["wall_seconds"])
                trivial[name]["cpu"].append(row["cpu_seconds"])
        span = sizes[1] - sizes[0]
        per_level = {name: {kind: (values[1] - values[0]) / span
                            for kind, values in t.items()} for name, t in trivial.items()}
        overhead_ms = 1000 * (per_level["dask"]["cpu"] - per_level["local"]["cpu"])
        result["trivial"] = {"sizes": sizes, "seconds": trivial,
                             "marginal_seconds_per_level": per_level,
                             "dask_extra_cpu_ms_per_task": round(overhead_ms, 2)}
    print()
    print("| run | local (--jobs) | dask (local:N) | dask / local |")
    print("|---|---:|---:|---:|")
    c = result["collection"]
    solved = {name: rows[0]["solved"] for name, rows in runs.items()}
    print(f"| {Path(args.levels).name} {' '.join(extra)} ({args.repeats} pair(s)) | "
          f"{wall['local']:.1f} s ({solved['local']} solved) | {wall['dask']:.1f} s "
          f"({solved['dask']} solved) | {c['dask_over_local_wall']:.3f} |")
    for kind in ("wall", "cpu"):
        print(f"| trivial levels, marginal {kind} per level | "
              f"{1000 * per_level['local'][kind]:.1f} ms | "
              f"{1000 * per_level['dask'][kind]:.1f} ms | |")
    print(f"Dask's overhead per task (marginal CPU, dask - local): {overhead_ms:.1f} ms")
    print(f"same levels solved with the same pushes: {same}")
    atomic_write_text(args.json, json.dumps(result, indent=1) + "\n")
    print(f"saved {args.json}")


if __name__ == "__main__":
    main()
