"""The pandas shapes of the notebook corpus: rows moved into Python, rows the read hands on and
wall time, before and after the suggestion. `python -m benchmarks.to_pandas [--rows N] [--runs R]`

Both notebooks read the corpus's `sales` table (benchmarks/notebook_corpus/data.py, `--rows`
rows, 1,000,000 by default as for the corpus).

pandas after `toPandas()`:

    recent = sales.where(F.col("day") >= "2021-01-01")
    pdf = recent.select("id", "store", "amount", "qty").toPandas()
    pdf["score"] = pdf["qty"] * 10 + 7
    top = pdf[pdf["score"] > 400]

the pandas API on Spark:

    psdf = ps.read_parquet(SALES, index_col="id")
    psdf["year"] = psdf["day"].dt.year
    psdf["score"] = psdf["qty"] * 10 + 7
    top = psdf[(psdf["year"] == 2023) & (psdf["score"] > 400)]
    pdf = top.to_pandas()

and the same with a price per unit beside two masks, which do not read it:

    psdf["unit"] = psdf["amount"] / psdf["qty"]
    psdf["year"] = psdf["day"].dt.year
    recent = psdf[psdf["year"] == 2023]
    top = recent[recent["qty"] > 40]

Each runs in a traced IPython shell and is optimized as the sidebar does; the suggestion for
`top` is applied to the cells. Then the original and the rewritten notebook run alternately,
`--runs` times each after a warm-up, untraced: the rows `pdf` holds (what crossed into Python),
the rows the read hands on (the source filtered by the suggestion's predicate, counted once),
the wall time of the cell that moves the rows into Python, and whether the final frame has the
same index, columns, dtypes and rows. Prints a table per notebook (medians) and the suggestion.
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

TO_PANDAS = (
    "import pandas as pd\nfrom pyspark.sql import functions as F\nsales = spark.read.parquet(SALES)",
    'recent = sales.where(F.col("day") >= "2021-01-01")\n'
    'pdf = recent.select("id", "store", "amount", "qty").toPandas()',
    'pdf["score"] = pdf["qty"] * 10 + 7\ntop = pdf[pdf["score"] > 400]',
)
PANDAS_ON_SPARK = (
    "import os\nos.environ['PYARROW_IGNORE_TIMEZONE'] = '1'\nimport pyspark.pandas as ps\n"
    'psdf = ps.read_parquet(SALES, index_col="id")',
    'psdf["year"] = psdf["day"].dt.year\npsdf["score"] = psdf["qty"] * 10 + 7\n'
    'top = psdf[(psdf["year"] == 2023) & (psdf["score"] > 400)]\npdf = top.to_pandas()',
)
# a price per unit: pandas-on-Spark writes the division with a divide-by-zero branch of
# infinities and NaN, which the masks do not read
PANDAS_ON_SPARK_RATIO = (
    PANDAS_ON_SPARK[0],
    'psdf["unit"] = psdf["amount"] / psdf["qty"]\npsdf["year"] = psdf["day"].dt.year\n'
    'recent = psdf[psdf["year"] == 2023]\ntop = recent[recent["qty"] > 40]\npdf = top.to_pandas()',
)
# name -> (cells, the cell that moves rows into Python, the final frame's variable, whether its
# index is data: after toPandas() it only numbers the rows that arrived (docs/semantics.md))
NOTEBOOKS = {"pandas after toPandas()": (TO_PANDAS, 1, "top", False),
             "the pandas API on Spark": (PANDAS_ON_SPARK, 1, "pdf", True),
             "the pandas API on Spark, with a price per unit": (PANDAS_ON_SPARK_RATIO, 1, "pdf", True)}


def _frame(frame, with_index: bool) -> tuple:
    shown = frame.reset_index() if with_index else frame
    rows = Counter(tuple(_cell(v) for v in row) for row in shown.itertuples(index=False, name=None))
    return tuple(shown.columns), tuple(str(t) for t in shown.dtypes), rows


def _cell(v):
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    return tuple(v.tolist()) if hasattr(v, "tolist") and not isinstance(v, (int, float)) else v


def _run(spark, cells, sales: str, timed: int, final: str, with_index: bool) -> tuple[float, int, tuple]:
    ns = {"spark": spark, "SALES": sales}
    took = 0.0
    for i, src in enumerate(cells):
        start = time.perf_counter()
        exec(compile(src, f"<cell {i}>", "exec"), ns)  # noqa: S102 - the benchmark's notebook
        if i == timed:
            took = time.perf_counter() - start
    return took, len(ns["pdf"]), _frame(ns[final], with_index)


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
    from magicpush_lab.measure import measure

    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        sales = str(data.ensure_tables(spark, args.rows, Path(tmp))["sales"])
        for name, (cells, timed, final, with_index) in NOTEBOOKS.items():
            print(f"== {name}")
            ip = InteractiveShell.instance()
            ip.reset()
            tracer = load(ip)
            ip.user_ns.update(spark=spark, SALES=sales)
            for src in cells:
                ip.run_cell(src, store_history=True).raise_error()
            result = optimize_trace(tracer.trace(), list(cells), all_pipelines=True)
            frames = tracer.frames()
            # a pandas-on-Spark frame is no Spark DataFrame variable: its pipeline is named by its call
            mine = [s for s in result.suggestions if s.pipeline == "top"] or list(result.suggestions)
            if not mine:
                unload(ip)
                print("no suggestion for `top`:", *result.notes, sep="\n  ")
                failed += 1
                continue
            read_before, read_after, _ = measure(frames, mine[0].source_event, _predicate(mine[0]), time_limit=None)
            unload(ip)
            rewritten = list(cells)
            for change in mine[0].cells:
                rewritten[change.index] = change.rewritten
            print(f"suggestion ({mine[0].kind}): {mine[0].predicate}")
            for change in mine[0].cells:
                print(f"cell {change.index} becomes:\n    " + change.rewritten.replace("\n", "\n    "))
            print()
            _run(spark, cells, sales, timed, final, with_index), _run(spark, rewritten, sales, timed, final, with_index)
            times: dict[str, list[float]] = {"original": [], "rewritten": []}
            seen: dict[str, tuple[int, tuple]] = {}
            for _ in range(args.runs):
                for which, code in (("original", cells), ("rewritten", rewritten)):
                    took, rows, frame = _run(spark, code, sales, timed, final, with_index)
                    times[which].append(took)
                    seen[which] = (rows, frame)
            before, after = statistics.median(times["original"]), statistics.median(times["rewritten"])
            same = seen["original"][1] == seen["rewritten"][1]
            failed += not same
            print(f"{args.rows:,} rows in sales; median of {args.runs} runs")
            print("| notebook | rows the read hands on | rows into Python | cell into Python s |")
            print("|---|---|---|---|")
            print(f"| original | {read_before:,} | {seen['original'][0]:,} | {before:.2f} |")
            print(f"| rewritten | {read_after:,} | {seen['rewritten'][0]:,} | {after:.2f} |")
            print(f"\nrows read {read_before / max(read_after, 1):.1f}x fewer; rows moved "
                  f"{seen['original'][0] / max(seen['rewritten'][0], 1):.1f}x fewer; that cell {before / after:.1f}x "
                  f"faster; final frame equal ({'index, ' if with_index else ''}columns, dtypes, rows): "
                  f"{'yes' if same else 'NO'}\n")
    return 1 if failed else 0


def _predicate(suggestion):
    from magicpush_lab.ir.serialize import expr_from_json

    return expr_from_json(suggestion.predicate_ir)

if __name__ == "__main__":
    sys.exit(main())
