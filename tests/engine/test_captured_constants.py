"""UDFs that read constants from the notebook (a threshold, a lookup dict, a set of codes).

The tracer records the constants a UDF reads in front of its source, as Spark shipped
them; the interpreter reads them like literals. Each case that pushes runs the original
and the rewritten pipeline on Spark and compares the bags; next to it, the same UDF
without its constants (what an untraced global looks like) must push nothing.
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType

from magicpush_lab.capture.trace import Udf
from magicpush_lab.capture.udfs import with_captured_constants
from magicpush_lab.verify.verdict import EQUIVALENT

from .harness import bag, run_engine

SESSIONS = ("classic", "connect")

RATES = {"a": 10, "b": 20, "c": 5}
GOOD_STORES = {"a", "c"}
LIMIT = 500
STEPS = [0, 100, 1000]


def rate(store):
    return RATES.get(store, 0)


def good(store):
    return 1 if store in GOOD_STORES else 0


def over(v):
    return 1 if v is not None and v > LIMIT else 0


def level(v):
    if v is None:
        return -1
    n = 0
    for s in STEPS:
        if v >= s:
            n += 1
    return n


@dataclass(frozen=True)
class Case:
    title: str
    fn: Callable
    column: str
    late: Callable  # (Column of the UDF's output) -> Column
    expect: str | None
    with_constants: bool = True


CASES = [
    Case("lookup in a captured dict pushes as the keys that pass", rate, "store",
         lambda x: x > 15, EQUIVALENT),
    Case("the same lookup without its recorded dict is a black box", rate, "store",
         lambda x: x > 15, None, with_constants=False),
    Case("membership in a captured set pushes as the set's members", good, "store",
         lambda x: x == 1, EQUIVALENT),
    Case("the negated membership keeps NULL stores, which are not in the set", good, "store",
         lambda x: x == 0, EQUIVALENT),
    Case("a captured threshold", over, "v", lambda x: x == 1, EQUIVALENT),
    Case("the threshold unrecorded pushes nothing", over, "v", lambda x: x == 1, None, with_constants=False),
    Case("a loop over a captured list of steps", level, "v", lambda x: x == 2, EQUIVALENT),
]

ROWS = [(None, "a"), (0, None), (-3, "b"), (1000, "c"), (1000, "c"), (996, "a"), (501, "b"), (500, "d"),
        (99, "a"), (100, "b"), (5, None), (2000, "e")]


def _record(fn: Callable, with_constants: bool) -> Udf:
    source = textwrap.dedent(inspect.getsource(fn))
    return Udf(fn.__name__, with_captured_constants(source, fn) if with_constants else source, True, "int")


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_captured_constants_case(spark, case: Case):
    sales = spark.createDataFrame(ROWS, "v int, store string")
    body = lambda s: s.withColumn("x", F.udf(case.fn, IntegerType())(F.col(case.column)))  # noqa: E731
    original = body(sales).filter(case.late(F.col("x")))
    walk = run_engine([sales], original, [_record(case.fn, case.with_constants)])

    if case.expect is None:
        assert walk.pushed == [], [str(p.predicate) for p in walk.pushed]
        return
    assert [p.kind for p in walk.pushed] == [case.expect], walk.refusals
    from magicpush_lab.rewrite.pyspark_column import to_column
    rewritten = body(sales.filter(to_column(walk.pushed[0].predicate)))
    assert bag(rewritten) == bag(original) and bag(original)


def test_recorded_source_reads_back_as_the_constants():
    source = with_captured_constants(textwrap.dedent(inspect.getsource(rate)), rate)
    assert source.startswith("RATES = {'a': 10, 'b': 20, 'c': 5}\n")
