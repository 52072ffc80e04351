"""Rows read and wall time of fold families before and after the engine's rewrite.

    python -m benchmarks.folds.timing [--rows 1000000] [--runs 5] [--only NAME ...]

Per family (default: udaf_test and roaring_bitmap, a min/max in SQL text and bool_or flags):
the tables are generated at `--rows` rows, the notebook is traced and optimized once, the
engine's rewrite is applied, and the original and rewritten notebooks then run `--runs` times
each, alternating, from a fresh namespace on one local SparkSession (the reach benchmark's).
Each run's wall time is that of all the notebook's cells, the sink collected; the rows the
source's read hands on come from the executed plan (benchmarks/reach/rows.py). Prints a
Markdown table with the medians and their ratio; a rewrite whose sink differs is reported, not
timed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Sequence

from benchmarks.folds import CORPUS
from benchmarks.reach import corpus
from benchmarks.reach.bench import engine_run, traced_run
from benchmarks.reach.run import run_notebook, shell
from benchmarks.reach.session import spark_session
from benchmarks.reach.tables import DEFAULT_ROOT, data_dir

DEFAULT = ("udaf_test", "roaring_bitmap")


def _timed(ip, spark, cells: list[str], data: Path, pipeline) -> tuple[float, object]:
    started = time.perf_counter()
    got = run_notebook(ip, spark, cells, data, pipeline.sink, pipeline.measure, set(pipeline.tables))
    return time.perf_counter() - started, got


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.folds.timing", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--only", nargs="+", default=list(DEFAULT))
    args = p.parse_args(argv)
    spark = spark_session()
    ip = shell(spark)
    print("| family | rows read: original → rewritten | original s (median) | rewritten s (median) | ratio | "
          "optimizer s | suggestion |")
    print("|---|---|---|---|---|---|---|")
    for name in args.only:
        pipeline = corpus.load(name, CORPUS)
        data = data_dir(pipeline, args.rows, 0, DEFAULT_ROOT)
        original, optimized = traced_run(pipeline, spark, ip, data, 60.0)
        rewritten = engine_run(pipeline, spark, ip, data, optimized, original)
        if not optimized.changes or not rewritten.ok or rewritten.bag != original.bag:
            print(f"| {name} | no sound rewrite to time | | | | {optimized.seconds:.2f} | |")
            continue
        new_cells = [optimized.changes.get(i, c.source) for i, c in enumerate(pipeline.cells) if not c.markdown]
        times: dict[str, list[float]] = {"original": [], "rewritten": []}
        for _ in range(args.runs):
            for variant, cells in (("original", pipeline.code_cells), ("rewritten", new_cells)):
                seconds, got = _timed(ip, spark, cells, data, pipeline)
                assert got.ok and got.bag == original.bag, f"{name} {variant}: {got.error or 'rows differ'}"
                times[variant].append(seconds)
        before, after = (statistics.median(times[v]) for v in ("original", "rewritten"))
        table = pipeline.tables[0]
        predicate = "; ".join(s["predicate"] for s in optimized.suggestions)
        print(f"| {name} | {original.read.get(table, 0):,} → {rewritten.read.get(table, 0):,} | {before:.2f} | "
              f"{after:.2f} | {before / after:.2f}x | {optimized.seconds:.2f} | `{predicate}` |", flush=True)
        print(f"  runs: original {[round(t, 2) for t in times['original']]}, rewritten "
              f"{[round(t, 2) for t in times['rewritten']]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
