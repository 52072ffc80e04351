"""The differential pipeline fuzzer: random pipelines, the engine's pushdowns, compared.

    python -m tests.fuzz.run --pushdowns 10000 --seed 1 --spark-sample 200

Generates seeded random pipelines with late filters (tests/fuzz/generate.py), asks
the engine to push each filter, and compares every proposed rewrite with the original
on random tables in the reference evaluator; every Nth pushdown (so that about
--spark-sample of them are) also runs on Spark. A mismatch is shrunk and printed as
a regression case. Prints the figures at the end; exits 1 if anything mismatched.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from .check import Mismatch, compare_reference, compare_spark, first_mismatch, proposals, variants
from .generate import Case, kinds_of, random_case, tables
from .shrink import regression_case, shrink


@dataclass
class Figures:
    pipelines: int = 0
    pushdowns: Counter = field(default_factory=Counter)  # kind -> count
    # what the pipelines were made of (generate.kinds_of) -> pushdowns proposed on such pipelines
    by_kind: Counter = field(default_factory=Counter)
    reference_comparisons: int = 0
    spark_comparisons: int = 0
    skipped: int = 0
    mismatches: list = field(default_factory=list)  # (Mismatch, shrunk Case)
    seconds: float = 0.0

    def report(self) -> str:
        total = sum(self.pushdowns.values())
        return "\n".join([
            f"pipelines generated:   {self.pipelines}",
            f"pushdowns proposed:    {total} (equivalent {self.pushdowns['equivalent']}, "
            f"superset {self.pushdowns['superset']})",
            f"comparisons run:       {self.reference_comparisons} reference, {self.spark_comparisons} Spark "
            f"({self.skipped} inputs skipped: original raises or undefined)",
            f"mismatches:            {len(self.mismatches)}",
            f"seconds:               {self.seconds:.0f}",
            "pushdowns on pipelines with: " + ", ".join(f"{k} {n}" for k, n in sorted(self.by_kind.items())),
        ])


def fuzz(seed: int, pushdowns: int, tables_per_variant: int = 8, spark=None, spark_every: int = 0,
         max_pipelines: int | None = None, shrink_failures: bool = True, log=None,
         max_seconds: float | None = None) -> Figures:
    """Run until `pushdowns` pushdowns were proposed (or `max_pipelines` generated, or
    `max_seconds` passed: the figures then say how far it got)."""
    rng = random.Random(seed)
    figures = Figures()
    started = time.monotonic()
    while sum(figures.pushdowns.values()) < pushdowns and (max_pipelines is None or figures.pipelines < max_pipelines) \
            and (max_seconds is None or time.monotonic() - started < max_seconds):
        case = random_case(rng)
        figures.pipelines += 1
        try:
            pushed = proposals(case.late)
        except Exception as err:  # noqa: BLE001 - the engine crashing is a finding
            _record(figures, Mismatch("engine", "", f"{type(err).__name__}: {err}"), case, None, shrink_failures, log)
            continue
        before = sum(figures.pushdowns.values())
        figures.pushdowns.update(p.kind for p in pushed)
        if pushed:
            figures.by_kind.update({kind: len(pushed) for kind in kinds_of(case.late.child)})
        for variant in variants(case.late, pushed):
            for i in range(tables_per_variant):
                t = case.tables if i == 0 else tables(rng)
                found = compare_reference(case.late, variant, t)
                if found == "skip":
                    figures.skipped += 1
                    continue
                figures.reference_comparisons += 1
                if found is not None:
                    _record(figures, found, Case(case.late, t), None, shrink_failures, log)
                    break
        if spark is not None and spark_every and pushed and before // spark_every != \
                sum(figures.pushdowns.values()) // spark_every:
            for variant in variants(case.late, pushed):
                for i in range(2):
                    t = case.tables if i == 0 else tables(rng)
                    found = compare_spark(spark, case.late, variant, t)
                    if found == "skip":
                        continue
                    figures.spark_comparisons += 1
                    if found is not None:
                        _record(figures, found, Case(case.late, t), spark, shrink_failures, log)
                        break
        if log and figures.pipelines % 250 == 0:
            log(f"... {figures.pipelines} pipelines, {sum(figures.pushdowns.values())} pushdowns, "
                f"{figures.reference_comparisons}+{figures.spark_comparisons} comparisons, "
                f"{len(figures.mismatches)} mismatches, {time.monotonic() - started:.0f}s")
    figures.seconds = time.monotonic() - started
    return figures


def _record(figures: Figures, found: Mismatch, case: Case, spark, shrink_failures: bool, log) -> None:
    if shrink_failures:
        case = shrink(case, lambda c: first_mismatch(c.late, c.tables, spark) is not None)
    figures.mismatches.append((found, case))
    if log:
        log(f"MISMATCH ({found.where}) {found.variant}: {found.detail}\n"
            f"{regression_case('name_the_bug', case)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pushdowns", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tables", type=int, default=8, help="random tables per rewritten plan")
    parser.add_argument("--spark-sample", type=int, default=0, help="about this many pushdowns also run on Spark")
    parser.add_argument("--max-seconds", type=float, default=None, help="stop early, with the figures so far")
    args = parser.parse_args(argv)
    spark = None
    if args.spark_sample:
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master("local[1]").appName("magicpush-fuzz")
                 .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "1").getOrCreate())
        spark.sparkContext.setLogLevel("OFF")  # failing jobs (a UDF raising) are expected
        logging.getLogger("DataFrameQueryContextLogger").setLevel(logging.CRITICAL + 1)
    every = max(1, args.pushdowns // args.spark_sample) if args.spark_sample else 0
    figures = fuzz(args.seed, args.pushdowns, args.tables, spark, every,
                   log=lambda m: print(m, file=sys.stderr, flush=True), max_seconds=args.max_seconds)
    print(f"python -m tests.fuzz.run --pushdowns {args.pushdowns} --seed {args.seed} "
          f"--tables {args.tables} --spark-sample {args.spark_sample}"
          + (f" --max-seconds {args.max_seconds:.0f}" if args.max_seconds else ""))
    print(figures.report())
    return 1 if figures.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
