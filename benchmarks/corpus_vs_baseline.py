"""The engine against the rule baseline on every pipeline case of the engine tests.

    python -m benchmarks.corpus_vs_baseline      (from the repository root; needs Java for Spark)

For each case, the per-source predicates of both (tests/engine/test_baseline_selectivity.py
builds and compares them; this prints the totals): in how many cases each reaches a source,
and in how many the engine's predicates are stronger, the same, or weaker on some source
(implication proved on one symbolic row).
"""

from __future__ import annotations

from pyspark.sql import SparkSession

from magicpush_lab.ir import expr as X
from tests.engine.test_baseline_selectivity import CASES, compare, implication


def main() -> None:
    spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    engine = baseline = stronger = same = weaker = 0
    for case in CASES:
        _, plan = case.build(spark)
        verdicts = compare(plan)
        engine += any(v.engine != X.TRUE for v in verdicts)
        baseline += any(v.baseline != X.TRUE for v in verdicts)
        if not all(v.implied for v in verdicts):
            weaker += 1
            print(f"engine weaker: {case.id}")
        elif any(not implication(v.baseline, v.engine).proved for v in verdicts):
            stronger += 1
        else:
            same += 1
    print(f"{len(CASES)} cases; a predicate reaches a source: engine {engine}, baseline {baseline}; "
          f"engine stronger {stronger}, the same {same}, weaker {weaker}")


if __name__ == "__main__":
    main()
