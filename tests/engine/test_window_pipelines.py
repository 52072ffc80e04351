"""Windows as notebooks use them, on real Spark plans: row_number() then `== 1`, lag and lead
differences, running sums, first/last, windows over an expression and over double keys.

A filter moves below a window when it keeps, with each row it keeps, every row that row's
window values read (verify/window.py): whole partitions for a filter on the partition keys,
a prefix of each partition's order below row_number, lag or a running sum, a suffix below
lead. Each push runs the original and the rewritten pipeline on Spark and compares bags
(NULLs, duplicate rows, NaN and -0.0 in the data); each has a neighbour that must not push,
several of which the naive rewrite gets wrong on this data (`naive_differs`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import Window
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType

from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import bag, check_pushdown, run_engine, udf_record

SESSIONS = ("classic", "connect")

SCHEMA = "cust string, ts int, amount double, region string, score double"
NAN = float("nan")


def rows() -> list[tuple]:
    """ts is unique within each customer, so row_number's order has no ties to break; amount
    has NaN, -0.0, NULL and repeats, score NaN and infinities; some rows are duplicated."""
    rnd = random.Random(17)
    out = [("a", 1, 10.0, "n", 1.0), ("a", 2, NAN, "s", NAN), ("a", 3, -0.0, None, float("inf")),
           ("b", 1, 0.0, "n", -1.5), ("b", 4, 7.5, "n", NAN), (None, 2, 3.0, "s", 2.0), (None, 5, None, "n", None)]
    for cust in ("a", "b", "c", "d", "A"):
        taken = {r[1] for r in out if r[0] == cust}
        for ts in rnd.sample([t for t in range(1, 12) if t not in taken], 4):
            out.append((cust, ts, rnd.choice([None, NAN, 0.0, 2.5, 5.0, 12.0, 20.0, 99.0]),
                        rnd.choice([None, "n", "s"]), rnd.choice([None, NAN, 1.0, 3.0])))
    return out + [out[0], out[8]]  # whole-row duplicates tie in every order: either is "first"


def by_cust(order=None):
    w = Window.partitionBy("cust")
    return w.orderBy(order) if order is not None else w


def numbered(s):
    return s[0].withColumn("rn", F.row_number().over(by_cust(F.col("ts").desc())))


def latest(s):
    """Deduplication: each customer's latest row."""
    return numbered(s).filter(F.col("rn") == 1)


def earliest(s):
    """Each customer's earliest row: ascending, so a NULL ts sorts first and is row 1."""
    return s[0].withColumn("rn", F.row_number().over(by_cust(F.col("ts")))).filter(F.col("rn") == 1)


def lagged(s):
    w = by_cust(F.col("ts"))
    return s[0].withColumn("prev", F.lag("amount").over(w)).withColumn("change", F.col("amount") - F.col("prev"))


def led(s):
    return s[0].withColumn("next_ts", F.lead("ts").over(by_cust(F.col("ts"))))


def running(s):
    return s[0].withColumn("total", F.sum("amount").over(by_cust(F.col("ts").asc_nulls_last())))


def moving(s):
    return s[0].withColumn("recent", F.sum("amount").over(by_cust(F.col("ts").asc_nulls_last()).rowsBetween(-2, 0)))


def firsts(s):
    return (s[0].withColumn("first_amount", F.first("amount").over(by_cust(F.col("ts").asc_nulls_last())))
            .withColumn("last_region", F.last("region").over(by_cust())))


def by_upper(s):
    return s[0].withColumn("cust_rows", F.count("*").over(Window.partitionBy(F.upper("cust"))))


def ranked_by_amount(s):
    return s[0].withColumn("pos", F.row_number().over(by_cust(F.col("amount").desc())))


def summed_by_score(s):
    return s[0].withColumn("n", F.count("*").over(Window.partitionBy("score")))


def total_by_amount(s):
    return s[0].withColumn("same_amount", F.count("*").over(Window.partitionBy("amount")))


def indexed(s):
    """Each row against its customer's ts == 3 value, as notebooks index a series on a base year."""
    base = F.first(F.when(F.col("ts") == 3, F.col("amount")), ignorenulls=True).over(by_cust())
    return s[0].withColumn("base", base).withColumn("change", F.col("amount") - F.col("base"))


def indexed_first_row(s):
    """The same without ignorenulls, in ts order: the first row's value, NULL unless its ts is 3."""
    base = F.first(F.when(F.col("ts") == 3, F.col("amount"))).over(by_cust(F.col("ts")))
    return s[0].withColumn("base", base)


def always(x):
    return x is None or x > 1.0 or x <= 1.0


@dataclass(frozen=True)
class Case:
    name: str
    body: Callable
    late: Callable
    expect: str | None  # EQUIVALENT, SUPERSET, or None: nothing may be pushed
    predicate: str | None = None
    udfs: tuple = ()
    naive_differs: bool = False  # for a must-not case: the late filter run first changes the result here


CASES = [
    # row_number() == 1, the deduplication idiom
    Case("row_number == 1: a filter on the partition key moves below", latest,
         lambda: F.col("cust") == "a", EQUIVALENT, "cust = 'a'"),
    Case("row_number == 1 by latest ts: a filter keeping the latest rows moves below", latest,
         lambda: F.col("ts") >= 6, EQUIVALENT, "ts >= 6"),
    Case("row_number == 1 by latest ts: the conjunct keeping the latest rows moves, the other column's stays",
         latest, lambda: (F.col("ts") >= 6) & (F.col("region") == "s"), SUPERSET, "ts >= 6"),
    Case("row_number == 1 by latest ts: a filter on another column must not", latest,
         lambda: F.col("region") == "n", None, naive_differs=True),
    Case("row_number == 1 by latest ts: keeping the earliest rows is not a prefix, must not", latest,
         lambda: F.col("ts") <= 3, None, naive_differs=True),
    Case("row_number == 1 by earliest ts: a bound keeping the earliest rows moves with the NULL ts, which sort first",
         earliest, lambda: F.col("ts") <= 3, SUPERSET, "ts <= 3 OR ts IS NULL"),
    Case("row_number == 1 by latest ts: of a disjunction of ranges, the loosest front bound moves", latest,
         lambda: ((F.col("ts") > 6) & (F.col("ts") < 9)) | (F.col("ts") >= 10), SUPERSET, "ts > 6"),
    Case("row_number == 1 by earliest ts: an equality beside a range bounds the front too", earliest,
         lambda: (F.col("ts") == 5) | (F.col("ts") < 3), SUPERSET, "ts <= 5 OR ts IS NULL"),
    Case("row_number == 1 by latest ts: a disjunct with no front bound, must not", latest,
         lambda: (F.col("ts") > 6) | (F.col("ts") < 2), None),
    Case("row_number == 1 by earliest ts: a bound dropping the earliest rows must not", earliest,
         lambda: F.col("ts") >= 6, None, naive_differs=True),
    Case("row_number == 1 beside a key conjunct: the key conjunct moves, the late filter stays", numbered,
         lambda: (F.col("rn") == 1) & F.col("cust").isin("a", "b"), SUPERSET, "cust IN ('a', 'b')"),
    Case("row_number alone: a filter on its result must not", numbered, lambda: F.col("rn") <= 2, None),
    # lag and lead
    # ascending puts NULL first: the prefix holds the NULL ts too
    Case("lag difference: a filter keeping a prefix of ts moves below", lagged,
         lambda: F.col("ts").isNull() | (F.col("ts") <= 4), EQUIVALENT, "ts IS NULL OR ts <= 4"),
    Case("lag difference: the same range without the NULL ts, which sort first, moves with them, the late "
         "filter kept", lagged, lambda: F.col("ts") <= 4, SUPERSET, "ts <= 4 OR ts IS NULL"),
    Case("lag difference: a filter dropping a prefix of ts must not", lagged,
         lambda: F.col("ts") >= 4, None, naive_differs=True),
    Case("lag difference: a filter on the difference must not", lagged,
         lambda: F.col("change") > 0, None),
    Case("lead: a filter keeping a suffix of ts moves below", led,
         lambda: F.col("ts") >= 5, EQUIVALENT, "ts >= 5"),
    Case("lead: a filter keeping a prefix of ts must not", led,
         lambda: F.col("ts") <= 5, None, naive_differs=True),
    # running sums
    Case("running sum: a filter keeping a prefix moves below", running,
         lambda: (F.col("ts") < 7) & (F.col("cust") != "b"), EQUIVALENT, "ts < 7 AND NOT cust = 'b'"),
    Case("running sum: a filter on a value column must not", running,
         lambda: F.col("amount") > 4, None, naive_differs=True),
    Case("moving sum over the two rows before: a prefix moves below", moving,
         lambda: F.col("ts") <= 8, EQUIVALENT, "ts <= 8"),
    Case("moving sum over the two rows before: a suffix of ts must not", moving,
         lambda: F.col("ts") >= 5, None, naive_differs=True),
    # first / last: last over the whole partition needs whole partitions
    Case("first and last: a filter on the partition key moves below", firsts,
         lambda: F.col("cust").isNull() | (F.col("cust") == "b"), EQUIVALENT, "cust IS NULL OR cust = 'b'"),
    Case("first and last over the whole partition: a prefix of ts must not", firsts,
         lambda: F.col("ts") <= 5, None, naive_differs=True),
    # functions that skip NULL arguments read only the rows whose argument is not NULL
    Case("first non-NULL of when(ts = 3): a filter keeping every ts = 3 row moves below", indexed,
         lambda: (F.col("ts") >= 3) & F.col("cust").isin("a", "b", "c"), EQUIVALENT, "ts >= 3 AND cust IN ('a', 'b', 'c')"),
    Case("first non-NULL of when(ts = 3): a filter dropping the ts = 3 rows must not", indexed,
         lambda: F.col("ts") >= 4, None, naive_differs=True),
    Case("first of when(ts = 3) with NULLs counted: its first row may be dropped, must not", indexed_first_row,
         lambda: F.col("ts") >= 3, None, naive_differs=True),
    # partition by an expression
    Case("partition by upper(cust): an equality on cust gives the key's value (superset)", by_upper,
         lambda: F.col("cust") == "a", SUPERSET, "upper(cust) <=> upper('a')"),
    Case("partition by upper(cust): a range on cust must not", by_upper,
         lambda: F.col("cust") > "Z", None, naive_differs=True),
    # double keys: NaN sorts above every number, equals NaN; -0.0 equals 0.0
    Case("row_number by amount desc (NaN first): amount >= 5 keeps a prefix, moves below", ranked_by_amount,
         lambda: F.col("amount") >= 5.0, EQUIVALENT, "amount >= 5.0"),
    Case("row_number by amount desc: amount < 5 is not a prefix (NaN sorts first), must not", ranked_by_amount,
         lambda: F.col("amount") < 5.0, None, naive_differs=True),
    Case("row_number by amount desc: amount - amount = 0 drops NaN and must not move", ranked_by_amount,
         lambda: (F.col("amount") - F.col("amount")) == 0.0, None, naive_differs=True),
    Case("partition by a double with NaN and infinities: a filter on it moves below", summed_by_score,
         lambda: F.col("score") > 1.5, EQUIVALENT, "score > 1.5"),
    Case("partition by a double: a filter on another column must not", summed_by_score,
         lambda: F.col("ts") > 5, None, naive_differs=True),
    Case("partition by a double where -0.0 and 0.0 share a partition: amount >= 0 moves below",
         total_by_amount, lambda: F.col("amount") >= 0.0, EQUIVALENT, "amount >= 0.0"),
    # (a filter reading only the partition key is one Spark's optimizer moves below the window
    # itself, -0.0 or not: the `ts` disjunct keeps it where it is written)
    Case("partition by a double: its string, which tells -0.0 from 0.0, must not", total_by_amount,
         lambda: (F.col("amount").cast("string") == "0.0") | (F.col("ts") > 100), None, naive_differs=True),
    Case("a Python UDF over a double, true for every number but not NaN, must not move below a window",
         running, lambda: F.udf(always, BooleanType())(F.col("amount")), None,
         udfs=(udf_record("always", always, return_type="boolean"),), naive_differs=True),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_window_case(spark, case: Case):
    sources = [spark.createDataFrame(rows(), SCHEMA)]
    original = case.body(sources).filter(case.late())
    walk = run_engine(sources, original, case.udfs)
    if case.expect is None:
        assert walk.pushed == [], f"must not push, pushed {[str(p.predicate) for p in walk.pushed]}"
        assert walk.refusals, "a refusal says why"
        if case.naive_differs:
            naive = case.body([sources[0].filter(case.late())])
            assert bag(naive) != bag(original), "the data should show why the late filter cannot move"
        return
    check_pushdown(walk, sources, case.body, case.late, case.expect,
                   predicates=[case.predicate] if case.predicate else None)
    assert bag(original), "the data should keep some rows, or the comparison proves little"
