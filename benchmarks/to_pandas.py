"""pandas after `toPandas()`: rows moved into Python and the time of `toPandas()`, before and after
the suggestion. `python -m benchmarks.to_pandas [--rows N] [--runs R]`

The notebook is the shape issue 24 describes, over the corpus's `sales` table
(benchmarks/notebook_corpus/data.py, `--rows` rows, 1,000,000 by default as for the corpus):

    recent = sales.where(F.col("day") >= "2021-01-01")
    pdf = recent.select("id", "store", "amount", "qty").toPandas()
    pdf["score"] = pdf["qty"] * 10 + 7
    top = pdf[pdf["score"] > 400]

It is run in a traced IPython shell and optimized as the sidebar does; the suggestion for `top`
is applied to the cells. Then the original and the rewritten notebook run alternately, `--runs`
times each after a warm-up, untraced: the rows `toPandas()` moved into Python, the wall time of
the cell that calls it, and whether the final frame `top` has the same columns, dtypes and rows.
Prints a table (medians) and the suggested Spark filter.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

CELLS = (
    "import pandas as pd\nfrom pyspark.sql import functions as F\nsales = spark.read.parquet(SALES)",
    'recent = sales.where(F.col("day") >= "2021-01-01")\n'
    'pdf = recent.select("id", "store", "amount", "qty").toPandas()',
    'pdf["score"] = pdf["qty"] * 10 + 7\ntop = pdf[pdf["score"] > 400]',
)
COLLECT_CELL = 1  # the cell that calls toPandas()


def _frame(frame) -> tuple:
    rows = Counter(tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in row)
                   for row in frame.itertuples(index=False, name=None))
    return tuple(frame.columns), tuple(str(t) for t in frame.dtypes), rows


def _run(spark, cells, sales: str) -> tuple[float, int, tuple]:
    ns = {"spark": spark, "SALES": sales}
    took = 0.0
    for i, src in enumerate(cells):
        start = time.perf_counter()
        exec(compile(src, f"<cell {i}>", "exec"), ns)  # noqa: S102 - the benchmark's notebook
        if i == COLLECT_CELL:
            took = time.perf_counter() - start
    return took, len(ns["pdf"]), _frame(ns["top"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)

    from IPython.core.interactiveshell import InteractiveShell
    from pyspark.sql import SparkSession

    from benchmarks.notebook_corpus import data
    from magicpush_lab.kernel.extension import load, unload
    from magicpush_lab.pipeline import optimize_trace

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as tmp:
        sales = str(data.ensure_tables(spark, args.rows, Path(tmp))["sales"])
        ip = InteractiveShell.instance()
        tracer = load(ip)
        ip.user_ns.update(spark=spark, SALES=sales)
        for src in CELLS:
            ip.run_cell(src, store_history=True).raise_error()
        result = optimize_trace(tracer.trace(), list(CELLS), all_pipelines=True)
        unload(ip)
        mine = [s for s in result.suggestions if s.pipeline == "top"]
        if not mine:
            print("no suggestion for `top`:", *result.notes, sep="\n  ")
            return 1
        rewritten = list(CELLS)
        for change in mine[0].cells:
            rewritten[change.index] = change.rewritten
        print(f"suggestion ({mine[0].kind}): {mine[0].predicate}")
        for change in mine[0].cells:
            print(f"cell {change.index} becomes:\n    " + change.rewritten.replace("\n", "\n    "))
        print()
        _run(spark, CELLS, sales), _run(spark, rewritten, sales)  # warm-up
        times: dict[str, list[float]] = {"original": [], "rewritten": []}
        seen: dict[str, tuple[int, tuple]] = {}
        for _ in range(args.runs):
            for name, cells in (("original", CELLS), ("rewritten", rewritten)):
                took, rows, frame = _run(spark, cells, sales)
                times[name].append(took)
                seen[name] = (rows, frame)
    before, after = statistics.median(times["original"]), statistics.median(times["rewritten"])
    print(f"{args.rows:,} rows in sales; median of {args.runs} runs")
    print("| notebook | rows into Python | toPandas() cell s |")
    print("|---|---|---|")
    print(f"| original | {seen['original'][0]:,} | {before:.2f} |")
    print(f"| rewritten | {seen['rewritten'][0]:,} | {after:.2f} |")
    print(f"\nrows moved: {seen['original'][0] / max(seen['rewritten'][0], 1):.1f}x fewer; "
          f"toPandas() cell {before / after:.1f}x faster; final frame `top` equal "
          f"(columns, dtypes, rows): {'yes' if seen['original'][1] == seen['rewritten'][1] else 'NO'}")
    return 0 if seen["original"][1] == seen["rewritten"][1] else 1


if __name__ == "__main__":
    sys.exit(main())
