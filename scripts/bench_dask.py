"""Dask against the local runner, in the same run: prints a table, writes JSON.

    python scripts/bench_dask.py [--levels puzzles/sokoban/boxoban_hard.txt] [--first N]
        [--workers 2] [--repeats R] [--without-fork-server] [--trivial 400]
        [--trivial-repeats R] [--steps collection,trivial,chunked]
        [--json bench-results/bench_dask.json] [-- extra options of pdbsearch levels]

1. The collection with ``levels --jobs W`` and with ``levels --dask local:W``
   (whole commands, one after the other): wall time of each, their ratio,
   and whether both solved the same levels with the same pushes.
   With ``--repeats R`` the pair runs R times, the order alternating
   (local, dask, dask, local, ...), so that a load that changes during the
   run weighs on both alike; the ratio is of the summed wall times.
   ``--without-fork-server`` adds a third runner to each round: Dask with
   its workers forking the levels' children themselves
   (``PDBSEARCH_DASK_FORK_SERVER=0``, as before fork servers).
2. The scheduling overhead per task: collections of trivial levels (one box,
   one push) of two sizes, run both ways.  Per runner the marginal CPU time
   per level (the whole process tree's CPU, from ``getrusage``: steadier
   than wall time on a shared machine) and the marginal wall time; Dask's
   overhead per task is its marginal CPU minus the local runner's (both
   fork a child per level, so the difference is the scheduling).  These
   runs give Dask one level a task (``PDBSEARCH_DASK_CHUNK=1``); the
   collection of step 1 is chunked as a user's run is.
3. The overhead per level once Dask's per-task cost is spread over chunks:
   the same trivial collections with 64 levels a task, run by the local
   runner, by Dask with fork servers, and by Dask without them, each size
   and runner ``--trivial-repeats`` times in alternating order; the
   marginal CPU per level of each, and Dask's extra over the local runner.

``--steps`` picks among them (all three by default).
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
from pdbsearch.batch.forkserver import FORK_SERVER_ENV  # noqa: E402
from pdbsearch.io import atomic_write_text  # noqa: E402
from pdbsearch.machine import machine_info  # noqa: E402

TRIVIAL = "#####\n#@$.#\n#####\n"

#: The steps of the benchmark (see the docstring).
STEPS = ("collection", "trivial", "chunked")


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


def runners(workers: int, without_fork_server: bool) -> dict[str, tuple[list[str], dict]]:
    """The runners compared: the local runner, Dask (with fork servers) and,
    if asked, Dask whose workers fork the children themselves."""
    dask = ["--dask", f"local:{workers}"]
    named = {"local": (["--jobs", str(workers)], {}),
             "dask": (dask, {FORK_SERVER_ENV: "1"})}
    if without_fork_server:
        named["dask-nofs"] = (dask, {FORK_SERVER_ENV: "0"})
    return named


def alternating(names: list[str], repeat: int) -> list[str]:
    """The runners' order in round ``repeat``: as given, then reversed, ..."""
    return names if repeat % 2 == 0 else names[::-1]


def bench_collection(args, named: dict, extra: list[str], tmp_path: Path) -> dict:
    """Step 1: the whole collection, each runner ``--repeats`` times."""
    runs: dict[str, list[dict]] = {name: [] for name in named}
    for r in range(args.repeats):
        for name in alternating(list(named), r):
            where, env = named[name]
            row = run_levels(args.levels, where, extra, tmp_path / f"{name}.json", env)
            runs[name].append(row)
            print(f"{name:9}: {row['solved']}/{row['levels']} solved in "
                  f"{row['wall_seconds']:.1f} s ({row['cpu_seconds']:.1f} s of CPU)", flush=True)
    pushes = [row.pop("pushes") for rows in runs.values() for row in rows]
    wall = {name: sum(row["wall_seconds"] for row in rows) for name, rows in runs.items()}
    return {"runs": runs, "same_levels_same_pushes": all(p == pushes[0] for p in pushes),
            "wall_seconds": wall,
            "dask_over_local_wall": round(wall["dask"] / wall["local"], 3)}


def trivial_collections(sizes: tuple[int, int], tmp_path: Path) -> dict[int, Path]:
    """Files of ``sizes`` trivial levels each."""
    paths = {}
    for size in sizes:
        paths[size] = tmp_path / f"trivial{size}.txt"
        paths[size].write_text("\n".join(f"; {i + 1}\n{TRIVIAL}" for i in range(size)))
    return paths


def marginal(seconds: dict[int, list[float]], sizes: tuple[int, int]) -> float:
    """Seconds per level between the two sizes (their runs summed)."""
    return (sum(seconds[sizes[1]]) - sum(seconds[sizes[0]])) / \
        (len(seconds[sizes[0]]) * (sizes[1] - sizes[0]))


def bench_trivial(named: dict, paths: dict[int, Path], chunk: str, repeats: int,
                  tmp_path: Path) -> dict:
    """Each runner on each trivial collection, ``chunk`` levels a Dask task,
    ``repeats`` times in alternating order: marginal seconds per level."""
    sizes = tuple(paths)
    seconds = {name: {kind: {size: [] for size in sizes} for kind in ("wall", "cpu")}
               for name in named}
    for r in range(repeats):
        for name in alternating(list(named), r):
            where, env = named[name]
            for size in (sizes if r % 2 == 0 else sizes[::-1]):
                row = run_levels(str(paths[size]), where, [], tmp_path / "t.json",
                                 env={**env, CHUNK_ENV: chunk})
                seconds[name]["wall"][size].append(row["wall_seconds"])
                seconds[name]["cpu"][size].append(row["cpu_seconds"])
    per_level = {name: {kind: marginal(by_size, sizes) for kind, by_size in kinds.items()}
                 for name, kinds in seconds.items()}
    extra_ms = {name: round(1000 * (per_level[name]["cpu"] - per_level["local"]["cpu"]), 2)
                for name in named if name != "local"}
    return {"sizes": sizes, "chunk": chunk, "repeats": repeats, "seconds": seconds,
            "marginal_seconds_per_level": per_level, "extra_cpu_ms_over_local": extra_ms}


def print_tables(result: dict, names: list[str]) -> None:
    """The results as Markdown tables."""
    print()
    c = result.get("collection")
    if c is not None:
        print("| run | " + " | ".join(names) + " | dask / local |")
        print("|---|" + "---:|" * (len(names) + 1))
        cells = [f"{c['wall_seconds'][n]:.1f} s ({c['runs'][n][0]['solved']} solved)"
                 for n in names]
        print(f"| {Path(result['levels']).name} {' '.join(result['extra'])} "
              f"({len(c['runs']['local'])} round(s)) | " + " | ".join(cells) +
              f" | {c['dask_over_local_wall']:.3f} |")
        print(f"same levels solved with the same pushes: {c['same_levels_same_pushes']}")
    for key, title in (("trivial", "one level a task"), ("chunked", "chunks of 64")):
        t = result.get(key)
        if t is None:
            continue
        print(f"\n| trivial levels, {title} | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        for kind in ("wall", "cpu"):
            print(f"| marginal {kind} per level | " + " | ".join(
                f"{1000 * t['marginal_seconds_per_level'][n][kind]:.1f} ms" for n in names) + " |")
        print("| extra CPU per level over local | – | " + " | ".join(
            f"{t['extra_cpu_ms_over_local'][n]:.1f} ms" for n in names[1:]) + " |")


def main() -> None:
    """Run the comparison, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="puzzles/sokoban/boxoban_hard.txt")
    parser.add_argument("--first", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1,
                        help="rounds of the collection's runs, in alternating order")
    parser.add_argument("--without-fork-server", action="store_true",
                        help="also run Dask with its workers forking the children themselves")
    parser.add_argument("--trivial", type=int, default=400,
                        help="levels of the larger trivial collection (the smaller: a quarter)")
    parser.add_argument("--trivial-repeats", type=int, default=2,
                        help="rounds of the chunked trivial runs, in alternating order")
    parser.add_argument("--steps", default=",".join(STEPS),
                        help="which steps to run, comma-separated: " + ", ".join(STEPS))
    parser.add_argument("--json", default=str(ROOT / "bench-results" / "bench_dask.json"))
    parser.add_argument("extra", nargs="*", help="options passed to pdbsearch levels")
    args = parser.parse_args()
    steps = [step.strip() for step in args.steps.split(",") if step.strip()]
    if not steps or set(steps) - set(STEPS):
        parser.error(f"--steps {args.steps!r}: expected some of {', '.join(STEPS)}")
    extra = list(args.extra) + (["--first", str(args.first)] if args.first else [])
    named = runners(args.workers, args.without_fork_server)
    result: dict = {"machine": machine_info(), "levels": args.levels, "extra": extra,
                    "workers": args.workers, "runners": {n: w + [f"{k}={v}" for k, v in e.items()]
                                                         for n, (w, e) in named.items()}}
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        # untimed: the kernels compiled (or loaded) into numba's disk cache first
        run_levels(args.levels, named["local"][0], extra + ["--first", "2"], tmp_path / "w.json")
        # and on the Dask workers too, so that the first timed Dask run pays for
        # no kernel the two-level warm-up above did not need (a first Dask run
        # was once seen to compile for minutes before any level finished)
        run_levels(args.levels, named["dask"][0], extra + ["--first", "4"], tmp_path / "w.json")
        if "collection" in steps:
            result["collection"] = bench_collection(args, named, extra, tmp_path)
        paths = trivial_collections((max(1, args.trivial // 4), args.trivial), tmp_path)
        if "trivial" in steps:
            # one level a task: the figure is Dask's overhead per task, which
            # chunks spread over the levels of each task
            result["trivial"] = bench_trivial(named, paths, "1", 1, tmp_path)
        if "chunked" in steps:
            # chunks: what each level costs beyond the local runner's
            result["chunked"] = bench_trivial(named, paths, "64", args.trivial_repeats,
                                              tmp_path)
    print_tables(result, list(named))
    atomic_write_text(args.json, json.dumps(result, indent=1) + "\n")
    print(f"saved {args.json}")


if __name__ == "__main__":
    main()
