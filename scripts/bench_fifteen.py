"""Korf's 100 with IDA* and additive pattern databases: prints a table, writes JSON.

    python scripts/bench_fifteen.py                        # 7-8 + reflection, all 100
    python scripts/bench_fifteen.py --partition 5-5-5 --first 10 --no-reflect

The tables are found in the database folder (``--db-dir``, else
``$PDBSEARCH_DB_DIR``, else ``./databases``) or built there first (their
build time is reported apart).  Each instance is solved in this process,
one after the other; every solution is replayed by the independent checker
and compared with the optimum the collection records.  Not a test: the
figures depend on the machine (its description is stored with them).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from pdbsearch.fifteen.collection import FifteenRunOptions, InstanceRecord, summary_table, \
    totals
from pdbsearch.fifteen.database import obtain_tables, parse_partition
from pdbsearch.fifteen.formats import parse_collection
from pdbsearch.fifteen.puzzle import FifteenPuzzle
from pdbsearch.machine import machine_info
from pdbsearch.search import Limits, solve

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    """Build or find the tables, solve the instances, report."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(REPO / "puzzles" / "fifteen" / "korf100.txt"))
    ap.add_argument("--partition", default="7-8")
    ap.add_argument("--no-reflect", action="store_true")
    ap.add_argument("--bytes", action="store_true", help="one byte an entry, not 4 bits")
    ap.add_argument("--algo", default="idastar")
    ap.add_argument("--first", type=int, default=None)
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds an instance")
    ap.add_argument("--db-dir", default=None)
    ap.add_argument("--threads", type=int, default=1,
                    help="threads building a missing table (default 1)")
    ap.add_argument("--json", default="bench-results/fifteen.json")
    args = ap.parse_args()

    instances = parse_collection(Path(args.file).read_text(), args.file)[:args.first]
    partition = parse_partition(args.partition, 4, 4)
    t0 = time.perf_counter()
    obtain_tables(4, 4, partition, not args.bytes, db_dir=args.db_dir, progress=True,
                  threads=args.threads)
    tables_seconds = time.perf_counter() - t0
    options = FifteenRunOptions(algo=args.algo, partition=partition, db_dir=args.db_dir)
    records = []
    first_compile = None
    for number, inst in enumerate(instances, start=1):
        puzzle = FifteenPuzzle(inst.board, None, "pdb", partition=partition,
                               reflect=not args.no_reflect, nibbles=not args.bytes,
                               db_dir=args.db_dir, name=f"#{inst.id}")
        result = solve(puzzle, args.algo, None, Limits(time_seconds=args.time_limit))
        if first_compile is None:   # the first call compiles the kernels or loads them
            first_compile = result.compile_seconds
        record = InstanceRecord(number, inst.id, inst.optimal, result.status.value,
                                result.optimal, result.cost, result.lower_bound,
                                result.expanded, result.generated, round(result.seconds, 4),
                                round(result.cpu_seconds, 4))
        records.append(record)
        print(f"{inst.id:>4} {record.cost} (recorded {inst.optimal}) "
              f"{record.expanded:>12,} nodes {record.seconds:8.3f} s", flush=True)
    print(summary_table(records))
    print(f"tables found or built in {tables_seconds:.2f} s; first call's compile/load "
          f"{first_compile or 0.0:.2f} s (not in the search times)")
    out = {"machine": machine_info(), "partition": args.partition,
           "reflection": not args.no_reflect, "entries": "byte" if args.bytes else "nibble",
           "tables_seconds": round(tables_seconds, 2),
           "first_compile_seconds": round(first_compile or 0.0, 2), "options": options.describe(),
           "summary": totals(records), "instances": [r.__dict__ for r in records]}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
