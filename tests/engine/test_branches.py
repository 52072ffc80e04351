"""A source read by several branches of one pipeline (paper, Section 5.1, Figure 7(3)).

Each case is data: a body that builds the pipeline from the reads of one source (in the
order the plan lists them, left input first), a late filter, and what the walk must
conclude for that source. The rewritten pipeline filters the source by the disjunction and
each read by its own branch's predicate, and must give the original's bag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.ir.expr import TRUE
from magicpush_lab.rewrite.pyspark_column import to_column
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import bag, run_engine

SESSIONS = ("classic", "connect")


@dataclass(frozen=True)
class Case:
    body: Callable  # (reads of the shared source, other sources) -> DataFrame before the late filter
    late: Callable[[], object]
    reads: int
    source_predicate: str | None  # the disjunction at the source; None: the source gets nothing
    branch_predicates: tuple[str | None, ...]  # per read; None: that read gets nothing
    kind: str
    others: int = 0  # further sources, made from the shared source's rows


def self_join(r, _):
    # each row meets the next one: a row kept for one side is not the row the other side needs
    a = r[0].select("id", "v")
    b = r[1].select((F.col("id") + 1).alias("id2"), "s")
    return a.join(b, a.id == b.id2)


def union_two_filters(r, _):
    return r[0].withColumn("w", F.col("v") * 2).union(r[1].withColumn("w", F.col("s") * 3))


def join_left_only(r, _):
    a = r[0].select("id", "v")
    b = r[1].select(F.col("id").alias("id2"), "s")
    return a.join(b, a.id == b.id2)


def union_one_branch_unproved(r, _):
    # a limit without a sort is not analysed; it keeps every row here (fewer than 1000)
    return r[0].withColumn("w", F.col("v")).union(r[1].limit(1000).withColumn("w", F.col("v")))


def union_of_two_sources_one_unproved(r, others):
    return r[0].withColumn("w", F.col("v")).union(others[0].limit(1000).withColumn("w", F.col("v")))


def union_same_predicate(r, _):
    return r[0].select("id", "v").union(r[1].select("id", "v"))


CASES = {
    "self-join: the source gets the disjunction, each read its own conjunct (superset)": Case(
        self_join, lambda: (F.col("v") > 7) & (F.col("s") < 2), 2,
        "v > 7 OR s < 2", ("v > 7", "s < 2"), SUPERSET),
    "union of two branches with different filters: disjunction, equivalent": Case(
        union_two_filters, lambda: F.col("w") > 12, 2,
        "(v * 2) > 12 OR (s * 3) > 12", ("(v * 2) > 12", "(s * 3) > 12"), EQUIVALENT),
    "both reads want the same rows: one predicate, equivalent": Case(
        union_same_predicate, lambda: F.col("v") > 6, 2, "v > 6", ("v > 6", "v > 6"), EQUIVALENT),
    # must not push to the source: one read has no predicate
    "join filtered on the left only: the source gets nothing, the left read its predicate": Case(
        join_left_only, lambda: F.col("v") > 7, 2, None, ("v > 7", None), EQUIVALENT),
    "union with an unproved branch: the source gets nothing and the late filter stays": Case(
        union_one_branch_unproved, lambda: F.col("v") > 7, 2, None, ("v > 7", None), SUPERSET),
}


def _rows(spark):
    rows = [(i, i % 10 if i % 13 else None, i % 7) for i in range(60)] + [(3, 9, 1), (3, 9, 1)]
    return spark.createDataFrame(rows, "id int, v int, s int")


@pytest.mark.parametrize("name", list(CASES))
def test_shared_source_reads(spark, name):
    case = CASES[name]
    source = _rows(spark)
    original = case.body([source] * case.reads, []).filter(case.late())
    walk = run_engine([source], original)
    merged = [p for p in walk.pushed if p.source.origin == 0]
    assert len(merged) == 1, f"one entry for the shared source: {walk.pushed} {walk.refusals}"
    p = merged[0]
    assert len(p.branches) == case.reads
    assert (None if p.predicate == TRUE else str(p.predicate)) == case.source_predicate
    assert tuple(None if b.predicate == TRUE else str(b.predicate) for b in p.branches) == case.branch_predicates
    assert p.kind == case.kind
    # rewritten: the disjunction at the source, each read's own predicate on it
    at_source = source if p.predicate == TRUE else source.filter(to_column(p.predicate))
    reads = [at_source if b.predicate == TRUE else at_source.filter(to_column(b.predicate)) for b in p.branches]
    rewritten = case.body(reads, [])
    if p.kind == SUPERSET:
        rewritten = rewritten.filter(case.late())
    assert bag(rewritten) == bag(original)
    assert len(bag(original)) > 0


def test_branch_predicates_alone_at_the_source_would_lose_rows(spark):
    """Why the source gets the disjunction: either branch's predicate alone there changes the bag."""
    case = CASES["self-join: the source gets the disjunction, each read its own conjunct (superset)"]
    source = _rows(spark)
    original = case.body([source, source], []).filter(case.late())
    (p,) = run_engine([source], original).pushed
    for b in p.branches:
        alone = source.filter(to_column(b.predicate))
        assert bag(case.body([alone, alone], []).filter(case.late())) != bag(original)


def test_union_input_the_walk_could_not_reach_keeps_the_late_filter(spark):
    """Two different sources under a union, one behind an operator without analysis: the other
    source's predicate alone must not remove the late filter (the first input keeps every row)."""
    s1, s2 = _rows(spark), _rows(spark)
    final = union_of_two_sources_one_unproved([s1], [s2]).filter(F.col("v") > 7)
    walk = run_engine([s1, s2], final)
    assert [str(p.predicate) for p in walk.pushed] == ["v > 7"]
    assert walk.pushed[0].kind == SUPERSET
    rewritten = union_of_two_sources_one_unproved([s1.filter(to_column(walk.pushed[0].predicate))], [s2])
    assert bag(rewritten.filter(F.col("v") > 7)) == bag(final)
    # removing the late filter, as an equivalent verdict would, keeps s2's rows with v <= 7
    assert bag(rewritten) != bag(final)
