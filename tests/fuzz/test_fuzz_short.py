"""A short seeded run of the pipeline fuzzer (tests/fuzz/run.py has the long one).

Random pipelines of 1-3 operators with random late filters; every pushdown the engine
proposes runs against the original on random tables in the reference evaluator, and
a sample of them on Spark. No mismatch is allowed, and the run must see enough
pushdowns to mean something.
"""

from __future__ import annotations

from .run import fuzz

PUSHDOWNS = 40
MAX_PIPELINES = 400  # about 110 are needed for seed 11: a fuzzer that stops pushing fails here


def test_a_short_fuzz_run_finds_no_mismatch_on_the_reference_and_spark(spark):
    figures = fuzz(seed=11, pushdowns=PUSHDOWNS, tables_per_variant=8, spark=spark, spark_every=10,
                   max_pipelines=MAX_PIPELINES, shrink_failures=True, log=print)
    print(figures.report())
    assert not figures.mismatches, "\n".join(f"{m.where}: {m.variant}: {m.detail}" for m, _ in figures.mismatches)
    assert sum(figures.pushdowns.values()) >= PUSHDOWNS, f"only {figures.pushdowns} in {figures.pipelines} pipelines"
    assert figures.pushdowns["equivalent"] >= PUSHDOWNS // 5 and figures.pushdowns["superset"] >= PUSHDOWNS // 5
    assert figures.reference_comparisons >= 5 * PUSHDOWNS
    assert figures.spark_comparisons >= 4
