"""RowIterPipeline on real Spark: a UDF looping over a collected table (the paper's Figure 3).

Each case is data: the UDF (which reads the global `old_rows`), the late
filter, and what the engine must conclude for the left input (`sales`) and
for the collected table (`old`, filtered right before its collect()). Every
case that pushes also runs the original and the rewritten pipeline, the
rewritten one re-collecting the filtered table, and compares the output bags.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.rewrite.pyspark_column import to_column
from magicpush_lab.verify.verdict import SUPERSET

from .harness import bag, run_engine_collected, side_udf_record, with_globals

# every case runs on a classic and on a Spark Connect session (tests/engine/conftest.py)
SESSIONS = ("classic", "connect")

old_rows: list = []  # what the UDFs below read; each run binds its own list (harness.with_globals)


# ----------------------------------------------------------------------------- UDFs used by the cases

def flag_2006(id):
    for r in old_rows:
        if r.id == id and r.year == 2006:
            return 1
    return 0


def first_year(id):
    for r in old_rows:
        if r.id == id:
            return r.year
    return None


def ends_at_first_match(id):
    for r in old_rows:
        if r.id == id:
            if r.year == 2006:
                return 1
            return 0
    return 0


def count_all(id):
    n = 0
    for r in old_rows:
        n += 1
    return n


def count_2006(id):
    n = 0
    for r in old_rows:
        if r.id == id and r.year == 2006:
            n += 1
    return n


def third_2006_row(id):
    n = 0
    for r in old_rows:
        if r.year == 2006:
            n += 1
        elif n >= 2:
            return 0
    return n


def relative_rev(store, quantity, price):
    for r in old_rows:
        if r.store == store and r.year == 2006:
            return quantity * price / (r.quantity * r.price)
    return None


def cheap_old(id):
    for r in old_rows:
        if r.id == id and r.price < 5.0:
            return 1
    return 0


UDFS = {f.__name__: (f, rt) for f, rt in [
    (flag_2006, "int"), (first_year, "int"), (ends_at_first_match, "int"), (count_all, "int"),
    (count_2006, "int"), (relative_rev, "double"), (cheap_old, "int"), (third_2006_row, "int")]}


# ----------------------------------------------------------------------------- data

def sales_rows(price_type: type, seed: int = 3) -> list[tuple]:
    rnd = random.Random(seed)
    p = price_type
    rows = [(1, 2009, "a", 2, p(3)), (1, 2008, "a", 0, p(3)), (2, 2008, "b", 5, p(0)),
            (3, 2007, "c", 1, p(1)), (None, 2010, None, 1, p(2)), (4, None, "a", None, None)]
    rows += [(rnd.choice([None, *range(1, 7)]), rnd.choice([None, 2005, 2006, 2007, 2008, 2009, 2010]),
              rnd.choice(["a", "b", "c", "d", None]), rnd.choice([None, 0, 1, 2, 3]),
              rnd.choice([None, p(0), p(1), p(4), p(7)])) for _ in range(120)]
    return rows


def old_table_rows(price_type: type, seed: int = 5) -> list[tuple]:
    rnd = random.Random(seed)
    p = price_type
    rows = [(1, 2005, "a", 2, p(2)), (1, 2006, "a", 3, p(4)), (2, 2006, "b", 1, p(9)),
            (2, 2007, "b", 0, p(0)), (3, None, "c", 1, p(1)), (None, 2006, "d", 2, p(3))]
    rows += [(rnd.randint(1, 6), rnd.choice([None, 2004, 2005, 2006, 2007]), rnd.choice(["a", "b", "c", "d"]),
              rnd.randint(1, 4), price_type(rnd.randint(1, 9))) for _ in range(30)]
    return rows


def schema(price_type: type) -> str:
    return f"id int, year int, store string, quantity int, price {'double' if price_type is float else 'int'}"


# ----------------------------------------------------------------------------- cases

@dataclass(frozen=True)
class Case:
    title: str
    udf: str
    column: Callable  # (udf) -> Column computed per sales row
    late: Callable  # () -> Column
    sales: tuple[str, ...] | None  # expected predicate on sales, None: nothing pushed there
    old: tuple[str, ...] | None  # expected predicate before the collect, None: nothing pushed there
    price_type: type = float
    complete: bool = False  # sales rows without NULL quantity or price (the UDF multiplies them unguarded)


CASES = [
    Case("first matching old row of 2006: year = 2006 before the collect, the plain conjunct on sales",
         "flag_2006", lambda f: f("id"), lambda: (F.col("flag") == 1) & (F.col("year") >= 2008),
         ("year >= 2008",), ("year = 2006",)),
    Case("filter only on the UDF's flag: only the collected table gets a predicate",
         "flag_2006", lambda f: f("id"), lambda: F.col("flag") == 1, None, ("year = 2006",)),
    Case("the first old row of the id decides whatever its year: year = 2006 must not be pushed",
         "first_year", lambda f: f("id"), lambda: F.col("flag") == 2006, None, None),
    Case("a row of another year ends the loop first: year = 2006 must not be pushed",
         "ends_at_first_match", lambda f: f("id"), lambda: F.col("flag") == 1, None, None),
    Case("the result counts every old row: no predicate before the collect, the plain conjunct on sales",
         "count_all", lambda f: f("id"), lambda: (F.col("flag") > 3) & (F.col("year") >= 2008),
         ("year >= 2008",), None),
    Case("count of matching old rows: rows of other years are never counted, year = 2006 is pushed",
         "count_2006", lambda f: f("id"), lambda: F.col("flag") >= 1, None, ("year = 2006",)),
    Case("after two rows of 2006 another year ends the loop: right on 2 rows, wrong on 3, not pushed",
         "third_2006_row", lambda f: f("id"), lambda: F.col("flag") >= 2, None, None),
    Case("the paper's Figure 3, double prices: the relative revenue can be NaN through df_old's prices, so "
         "only year >= 2008 goes to sales; year = 2006 before the collect",
         "relative_rev", lambda f: f("store", "quantity", "price"),
         lambda: (F.col("year") >= 2008) & (F.col("flag") != 0), ("year >= 2008",), ("year = 2006",),
         complete=True),
    Case("the paper's Figure 3 with whole-unit prices: quantity * price != 0 joins year >= 2008 on sales",
         "relative_rev", lambda f: f("store", "quantity", "price"),
         lambda: (F.col("year") >= 2008) & (F.col("flag") != 0),
         ("year >= 2008 AND NOT (cast(quantity as long) * cast(price as long)) = cast(0 as double)",),
         ("year = 2006",), int, complete=True),
    Case("a branch on a double field of the old rows (Python's NaN): nothing is pushed",
         "cheap_old", lambda f: f("id"), lambda: F.col("flag") == 1, None, None),
    Case("the late filter calls the UDF again: nothing goes before the collect",
         "flag_2006", lambda f: f("id"), lambda: (F.col("flag") == 1) & (F.col("year") >= 2008),
         ("year >= 2008",), None),
]
# the last case's late filter reads the UDF itself (set up in the test)
_CALLS_AGAIN = CASES[-1].title


def _pipeline(case: Case, sales, rows: list, late_reads_udf: bool):
    fn, return_type = UDFS[case.udf]
    udf = F.udf(with_globals(fn, old_rows=rows), return_type)
    out = sales.withColumn("flag", case.column(udf))
    late = case.late()
    if late_reads_udf:
        late = late & (case.column(udf) == F.col("flag"))
    return out.filter(late), late


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_row_iter_case(spark, case: Case):
    rows = [r for r in sales_rows(case.price_type) if not case.complete or None not in r[3:]]
    sales = spark.createDataFrame(rows, schema(case.price_type))
    old = spark.createDataFrame(old_table_rows(case.price_type), schema(case.price_type))
    collected = old.select("id", "year", "store", "quantity", "price")
    original, late = _pipeline(case, sales, collected.collect(), case.title == _CALLS_AGAIN)
    fn, return_type = UDFS[case.udf]
    record = side_udf_record(case.udf, fn, (("old_rows", 1),), return_type)
    walk = run_engine_collected([sales], [collected], original, [record])

    on_sales = [str(p.predicate) for p in walk.pushed if p.source.origin == 0]
    on_old = [str(p.predicate) for p in walk.pushed if p.source.origin == 1]
    assert on_sales == list(case.sales or ()), walk.refusals
    assert on_old == list(case.old or ()), walk.refusals
    if not walk.pushed:
        return
    # a pushdown through a loop over another table is never a proof that F can go
    assert {p.kind for p in walk.pushed} == {SUPERSET}

    pushed = {p.source.origin: p.predicate for p in walk.pushed}
    rewritten_sales = sales.filter(to_column(pushed[0])) if 0 in pushed else sales
    rewritten_collected = collected.filter(to_column(pushed[1])) if 1 in pushed else collected
    rows = rewritten_collected.collect()
    rewritten, _ = _pipeline(case, rewritten_sales, rows, case.title == _CALLS_AGAIN)
    assert bag(rewritten) == bag(original)
    assert len(bag(original)) > 0, "the case's data should keep some rows, or the comparison proves little"
    if 1 in pushed:
        assert len(rows) < len(collected.collect()), "the predicate before the collect should drop rows"


def test_another_udf_reading_the_list_keeps_it_whole(spark):
    """A second UDF of the pipeline loops over the same list: a predicate before the collect would
    change its result too, so the collected table gets nothing (the walk says why)."""
    sales = spark.createDataFrame(sales_rows(float), schema(float))
    collected = spark.createDataFrame(old_table_rows(float), schema(float)).select("id", "year", "store")
    rows = collected.collect()
    flag = F.udf(with_globals(flag_2006, old_rows=rows), "int")
    other = F.udf(with_globals(first_year, old_rows=rows), "int")
    original = (sales.withColumn("first", other("id")).withColumn("flag", flag("id"))
                .filter((F.col("flag") == 1) & (F.col("first") > 0)))
    records = [side_udf_record("flag_2006", flag_2006, (("old_rows", 1),)),
               side_udf_record("first_year", first_year, (("old_rows", 1),))]
    walk = run_engine_collected([sales], [collected], original, records)
    assert [p for p in walk.pushed if p.source.origin == 1] == []
    assert any("a filter before its collect() would change" in r.reason for r in walk.refusals), walk.refusals
