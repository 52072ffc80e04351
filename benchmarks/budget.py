"""Does the optimizer stop within the user's time budget? `python -m benchmarks.budget`.

Every pipeline of the notebook corpus and the 22 TPC-H queries is traced once, then
optimized as the faces do (`optimize_trace`, every pipeline of the trace) under budgets of
`--budgets` seconds, `--runs` times each. Optimizer time does not depend on the data, so the
tables are small (`--rows`, `--tpch-scale`). Printed: per budget, the median and the largest
share of the budget spent, the largest overrun in seconds and as a share, and the pipelines
that went over by more than the 10% the budget allows; then the slowest pipelines.

    python -m benchmarks.budget [--budgets 0.5,2,10] [--runs 2] [--rows 20000] [--tpch-scale 0.01] [--only NAMES]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from magicpush_lab.budget import Budget
from magicpush_lab.pipeline import optimize_trace

ALLOWED_OVERRUN = 0.10  # of the budget


def traces(spark, rows: int, scale: float, only: set[str], data_dir: Path | None, log) -> dict[str, object]:
    """name -> the trace of building that pipeline (corpus cases, then TPC-H queries q1..q22)."""
    from benchmarks.notebook_corpus import data as corpus_data
    from benchmarks.notebook_corpus.harness import trace_case
    from benchmarks.notebook_corpus.pipelines import CASES
    from benchmarks.tpch import data as tpch_data
    from benchmarks.tpch import queries
    from benchmarks.tpch.bench import trace_query

    found: dict[str, object] = {}
    paths = corpus_data.ensure_tables(spark, rows, data_dir)
    for case in CASES:
        if not only or case.name in only:
            log(f"tracing {case.name}")
            found[case.name] = trace_case(spark, paths, case)
    if scale > 0:
        tpch = tpch_data.ensure_tables(scale, data_dir)
        for number in sorted(queries.QUERIES):
            if not only or f"q{number}" in only:
                log(f"tracing q{number}")
                found[f"q{number}"] = trace_query(spark, tpch, number)[0]
    return found


def timed(trace, seconds: float) -> float:
    budget = Budget(seconds)
    started = time.monotonic()
    optimize_trace(trace, all_pipelines=True, budget=budget)
    return time.monotonic() - started


def report(spent: dict[float, dict[str, list[float]]]) -> list[str]:
    lines = ["| budget | optimizations | median share | largest share | largest overrun | over by >10% |",
             "|---|---|---|---|---|---|"]
    for seconds, by_name in spent.items():
        shares = [t / seconds for times in by_name.values() for t in times]
        worst = max(((t - seconds, name) for name, times in by_name.items() for t in times), default=(0.0, ""))
        over = sorted({name for name, times in by_name.items() if max(times) > seconds * (1 + ALLOWED_OVERRUN)})
        lines.append(f"| {seconds:g} s | {len(shares)} | {statistics.median(shares):.0%} | {max(shares):.0%} | "
                     f"{max(0.0, worst[0]):.2f} s ({max(0.0, worst[0]) / seconds:.0%}, {worst[1]}) | "
                     f"{', '.join(over) or 'none'} |")
    return lines


def slowest(spent: dict[float, dict[str, list[float]]], n: int = 8) -> list[str]:
    largest = max(spent)
    by_name = sorted(spent[largest].items(), key=lambda kv: -statistics.median(kv[1]))[:n]
    return [f"{name}: median {statistics.median(times):.2f} s of {largest:g} s" for name, times in by_name]


def main(argv: list[str] | None = None) -> None:
    from benchmarks.run import spark_session

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budgets", default="0.5,2,10", help="comma-separated budgets in seconds")
    parser.add_argument("--runs", type=int, default=2, help="optimizations per pipeline and budget")
    parser.add_argument("--rows", type=int, default=20_000, help="rows of the corpus's big table")
    parser.add_argument("--tpch-scale", type=float, default=0.01, help="TPC-H scale factor (0: skip TPC-H)")
    parser.add_argument("--only", default="", help="comma-separated corpus names and TPC-H queries (q1...)")
    parser.add_argument("--data-dir", type=Path, default=None, help="where the generated Parquet goes")
    args = parser.parse_args(argv)
    budgets = [float(b) for b in args.budgets.split(",") if b.strip()]
    if not budgets or any(b <= 0 for b in budgets):
        parser.error("--budgets takes positive numbers of seconds, e.g. 0.5,2,10")
    only = {n.strip() for n in args.only.split(",") if n.strip()}

    def log(text: str) -> None:
        print(text, flush=True)

    spark = spark_session("magicpush-budget")
    found = traces(spark, args.rows, args.tpch_scale, only, args.data_dir, log)
    if not found:
        parser.error("no pipeline matched --only")
    spent: dict[float, dict[str, list[float]]] = {}
    for seconds in budgets:
        for name, trace in found.items():
            spent.setdefault(seconds, {})[name] = [timed(trace, seconds) for _ in range(args.runs)]
            log(f"{seconds:g} s budget, {name}: {', '.join(f'{t:.2f}' for t in spent[seconds][name])} s")
    print()
    print("\n".join(report(spent)))
    print()
    print("\n".join(slowest(spent)))


if __name__ == "__main__":
    main()
