"""A seeded differential run over the operator kinds of tests/fuzz/operator_kinds.py (windows,
dropDuplicates on a subset, pivots by aggregate, limits on double keys, reduceByKey folds).

The pipeline fuzzer draws these kinds too (tests/fuzz/generate.operators), so the fast tier's
short fuzz run (tests/fuzz/test_fuzz_short.py) meets them; this run, which draws nothing else
and so meets them ten times as often, is in the slow tier.

Each pipeline is one of those operators over the fuzzer's left table, sometimes on top of or
under one of the fuzzer's own operators, with a random late filter; every pushdown the engine
proposes is compared with the original on random tables (NULLs, duplicates, NaN, the
infinities, -0.0) by the reference evaluator, and a sample of them on Spark, which also
checks the reference's window semantics against Spark's.

    python -m tests.engine.test_operator_kinds_fuzz 2000   # a longer run: pushdowns to reach
"""

from __future__ import annotations

import random
import sys
from collections import Counter

import pytest

from magicpush_lab.ir import plan as P

from tests.fuzz.check import Mismatch, compare_reference, compare_spark, proposals, variants
from tests.fuzz.generate import LEFT, OPERATORS as BASE, Names, predicate, tables
from tests.fuzz.operator_kinds import OPERATORS as KINDS

PUSHDOWNS = 60
MAX_PIPELINES = 600


def random_case(rng: random.Random) -> P.Filter:
    names = Names()
    plan: P.Plan = LEFT
    steps = [rng.choice(KINDS)]
    if rng.random() < 0.4:
        steps.insert(rng.randint(0, 1), rng.choice(BASE))
    used: set[int] = set()
    for make in steps:
        made = make(rng, plan, names, used)
        plan = made if made is not None else plan
    return P.Filter(plan, predicate(rng, plan.output))


def run(seed: int, pushdowns: int, spark=None, spark_every: int = 10, tables_per_variant: int = 8,
        max_pipelines: int | None = None) -> tuple[Counter, list[Mismatch]]:
    rng = random.Random(seed)
    figures: Counter = Counter()
    mismatches: list[Mismatch] = []
    while figures["pushdowns"] < pushdowns and (max_pipelines is None or figures["pipelines"] < max_pipelines):
        late = random_case(rng)
        figures["pipelines"] += 1
        if not any(isinstance(n, (P.Window, P.Aggregate, P.TopK)) for n in P.nodes(late)):
            continue
        pushed = proposals(late)
        figures["pushdowns"] += len(pushed)
        for p in pushed:
            figures[p.kind] += 1
            figures[P.operator_name(next(n for n in P.nodes(late) if isinstance(n, (P.Window, P.Aggregate, P.TopK))))] += 1
        for v in variants(late, pushed):
            for _ in range(tables_per_variant):
                t = tables(rng)
                found = compare_reference(late, v, t)
                figures["skipped" if found == "skip" else "reference"] += 1
                if isinstance(found, Mismatch):
                    mismatches.append(found)
            if spark is not None and figures["pushdowns"] // spark_every > figures["spark_batches"]:
                figures["spark_batches"] += 1
                found = compare_spark(spark, late, v, tables(rng))
                figures["spark"] += found != "skip"
                if isinstance(found, Mismatch):
                    mismatches.append(found)
    return figures, mismatches


@pytest.mark.slow
def test_the_new_operator_kinds_find_no_mismatch_on_the_reference_and_spark(spark):
    figures, mismatches = run(seed=20, pushdowns=PUSHDOWNS, spark=spark, max_pipelines=MAX_PIPELINES)
    print(dict(figures))
    assert not mismatches, "\n".join(f"{m.where}: {m.variant}: {m.detail}" for m in mismatches)
    assert figures["pushdowns"] >= PUSHDOWNS, figures
    assert figures["reference"] >= 3 * PUSHDOWNS and figures["spark"] >= 2, figures


if __name__ == "__main__":
    from pyspark.sql import SparkSession

    session = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false") \
        .config("spark.sql.shuffle.partitions", "2").getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    found, bad = run(seed=int(sys.argv[2]) if len(sys.argv) > 2 else 1, pushdowns=int(sys.argv[1]),
                     spark=session, spark_every=20)
    print(dict(found))
    for m in bad:
        print(f"{m.where}: {m.variant}: {m.detail}")
    sys.exit(1 if bad else 0)
