"""Python UDFs whose body is double arithmetic, written at the source as the same Column
arithmetic (symbolic/udf_inline.py), on real Spark: what pushes, what must not.

Python's float operations and Spark's double operations are the same IEEE 754 operations, so a
body of `+ - * /` written as Column code with the same operands in the same order gives the
same doubles, NaN and the infinities included; a late filter over the UDF's result then moves
as an equivalence. Each pushing case runs the original and the rewritten pipeline on rows with
NULL, NaN, infinities, -0.0, zeros and duplicates and compares the bags; each kind of body has
a neighbour where Python and Spark part (integers that overflow, a divisor that may be zero,
a test NaN decides otherwise, a float32 result), which must not be written.
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.capture.trace import Udf
from magicpush_lab.capture.udfs import with_captured_constants
from magicpush_lab.ir import expr as X
from magicpush_lab.symbolic.udf_inline import inlined
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import bag, check_pushdown, run_engine_with_notes

NAN, INF = float("nan"), float("inf")
OFFSET = 0.05  # a notebook's constant, recorded in front of the UDF that reads it

# `id` and `pos` have no NULL (a UDF dividing by `pos` tests it against 0 only); `n`, `m` are 32-bit
SCHEMA = "id int, a double, b double, pos double, n int, m int, big long"
ROWS = [
    (1, 1.5, 0.2, 2.0, 7, 2, 2 ** 40),
    (1, 1.5, 0.2, 2.0, 7, 2, 2 ** 40),  # a duplicate
    (2, NAN, 0.1, NAN, 3, 0, 1),
    (3, INF, 1.0, INF, 1, 3, -5),
    (4, -INF, -1.0, 0.0, -4, 7, 2 ** 52),
    (5, -0.0, 0.0, -0.0, 0, 1, 0),
    (6, None, 0.5, 0.5, None, 2, None),
    (7, 0.3, None, 1e-300, 12, None, 100),
    (8, 250.0, 12.5, 4.0, 2 ** 31 - 1, 3, 7),
    (9, 0.30000000000000004, 0.2, 3.0, 10, 3, 3),
    (10, 1e308, -1e308, 1e308, 5, 5, 5),
]


def diff(s, t):
    return None if s is None or t is None else s - t


def share(x):
    return None if x is None else x / 100


def offset(x):
    if x is None:
        return None
    return x + OFFSET


def density(people, area):
    return people / (1000 * area) if area != 0 else 0.0


def ratio(n, m):
    return None if n is None or m is None else (n / m if m != 0 else None)


def fahrenheit(c):
    return None if c is None else c * (9 / 5) + 32


def long_sum(big):
    return None if big is None else big + 1


def quotient(s, t):
    return None if s is None or t is None else s / t


def positive_double(x):
    return None if x is None else (x * 2 if x > 0 else 0.0)


@dataclass(frozen=True)
class Step:
    fn: Callable
    columns: tuple[str, ...]
    out: str
    dtype: str = "double"


@dataclass(frozen=True)
class Case:
    title: str
    steps: tuple[Step, ...]
    late: Callable
    expect: str | None
    predicate: str | None = None  # the pushed predicate, when it pushes
    written: bool = True  # the last step's UDF call is written as Column code


CASES = [
    Case("a None-guarded difference of two doubles: the same subtraction at the source",
         (Step(diff, ("a", "b"), "x"),), lambda: F.col("x") > 0.1, EQUIVALENT, "(a - b) > 0.1"),
    Case("two UDFs one above the other (a share, then a recorded offset): composed at the source",
         (Step(share, ("a",), "u"), Step(offset, ("u",), "x")), lambda: F.col("x") > 0.06, EQUIVALENT,
         "((a / 100.0) + 0.05) > 0.06"),
    Case("a division its branch guards against zero: a CASE with the same division at the source",
         (Step(density, ("id", "pos"), "x"),), lambda: F.col("x") > 0.001, EQUIVALENT,
         "CASE WHEN pos != 0.0 THEN (cast(id as double) / (1000.0 * pos)) ELSE 0.0 END > 0.001"),
    Case("true division of two 32-bit integers: the same quotient of doubles at the source",
         (Step(ratio, ("n", "m"), "x"),), lambda: F.col("x") >= 2.5, EQUIVALENT,
         "CASE WHEN m != 0 THEN (cast(n as double) / cast(m as double)) ELSE NULL END >= 2.5"),
    Case("a branch that is NULL on a NULL argument anyway: its None test is not written twice",
         (Step(ratio, ("n", "m"), "x"),), lambda: F.col("x") < 0.5, EQUIVALENT,
         "CASE WHEN m != 0 THEN (cast(n as double) / cast(m as double)) ELSE NULL END < 0.5"),
    Case("an integer times a constant quotient plus an integer: the same doubles at the source",
         (Step(fahrenheit, ("n",), "x"),), lambda: F.col("x") >= 50.0, EQUIVALENT,
         "((cast(n as double) * (9.0 / 5.0)) + 32.0) >= 50.0"),
    Case("two long integers: Python's do not overflow and Spark's do, so the sum is not written: must not"
         " (the integer reading of the body still moves a bound on big)",
         (Step(long_sum, ("big",), "x"),), lambda: F.col("x") > 10.0, EQUIVALENT, "big > 9", written=False),
    Case("a divisor that may be zero: Python raises where Spark may not, so it is not written: must not",
         (Step(quotient, ("a", "b"), "x"),), lambda: F.col("x") > 1.0, None, written=False),
    Case("an ordering test of a double in the body: NaN takes the other branch in Python: must not"
         " (a superset that keeps NaN rows still moves)",
         (Step(positive_double, ("a",), "x"),), lambda: F.col("x") > 1.0, SUPERSET, "a > 0.5 OR isnan((a - a))",
         written=False),
    Case("a float (32-bit) result rounds what Python computed: not written: must not",
         (Step(diff, ("a", "b"), "x", "float"),), lambda: F.col("x") > 0.1, None, written=False),
]


def _record(fn: Callable, dtype: str) -> Udf:
    source = textwrap.dedent(inspect.getsource(fn))
    return Udf(fn.__name__, with_captured_constants(source, fn), True, dtype)


def _call(step: Step, columns: dict[str, X.Col]) -> X.PyUdf:
    return X.PyUdf(step.fn.__name__, tuple(columns[c] for c in step.columns), step.dtype,
                   _record(step.fn, step.dtype).source)


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_udf_arithmetic_case(spark, case: Case):
    source = spark.createDataFrame(ROWS, SCHEMA)
    udfs = [(F.udf(s.fn, s.dtype), s) for s in case.steps]

    def stepped(k: int):
        def body(s):
            df = s[0]
            for udf, step in udfs[:k]:
                df = df.withColumn(step.out, udf(*[F.col(c) for c in step.columns]))
            return df
        return body

    body = stepped(len(udfs))
    steps = [stepped(k + 1)([source]) for k in range(len(udfs))]
    original = body([source]).filter(case.late())
    walk, _ = run_engine_with_notes([source], steps, original, [_record(s.fn, s.dtype) for s in case.steps])
    check_pushdown(walk, [source], body, case.late, case.expect, [case.predicate] if case.predicate else None)
    if case.expect is None:
        assert walk.refusals, "a refusal says why"
    else:
        assert bag(original), "the data should keep some rows, or the comparison proves little"
    last = case.steps[-1]
    dtypes = dict(s.split() for s in SCHEMA.split(", "))
    names = {"int": "int", "double": "double", "long": "long"}
    columns = {c: X.Col(c, i, names[dtypes.get(c, "double")]) for i, c in enumerate(last.columns)}  # u: a double
    assert (inlined(_call(last, columns)) is not None) == case.written
