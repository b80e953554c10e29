"""Dask against the local runner, in the same run: prints a table, writes JSON.

    python scripts/bench_dask.py [--levels puzzles/sokoban/boxoban_hard.txt] [--first N]
        [--workers 2] [--trivial 400] [--json bench-results/bench_dask.json]
        [-- extra options of pdbsearch levels]

1. The collection with ``levels --jobs W`` and with ``levels --dask local:W``
   (whole commands, one after the other): wall time of each, their ratio,
   and whether both solved the same levels with the same pushes.
2. The scheduling overhead per task: collections of trivial levels (one box,
   one push) of two sizes, run both ways; the marginal wall time per level
   of each runner, and Dask's extra per task (the local runner forks a
   child per level too, so the difference is the scheduling).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pdbsearch.io import atomic_write_text  # noqa: E402
from pdbsearch.machine import machine_info  # noqa: E402

TRIVIAL = "#####\n#@$.#\n#####\n"


def run_levels(path: str, where: list[str], extra: list[str], out: Path) -> dict:
    """One whole ``pdbsearch levels`` command: its wall time and report."""
    cmd = [sys.executable, "-m", "pdbsearch", "levels", path, "--no-progress",
           "--json", str(out), *where, *extra]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    report = json.loads(out.read_text())
    return {"command": " ".join(cmd[2:]), "wall_seconds": round(wall, 2),
            "solved": report["summary"]["solved"], "levels": report["summary"]["levels"],
            "pushes": {r["number"]: r["pushes"] for r in report["levels"] if r["pushes"]}}


def main() -> None:
    """Run the comparison, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="puzzles/sokoban/boxoban_hard.txt")
    parser.add_argument("--first", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
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
        rows = {}
        for name, where in (("local", local), ("dask", dask)):
            rows[name] = run_levels(args.levels, where, extra, tmp_path / f"{name}.json")
            print(f"{name:5}: {rows[name]['solved']}/{rows[name]['levels']} solved in "
                  f"{rows[name]['wall_seconds']:.1f} s", flush=True)
        same = rows["local"]["pushes"] == rows["dask"]["pushes"]
        ratio = rows["dask"]["wall_seconds"] / rows["local"]["wall_seconds"]
        result["collection"] = {name: {k: v for k, v in row.items() if k != "pushes"}
                                for name, row in rows.items()}
        result["collection"]["same_levels_same_pushes"] = same
        result["collection"]["dask_over_local_wall"] = round(ratio, 3)

        sizes = (max(1, args.trivial // 4), args.trivial)
        marginal = {}
        for size in sizes:
            path = tmp_path / f"trivial{size}.txt"
            path.write_text("\n".join(f"; {i + 1}\n{TRIVIAL}" for i in range(size)))
            for name, where in (("local", local), ("dask", dask)):
                row = run_levels(str(path), where, [], tmp_path / "t.json")
                marginal.setdefault(name, []).append(row["wall_seconds"])
        per_task = {name: (walls[1] - walls[0]) / (sizes[1] - sizes[0])
                    for name, walls in marginal.items()}
        result["trivial"] = {"sizes": sizes, "wall_seconds": marginal,
                             "marginal_seconds_per_level": {k: round(v, 4)
                                                            for k, v in per_task.items()},
                             "dask_extra_ms_per_task": round(
                                 1000 * (per_task["dask"] - per_task["local"]), 2)}
    print()
    print("| run | local (--jobs) | dask (local:N) | dask / local |")
    print("|---|---:|---:|---:|")
    c = result["collection"]
    print(f"| {Path(args.levels).name} {' '.join(extra)} | {c['local']['wall_seconds']:.1f} s "
          f"({c['local']['solved']} solved) | {c['dask']['wall_seconds']:.1f} s "
          f"({c['dask']['solved']} solved) | {c['dask_over_local_wall']:.3f} |")
    t = result["trivial"]
    print(f"| trivial levels, marginal wall per level | "
          f"{1000 * per_task['local']:.1f} ms | {1000 * per_task['dask']:.1f} ms | "
          f"+{t['dask_extra_ms_per_task']:.1f} ms a task |")
    print(f"same levels solved with the same pushes: {same}")
    atomic_write_text(args.json, json.dumps(result, indent=1) + "\n")
    print(f"saved {args.json}")


if __name__ == "__main__":
    main()
