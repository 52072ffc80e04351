"""A pushed predicate in its smallest proved form: what other conjuncts imply goes, a
disjunction true on every set value is `IS NOT NULL`, what no row passes is FALSE, a guard
that changes no row goes.

Each case is data: a predicate, the form `simplest` must give, and rows with NULLs, bounds
and NaN on which Spark filters with both and must keep the same bag. The neighbours keep
their form: a scan form is not given up for a smaller predicate the scan cannot take, a NaN
test and an overflow guard change rows, a Python UDF and a cast that can fail are not
modelled exactly (they stay, after the part that shrank).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import pytest
from pyspark.sql import functions as F

from magicpush_lab.ir import expr as X
from magicpush_lab.rewrite.pyspark_code import to_pyspark
from magicpush_lab.search.simplify import readable, simplest
from magicpush_lab.verify.verdict import EQUIVALENT

from .harness import bag, rewritten_pipeline, run_engine

SCHEMA = "x int, y long, c string, p string, a boolean, b boolean, d double, s string"
ROWS = [
    (11, 11, "a", None, True, None, 600.0, "4"), (10, 10, "b", "q", False, True, float("nan"), "x"),
    (None, None, None, None, None, None, None, None), (-5, 5, "Italy", "r", None, False, 500.0, "-1"),
    (2147483647, 9, "c", None, True, True, -1.0, "12"), (-2147483648, -9, "", "", False, False, 0.0, ""),
    (6, 6, "Italy", None, None, True, 501.0, " 7"),
]

x, y = X.Col("x", 1, "int"), X.Col("y", 2, "long")
c, p = X.Col("c", 3, "string"), X.Col("p", 4, "string")
a, b = X.Col("a", 5, "boolean"), X.Col("b", 6, "boolean")
d, s = X.Col("d", 7, "double"), X.Col("s", 8, "string")


def lit(v, t="int"):
    return X.Lit(v, t)


def eq(col, v):
    return X.Cmp("=", col, X.Lit(v, "string"))


@dataclass(frozen=True)
class Case:
    title: str
    predicate: X.Expr
    expected: str


SHRINKS = [
    Case("a conjunct true on every row goes",
         X.And((X.Or((X.IsNotNull(p), X.Not(X.IsNotNull(p)))), eq(c, "Italy"))), "c = 'Italy'"),
    Case("a disjunction true on every set value is IS NOT NULL",
         X.Or((X.Not(eq(c, "Diamond Princess")), X.Not(eq(c, "MS Zaandam")))), "c IS NOT NULL"),
    Case("a conjunct the others imply goes, and so does the NULL test they imply",
         X.And((X.Cmp(">", x, lit(10)), X.Cmp(">", x, lit(5)), X.IsNotNull(x))), "x > 10"),
    Case("what no row passes is FALSE", X.And((X.Cmp(">", x, lit(10)), X.Cmp("<", x, lit(5)))), "False"),
    Case("of two pushes to one read, the one the other implies goes",
         X.And((X.Or((X.Cmp("=", a, X.TRUE), X.Cmp("=", b, X.TRUE), eq(c, "a"))), X.Or((a, b)))), "a OR b"),
    Case("b = true is b, and a NULL test inside a disjunct the column's own test implies goes",
         X.Or((X.And((X.IsNotNull(a), a)), X.Cmp("=", b, X.TRUE))), "a OR b"),
    Case("a guard branch that keeps no row the ELSE drops goes",
         X.Case(((X.Cmp(">", x, lit(100)), X.TRUE),), X.Cmp(">", x, lit(3))), "x > 3"),
    Case("a comparison with a cast literal is a scan form too: its NULL test goes",
         X.And((X.Cmp(">", y, X.Cast(lit(995), "long")), X.Cmp(">", y, X.Cast(lit(10), "long")), X.IsNotNull(y))),
         "y > cast(995 as long)"),
    Case("tests every disjunct shares are taken out of the OR",
         X.Or((X.And((X.IsNotNull(c), X.IsNotNull(x), X.IsNotNull(a))), X.And((X.IsNotNull(c), X.IsNotNull(x), X.IsNotNull(b))))),
         "c IS NOT NULL AND x IS NOT NULL AND (a IS NOT NULL OR b IS NOT NULL)"),
    Case("equalities of one column with literals are one IN",
         X.Or((eq(c, "a"), eq(c, "Italy"), X.Cmp(">", x, lit(5)))), "c IN ('a', 'Italy') OR x > 5"),
    Case("NOT-equalities of one column ANDed are one NOT IN (NULL rows dropped either way)",
         X.And((X.Not(eq(c, "a")), X.Not(eq(c, "b")), X.Cmp(">", x, lit(0)))), "NOT c IN ('a', 'b') AND x > 0"),
    Case("a conjunct written twice is written once", X.And((X.IsNotNull(c), X.IsNotNull(c), eq(c, "a"))),
         "c = 'a'"),
    Case("only the exactly modelled part shrinks; a cast that can fail stays first, so it raises as before",
         X.And((X.Cmp(">", X.Cast(s, "int"), lit(3)), X.Cmp(">", x, lit(10)), X.Cmp(">", x, lit(5)))),
         "cast(s as int) > 3 AND x > 10"),
]

KEEPS = [
    Case("a scan form is not given up for a smaller test the scan cannot take",
         X.And((X.Cmp(">", y, lit(0, "long")), X.Cmp(">", X.Arith("*", y, lit(3, "long"), "long"), lit(30, "long")))),
         "y > 0 AND (y * 3) > 30"),
    Case("a guard that keeps the NULL rows changes rows: it stays",
         X.Case(((X.IsNull(x), X.TRUE),), X.Cmp(">", x, lit(3))), "CASE WHEN x IS NULL THEN True ELSE x > 3 END"),
    Case("a NaN test changes rows (NaN > 500.0 is true in Spark): it stays",
         X.And((X.Not(X.Func("isnan", (d,), "boolean")), X.Cmp(">", d, lit(500.0, "double")))),
         "NOT isnan(d) AND d > 500.0"),
    Case("a guard around int arithmetic that can overflow stays",
         X.Case(((X.Cmp(">", x, lit(1000000000)), X.TRUE),), X.Cmp(">", X.Arith("*", x, lit(3), "int"), lit(30))),
         "CASE WHEN x > 1000000000 THEN True ELSE (x * 3) > 30 END"),
    Case("a disjunction of two values is no tautology (one IN, the same test)", X.Or((eq(c, "a"), eq(c, "b"))),
         "c IN ('a', 'b')"),
    Case("equalities of two columns are not merged; a test with a NULL literal goes no IN (it is never true)",
         X.Or((eq(c, "a"), eq(p, "a"), X.Cmp("=", c, X.Lit(None, "string")))), "c = 'a' OR p = 'a'"),
    Case("two tests on two columns are both needed", X.And((X.Cmp(">", x, lit(5)), X.IsNotNull(c))),
         "x > 5 AND c IS NOT NULL"),
]

CASES = SHRINKS + KEEPS


def _on_spark(df, e: X.Expr):
    return df.filter(eval(to_pyspark(e), {"F": F, "datetime": datetime}))  # noqa: S307 - our own code text


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_simplest_form(spark, case: Case):
    form = simplest(case.predicate, 5000)
    assert str(form) == case.expected
    rows = spark.createDataFrame(ROWS, SCHEMA)
    assert _outcome(_on_spark(rows, form)) == _outcome(_on_spark(rows, case.predicate))


def _outcome(df):
    """The rows kept, or the error's class: a cast of 'x' to int raises under ANSI mode on both."""
    try:
        return bag(df)
    except Exception as error:  # noqa: BLE001 - the kind of failure is the outcome compared
        return type(error).__name__


def test_readable_drops_the_null_test_then_solves_for_the_column():
    short = X.Col("qty", 10, "short")  # a short widened to int cannot overflow
    widened = X.Cmp(">", X.Arith("+", X.Cast(short, "int"), lit(99), "int"), lit(1049))
    assert str(readable(X.And((widened, X.IsNotNull(short))), 4000)) == "qty > 950"


def test_readable_leaves_arithmetic_that_can_overflow():
    # a long plus 99 overflows near its maximum (ANSI mode raises there): neither solved nor
    # proved to imply its NULL test, which stays
    amount = X.Col("amount", 9, "long")
    shifted = X.Cmp(">", X.Arith("+", amount, lit(99, "long"), "long"), lit(1049, "long"))
    assert str(readable(X.And((shifted, X.IsNotNull(amount))), 4000)) == "(amount + 99) > 1049 AND amount IS NOT NULL"


def _redundant(sources):
    return sources[0].withColumnRenamed("x", "z")


REDUNDANT_LATE = [
    ("the late filter's implied conjuncts do not reach the suggestion",
     lambda: (F.col("z") > 5) & (F.col("z") > 2) & F.col("z").isNotNull(), "x > 5"),
    ("a late filter with two needed tests keeps both", lambda: (F.col("z") > 5) | (F.col("z") < -3),
     "x > 5 OR x < -3"),
]


@pytest.mark.parametrize("title, late, expected", REDUNDANT_LATE, ids=[t for t, _, _ in REDUNDANT_LATE])
def test_pushed_predicate_is_simplified(spark, title, late, expected):
    sources = [spark.createDataFrame(ROWS, SCHEMA)]
    original = _redundant(sources).filter(late())
    walk = run_engine(sources, original)
    assert [(str(q.predicate), q.kind) for q in walk.pushed] == [(expected, EQUIVALENT)], walk.refusals
    rewritten = rewritten_pipeline(walk, sources, _redundant, late, False)
    assert bag(rewritten) == bag(original) and bag(original)


def test_a_shared_test_that_can_raise_is_not_taken_out_of_an_or():
    """`(x > 10 AND cast(s) > 3) OR (x < 0 AND cast(s) > 3)` evaluates the cast only where x
    passes; taken out in front, it would run (and raise under ANSI mode) on every row."""
    risky = X.Cmp(">", X.Cast(s, "int"), lit(3))
    p = X.Or((X.And((X.Cmp(">", x, lit(10)), risky)), X.And((X.Cmp("<", x, lit(0)), risky))))
    assert str(simplest(p, 2000)) == str(p)
