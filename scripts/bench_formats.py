#!/usr/bin/env python
"""Time reading Sokoban level files: every level of a set, and one level alone
(the last, by the quick scan), for one or several copies of the code.

    python scripts/bench_formats.py                                   # this checkout
    python scripts/bench_formats.py --code before=/tmp/old --code after=/tmp/new

Each ``--code NAME=DIR`` names a directory holding a ``pdbsearch`` package
(say a ``git archive`` of a commit); each copy is timed in its own process,
the copies in turn, ``--repeat`` rounds, so that all see the same machine.
A time is the best of ``--tries`` in a round, and the table gives each
copy's best over the rounds and the ratios to the first copy.  Every copy
must read the same levels (the same titles and boards): a set where they
differ is marked, since then the times do not compare.  Writes the figures
and a description of the machine to ``--json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchcode import code_env, parse_code

ROOT = Path(__file__).resolve().parents[1]
PUZZLES = ROOT / "puzzles" / "sokoban"


def time_sets(files: list[Path], tries: int) -> dict:
    """For each file: the levels' count and fingerprint, and the best of
    ``tries`` seconds for parsing all of it and for reading its last level."""
    from pdbsearch.io import decode_text
    from pdbsearch.sokoban.formats import format_xsb, parse_levels, read_level

    out = {}
    for file in files:
        text, source = decode_text(file.read_bytes()), str(file)
        whole, one = [], []
        for _ in range(tries):
            start = time.perf_counter()
            levels = parse_levels(text, source)
            whole.append(time.perf_counter() - start)
            start = time.perf_counter()
            last = read_level(text, source, len(levels))
            one.append(time.perf_counter() - start)
        assert last == levels[-1]
        digest = hashlib.sha256("".join(f"{lv.title}\n{format_xsb(lv)}" for lv in levels)
                                .encode()).hexdigest()[:16]
        out[file.name] = {"levels": len(levels), "fingerprint": digest,
                          "whole_seconds": min(whole), "last_level_seconds": min(one)}
    return out


def run_copy(code: Path | None, files: list[Path], tries: int) -> dict:
    """:func:`time_sets` in a process of its own importing the copy ``code``
    (this checkout's package when None)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", "--tries", str(tries),
               *map(str, files)]
    with tempfile.TemporaryDirectory() as here:
        done = subprocess.run(command, cwd=here, capture_output=True, text=True,
                              env=code_env(code if code is not None else ROOT))
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    from pdbsearch.cli.options import positive_int

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path,
                        help="level files (default: every bundled Sokoban set)")
    parser.add_argument("--code", type=parse_code, action="append", metavar="NAME=DIR",
                        help="a copy of the code (default: this checkout)")
    parser.add_argument("--repeat", type=positive_int, default=3, help="rounds over the copies")
    parser.add_argument("--tries", type=positive_int, default=3,
                        help="timed reads of each file a round (the best counts)")
    parser.add_argument("--json", default="bench-results/bench_formats.json")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    files = args.files or sorted(PUZZLES.glob("*.txt"))
    if args.worker:
        print(json.dumps(time_sets(files, args.tries)))
        return 0
    copies = args.code or [("here", None)]
    names = [name for name, _ in copies]
    rounds = {name: [] for name in names}
    for _ in range(args.repeat):
        for name, code in copies:
            rounds[name].append(run_copy(code, files, args.tries))
    rows = []
    head = f"{'file':<20}{'levels':>7}" + "".join(f"{n + ' all':>14}{n + ' last':>14}"
                                                  for n in names)
    ratio_head = "".join(f"{n + '/' + names[0] + ' ' + what:>18}" for n in names[1:]
                         for what in ("all", "last"))
    print(head + (ratio_head + "  same levels" if len(names) > 1 else ""))
    for file in files:
        best = {n: {key: min(r[file.name][key] for r in rounds[n])
                    for key in ("whole_seconds", "last_level_seconds")} for n in names}
        same = len({r[file.name]["fingerprint"] for n in names for r in rounds[n]}) == 1
        count = rounds[names[0]][0][file.name]["levels"]
        line = f"{file.name:<20}{count:>7}" + "".join(
            f"{best[n][key] * 1e3:>11.1f} ms" for n in names
            for key in ("whole_seconds", "last_level_seconds"))
        if len(names) > 1:
            line += "".join(f"{best[n][key] / best[names[0]][key]:>18.3f}" for n in names[1:]
                            for key in ("whole_seconds", "last_level_seconds"))
            line += "  yes" if same else "  NO"
        print(line)
        rows.append({"file": file.name, "levels": count, "best": best, "same_levels": same})
    from pdbsearch.io import atomic_write_text
    from pdbsearch.machine import machine_info
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, json.dumps({"machine": machine_info(), "repeat": args.repeat,
                                       "tries": args.tries,
                                       "codes": {n: str(c or ROOT) for n, c in copies},
                                       "files": rows, "rounds": rounds}, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
