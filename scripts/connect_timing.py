"""Kernel-side time from "optimize" to a suggestion and to counted rows, classic against Spark
Connect, for the README's example pipeline; and the time to pull the trace of a long chain.

    python scripts/connect_timing.py [--rows 1000000] [--repeat 3] [--chain 200]

Runs a classic local[2] session in this process and a stock Connect server (the pyspark
wheel's, local[2], on a free port) in another. Each repetition runs the notebook's cells again
in a traced IPython shell and times what the panel's click does in the kernel: pulling the trace
(the plans are read then), optimizing, then counting the rows. The browser and the Jupyter
server's share is not in these figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CELLS = [
    "from pyspark.sql import functions as F\nfrom pyspark.sql.types import IntegerType",
    "orders = spark.range({rows}).select((F.col('id') % 1000).cast('int').alias('amount'), "
    "F.col('id').cast('int').alias('id'))",
    "@F.udf(IntegerType())\ndef loyalty_points(amount):\n    if amount is None:\n        return None\n"
    "    if amount > 500:\n        return amount + 50\n    return amount // 10\n\n"
    "scored = orders.withColumn('points', loyalty_points(F.col('amount')))",
    "big_earners = scored.filter(F.col('points') > 1000)",
]


def _time_click(spark, rows: int) -> tuple[float, float, float]:
    """(seconds to pull the trace, to the suggestion, to counted rows) of one fresh run."""
    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.assist import apply_measurements, measure_requests, optimize_and_measure
    from magicpush_lab.budget import Budget
    from magicpush_lab.kernel.bundles import kernel_cells, measure_in_kernel
    from magicpush_lab.kernel.extension import load, unload

    ip = InteractiveShell.instance()
    tracer = load(ip)
    try:
        ip.user_ns["spark"] = spark
        for cell in CELLS:
            ip.run_cell(cell.format(rows=rows), store_history=True).raise_error()
        start = time.perf_counter()
        trace = tracer.trace()
        pulled = time.perf_counter()
        cells, ids = kernel_cells(trace)
        result = optimize_and_measure(trace, cells, Budget(10), None, cell_ids=ids)
        suggested = time.perf_counter()
        assert result.suggestions, result.notes
        measured = apply_measurements(result.suggestions,
                                      measure_in_kernel(tracer, measure_requests(result.suggestions)))
        counted = time.perf_counter()
        assert measured.suggestions[0].rows_before == rows, measured
        return pulled - start, suggested - start, counted - start
    finally:
        unload(ip)


def _time_chain(spark, length: int) -> float:
    """Seconds to pull the trace of `length` withColumn calls in one cell."""
    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.kernel.extension import load, unload

    ip = InteractiveShell.instance()
    tracer = load(ip)
    try:
        ip.user_ns["spark"] = spark
        ip.run_cell("from pyspark.sql import functions as F\ndf = spark.range(10)\n"
                    f"for i in range({length}):\n    df = df.withColumn(f'c{{i}}', F.col('id') + i)\n"
                    "late = df.filter(F.col('c1') > 3)", store_history=True).raise_error()
        start = time.perf_counter()
        trace = tracer.trace()
        took = time.perf_counter() - start
        assert len(trace.events) >= length, len(trace.events)
        return took
    finally:
        unload(ip)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chain", type=int, default=200)
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    from tests.connect_support import connect_mode, connect_session, start_server

    classic = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    classic.sparkContext.setLogLevel("ERROR")
    server = start_server()
    try:
        remote = connect_session(server.url)
        figures = {}
        for mode, spark in (("classic", classic), ("connect", remote)):
            runs = []
            for _ in range(args.repeat):
                if mode == "connect":
                    with connect_mode():
                        runs.append(_time_click(spark, args.rows))
                else:
                    runs.append(_time_click(spark, args.rows))
            if mode == "connect":
                with connect_mode():
                    chain = _time_chain(spark, args.chain)
            else:
                chain = _time_chain(spark, args.chain)
            figures[mode] = ([statistics.median(r[i] for r in runs) for i in range(3)], chain)
        print(f"rows {args.rows:,}, median of {args.repeat} runs, seconds in the kernel")
        print(f"{'session':<9} {'trace pull':>10} {'to suggestion':>14} {'to counted rows':>16} "
              f"{'pull of ' + str(args.chain) + ' withColumn':>22}")
        for mode, ((pull, suggestion, counted), chain) in figures.items():
            print(f"{mode:<9} {pull:>10.3f} {suggestion:>14.3f} {counted:>16.3f} {chain:>22.3f}")
        remote.client.close()
    finally:
        server.stop()
        classic.stop()


if __name__ == "__main__":
    main()
