"""GroupedMap (`groupBy(keys).applyInPandas(fn, schema)`) on real Spark: what pushes, what must not.

Each case is data: the pandas function, the grouping, the late filter and what
the engine must conclude. Every case that pushes runs the original and the
rewritten pipeline on the same rows (NULLs, NaN, duplicates included) and
compares the output bags; every pushing case has a neighbour that must not push.
"""

from __future__ import annotations

import inspect
import random
import textwrap
from dataclasses import dataclass
from typing import Callable

import pandas as pd
import pytest
from pyspark.sql import functions as F

from magicpush_lab.capture.trace import Udf
from magicpush_lab.capture.udfs import with_captured_constants
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import bag, rewritten_pipeline, run_engine, udf_record

SESSIONS = ("classic", "connect")
# what the Connect reader does not read yet (tests/engine/conftest.py: expected to fail there)
CONNECT_GAPS = {
    'test_timestamp_key_is_not_read_as_group_constant':
        'a timestamp literal is not read on Spark Connect yet: the late filter is a barrier (nothing moves, as the test wants)',
}


# ----------------------------------------------------------------------------- pandas functions

def keep_positive(pdf):
    pdf = pdf[pdf.v > 0]
    return pdf


def top_two(pdf):
    return pdf.sort_values("v", ascending=False).head(2)


def with_flag(pdf):
    pdf["is_a"] = pdf.store == "a"
    return pdf


def with_big_key(pdf):
    pdf["big"] = pdf.v > 500
    return pdf


def key_doubled(pdf):
    pdf["v2"] = pdf.v * 2
    return pdf


def totals(pdf):
    return pdf.groupby("store", as_index=False).agg(total=("amount", "sum"))


def doubled(pdf):
    pdf = pdf[pdf.amount > 0]
    pdf["twice"] = pdf.amount * 2
    return pdf.sort_values("amount")


def with_twice(pdf):
    pdf["twice"] = pdf.amount * 2
    return pdf


def summary(pdf):
    return pd.DataFrame({"store": [pdf.store.iloc[0]], "total": [pdf.amount.sum()]})


def share(pdf):
    return pdf.assign(total=pdf.amount.sum())


def shifted(pdf):
    pdf["w"] = pdf.v.apply(lambda x: x + 1)
    return pdf


def keep_ids(pdf):
    return pdf[pdf.id > 0]


last_two = lambda pdf: pdf.sort_values("v").head(2)  # noqa: E731 - a lambda body is read too
last_two.__name__ = "last_two"


def flag_big(pdf):
    pdf = pdf[pdf["v"] > 0]
    return pdf.assign(big=pdf["amount"] > 5)


def normalised(pdf):
    base = pdf.loc[pdf.v == 1, "amount"].values[0]
    pdf["rel"] = pdf.amount - base
    return pdf


def counted(pdf):
    return pd.DataFrame({"store": [pdf.store.iloc[0]], "n": [len(pdf)]})


def with_sub_max(pdf):
    pdf["m"] = pdf.groupby("v")["amount"].transform("max")
    return pdf


def above_mean(pdf):
    return pdf[pdf.v > pdf.v.mean()]


def sized(pdf):
    pdf["n"] = pdf.shape[0]
    return pdf


def distinct_v(pdf):
    pdf["u"] = pdf.v.nunique()
    return pdf


def filled(pdf):
    pdf["v"] = pdf["v"].fillna(0)
    pdf["amount"] = pdf["amount"].fillna(0.0)
    return pdf


def filled_by_max(pdf):
    pdf["v"] = pdf["v"].fillna(pdf["v"].max())
    return pdf


def last_store(pdf):
    return pd.DataFrame({"store": [pdf.store.iloc[-1]], "top": [pdf.amount.max()]})


def marked(pdf):
    pdf["mark"] = pdf.store.to_numpy()[0]
    return pdf


SIZES = pd.DataFrame({"store": ["a", "b", "c"], "size_class": ["S", "L", "L"]})


def with_size(pdf):
    return pdf.merge(SIZES, on="store", how="left")


# more rows than the tracer records: a merge with it is not read
MANY_SIZES = pd.DataFrame({"store": ["a", "b", "c"] + [f"z{i}" for i in range(300)],
                           "size_class": ["S", "L", "L"] + ["M"] * 300})


def with_many_sizes(pdf):
    return pdf.merge(MANY_SIZES, on="store", how="left")


def biggest_sized(pdf):
    return pdf.merge(SIZES, on="store").sort_values("v", ascending=False).head(1)


FUNCTIONS = {f.__name__: f for f in (keep_positive, top_two, with_flag, with_big_key, key_doubled, totals,
                                      doubled, with_twice, summary, share, shifted, keep_ids, last_two, flag_big,
                                      normalised, counted, with_sub_max, above_mean, with_size, biggest_sized,
                                      with_many_sizes, sized, distinct_v, last_store, marked, filled, filled_by_max)}

SALES = "v int, store string, amount double"
SCHEMAS = {
    "with_flag": SALES + ", is_a boolean",
    "with_big_key": SALES + ", big boolean",
    "key_doubled": SALES + ", v2 int",
    "totals": "store string, total double",
    "doubled": SALES + ", twice double",
    "with_twice": SALES + ", twice double",
    "summary": "store string, total double",
    "share": SALES + ", total double",
    "shifted": SALES + ", w double",
    "keep_ids": "id long, store string",
    "flag_big": SALES + ", big boolean",
    "normalised": SALES + ", rel double",
    "counted": "store string, n long",
    "with_sub_max": SALES + ", m double",
    "with_size": SALES + ", size_class string",
    "biggest_sized": SALES + ", size_class string",
    "with_many_sizes": SALES + ", size_class string",
    "sized": SALES + ", n long",
    "distinct_v": SALES + ", u long",
    "last_store": "store string, top double",
    "marked": SALES + ", mark string",
}


# ----------------------------------------------------------------------------- data

def sales_rows(seed: int = 11) -> list[tuple]:
    rnd = random.Random(seed)
    rows = [(None, "a", 1.5), (0, None, 0.0), (-3, "b", -2.0), (1000, "c", 10.0), (1000, "c", 10.0),
            (996, "a", None), (995, "b", 3.0), (1, "a", 2.0), (7, "a", float("nan")), (8, "b", float("nan")),
            (None, None, None), (600, "b", 6.0), (2 ** 31 - 1, "d", 1.0)]
    rows += [(rnd.choice([None, rnd.randint(-50, 1200)]), rnd.choice(["a", "b", "c", None]),
              rnd.choice([None, round(rnd.uniform(-10, 10), 2)])) for _ in range(150)]
    return rows


ID_ROWS = [(2 ** 53 + 1, "a"), (None, "a"), (5, "b"), (2 ** 60 + 3, "b"), (-1, "c"), (9, None)]

# every group has a row with v == 1 (the reference `normalised` reads; pandas raises without one)
REF_ROWS = [(1, "a", 2.0), (3, "a", 5.0), (3, "a", 5.0), (None, "a", float("nan")), (1, "b", float("nan")),
            (7, "b", 1.0), (1, "c", None), (4, "c", 3.5), (1, None, 1.0), (1000, None, None), (9, "d", 2.0),
            (1, "d", -1.0)]


# ----------------------------------------------------------------------------- cases

@dataclass(frozen=True)
class Case:
    title: str
    fn: str  # the pandas function
    late: Callable  # () -> Column
    expect: str | None  # EQUIVALENT, SUPERSET, or None when nothing may be pushed
    predicate: str | None = None
    keys: tuple[str, ...] = ("store",)
    table: str = "sales"


CASES = [
    # whole groups: the filter reads only what the body keeps constant per group
    Case("filter on the group key through a per-group filter body: pushed",
         "keep_positive", lambda: F.col("store") == "a", EQUIVALENT, "store = 'a'"),
    Case("filter on the group key through sort and head: pushed",
         "top_two", lambda: F.col("store") == "b", EQUIVALENT, "store = 'b'"),
    Case("filter on the group key through a pandas aggregation: pushed",
         "totals", lambda: F.col("store") == "c", EQUIVALENT, "store = 'c'"),
    Case("filter on the key through a one-row frame of the group's first key and a sum: pushed",
         "summary", lambda: F.col("store") == "a", EQUIVALENT, "store = 'a'"),
    Case("filter on the group key through a lambda body: pushed",
         "last_two", lambda: F.col("store") == "b", EQUIVALENT, "store = 'b'"),
    Case("filter on a per-row column through a lambda body with head(k): must not be pushed",
         "last_two", lambda: F.col("v") > 900, None),
    Case("filter on a column derived from the key: pushed as the key test pandas computes",
         "with_flag", lambda: F.col("is_a"), EQUIVALENT, "coalesce(store = 'a', False)"),
    Case("filter on a comparison of an integer key: pushed",
         "with_big_key", lambda: F.col("big"), EQUIVALENT, "coalesce(v > 500, False)", keys=("v",)),
    Case("key conjunct and per-row conjunct through head: the key part pushed, late filter kept",
         "top_two", lambda: (F.col("store") == "a") & (F.col("v") > 900), SUPERSET, "store = 'a'"),
    # row by row: a body without head or aggregate maps each row on its own
    Case("filter on a per-row column through a row-by-row body: pushed",
         "keep_positive", lambda: F.col("v") > 900, EQUIVALENT, "v > 900"),
    Case("filter on a per-row column through filter, assign and sort: pushed",
         "doubled", lambda: F.col("v") > 900, EQUIVALENT, "v > 900"),
    # must not push
    Case("filter on a per-row column through head(k): must not be pushed",
         "top_two", lambda: F.col("v") > 900, None),
    Case("filter on an aggregate the body computes: must not be pushed",
         "totals", lambda: F.col("total") > 5, None),
    Case("filter on the sum in a one-row frame: must not be pushed",
         "summary", lambda: F.col("total") > 5, None),
    Case("filter on a per-row column next to a broadcast aggregate: must not be pushed",
         "share", lambda: F.col("v") > 900, None),
    Case("filter on the key through a body that is not read (Series.apply): must not be pushed",
         "shifted", lambda: F.col("store") == "a", None),
    Case("filter on a double the body passes through: NaN comes back NULL, must not be pushed",
         "doubled", lambda: F.col("twice") > 4, None),
    # the same bodies with a double passed through: pandas hands NaN back as NULL, which the
    # pushed predicate reads as NULL too (their neighbours that must not push: head, aggregates)
    Case("filter on a double a row-by-row body passes through: pushed reading NaN as NULL",
         "keep_positive", lambda: F.col("amount") < 3.0, EQUIVALENT,
         "CASE WHEN NOT isnan(amount) THEN amount ELSE NULL END < 3.0"),
    Case("the key's flag and a double passed through: pushed reading NaN as NULL",
         "with_flag", lambda: F.col("is_a") & (F.col("amount") > 5.0), EQUIVALENT),
    Case("the integer key's flag and a double passed through: pushed reading NaN as NULL",
         "with_big_key", lambda: F.col("big") & (F.col("amount") > 5.0), EQUIVALENT, keys=("v",)),
    Case("IS NULL on a double computed in the body: NaN input comes back NULL, must not be pushed",
         "with_twice", lambda: F.col("twice").isNull(), None),
    Case("filter on integer key arithmetic that numpy may wrap: must not be pushed",
         "key_doubled", lambda: F.col("v2") > 10, None, keys=("v",)),
    Case("filter through a row-by-row body that receives a long column: must not be pushed",
         "keep_ids", lambda: F.col("id") > 6, None, table="ids"),
    # pandas compares a double with NaN as missing: the predicate reads NaN as NULL
    Case("a flag from a comparison of a double, NaN missing to pandas: pushed reading NaN as NULL",
         "flag_big", lambda: F.col("big"), EQUIVALENT,
         "coalesce(CASE WHEN NOT isnan(amount) THEN amount ELSE NULL END > 5, False)"),
    Case("the same flag and its double column: pushed as well", "flag_big",
         lambda: F.col("big") & (F.col("amount") < 9.5), EQUIVALENT),
    # scalars of the group: the body is read, filters on the keys push, the rest must not
    Case("filter on the key through a body normalising by a reference row: pushed", "normalised",
         lambda: F.col("store") == "a", EQUIVALENT, "store = 'a'", table="ref"),
    Case("filter on the normalised value: must not be pushed", "normalised", lambda: F.col("rel") > 0, None,
         table="ref"),
    Case("filter on the key through a one-row frame with len(pdf): pushed", "counted",
         lambda: F.col("store") == "b", EQUIVALENT, "store = 'b'"),
    Case("filter on the group's row count: must not be pushed", "counted", lambda: F.col("n") > 2, None),
    Case("filter on the key through groupby().transform: pushed", "with_sub_max",
         lambda: F.col("store") == "c", EQUIVALENT, "store = 'c'"),
    Case("filter on a per-row column through groupby().transform: must not be pushed", "with_sub_max",
         lambda: F.col("v") > 900, None),
    Case("filter on the key through a mask against the group's mean: pushed", "above_mean",
         lambda: F.col("store") == "a", EQUIVALENT, "store = 'a'"),
    Case("filter on a per-row column through a mask against the group's mean: must not be pushed", "above_mean",
         lambda: F.col("v") > 900, None),
    # fillna with a literal is a coalesce; pandas fills NaN as well as None
    Case("filter on an integer the body fills with a literal: pushed as the fill reads",
         "filled", lambda: F.col("v") < 5, EQUIVALENT),
    Case("filter on a double the body fills with a literal: rows with NaN are filled too, pushed",
         "filled", lambda: F.col("amount") < 1.0, EQUIVALENT),
    Case("filter on a column filled with the group's max: must not be pushed",
         "filled_by_max", lambda: F.col("v") < 5, None),
    Case("filter on the key through pdf.shape[0]: pushed", "sized", lambda: F.col("store") == "b", EQUIVALENT,
         "store = 'b'"),
    Case("filter on pdf.shape[0], the group's size: must not be pushed", "sized", lambda: F.col("n") > 40, None),
    Case("filter on the key through nunique(): pushed", "distinct_v", lambda: F.col("store") == "a", EQUIVALENT,
         "store = 'a'"),
    Case("filter on a value next to nunique(): must not be pushed", "distinct_v", lambda: F.col("v") > 900, None),
    Case("filter on the group's nunique(): must not be pushed", "distinct_v", lambda: F.col("u") > 30, None),
    Case("filter on the key taken with iloc[-1]: pushed", "last_store", lambda: F.col("store") == "c", EQUIVALENT,
         "store = 'c'"),
    Case("filter on the group's max beside iloc[-1]: must not be pushed", "last_store",
         lambda: F.col("top") > 5, None),
    Case("filter on the key's to_numpy()[0]: pushed as the key", "marked", lambda: F.col("mark") == "a",
         EQUIVALENT),
    Case("filter on a value next to to_numpy()[0]: must not be pushed", "marked", lambda: F.col("v") > 900, None),
    Case("filter on a column looked up by the key in a recorded frame: pushed as the keys", "with_size",
         lambda: F.col("size_class") == "L", EQUIVALENT),
    Case("filter on a column looked up in a frame too large to record: must not be pushed", "with_many_sizes",
         lambda: F.col("size_class") == "L", None),
    Case("filter on a per-row column through a merge and head: must not be pushed", "biggest_sized",
         lambda: F.col("v") > 900, None),
]


def _source(spark, case: Case):
    if case.table == "ids":
        return spark.createDataFrame(ID_ROWS, "id long, store string")
    if case.table == "ref":
        return spark.createDataFrame(REF_ROWS, SALES)
    return spark.createDataFrame(sales_rows(), SALES)


def _body(case: Case) -> Callable:
    fn = FUNCTIONS[case.fn]
    schema = SCHEMAS.get(case.fn, SALES)
    return lambda s: s[0].groupBy(*case.keys).applyInPandas(fn, schema)


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_grouped_map_case(spark, case: Case):
    sources = [_source(spark, case)]
    body = _body(case)
    original = body(sources).filter(case.late())
    walk = run_engine(sources, original, [_recorded(case.fn)])

    if case.expect is None:
        assert walk.pushed == [], f"must not push, pushed {[str(p.predicate) for p in walk.pushed]}"
        assert walk.refusals, "a refusal must say why nothing was pushed"
        return
    assert walk.pushed, f"expected a pushdown; refusals: {walk.refusals}"
    assert [p.kind for p in walk.pushed] == [case.expect]
    if case.predicate is not None:
        assert [str(p.predicate) for p in walk.pushed] == [case.predicate]
    assert all(p.may_hide_errors for p in walk.pushed), "pandas may raise on what the rewrite drops"
    assert any(s.category == "SUBPIPELINE" for s in walk.pushed[0].steps)

    rewritten = rewritten_pipeline(walk, sources, body, case.late, case.expect == SUPERSET)
    assert bag(rewritten) == bag(original)
    assert len(bag(original)) > 0, "the case's data should keep some rows, or the comparison proves little"


def _recorded(name: str) -> Udf:
    """The function as the tracer records it: with the frames and modules it reads in front."""
    fn = FUNCTIONS[name]
    source = textwrap.dedent(inspect.getsource(fn))
    if name == "last_two":
        source = "last_two = lambda pdf: pdf.sort_values(\"v\").head(2)"
    return Udf(name, with_captured_constants(source, fn), True, "struct")


# ----------------------------------------------------------------------------- why the refusals matter

@dataclass(frozen=True)
class Naive:
    title: str
    fn: str
    rows: list
    schema: str
    late: Callable  # () -> Column: the late filter
    naive: Callable  # () -> Column: the late filter read through the body as if pandas were Spark


NAIVE = [
    Naive("a double read as NaN by pandas: the naive predicate drops a row the original keeps",
          "with_twice", [(1, "a", float("nan")), (2, "a", None), (3, "a", 1.0)], SALES,
          lambda: F.col("twice").isNull(), lambda: (F.col("amount") * 2).isNull()),
    Naive("a long with a missing value rounds in float64: the naive predicate changes the value",
          "keep_ids", [(2 ** 53 + 1, "a"), (None, "a"), (5, "b")], "id long, store string",
          lambda: F.col("id") > 6, lambda: F.col("id") > 6),
]


@pytest.mark.parametrize("case", NAIVE, ids=[c.title for c in NAIVE])
def test_refused_pushdown_would_change_the_output(spark, case: Naive):
    """The refusals above are not caution only: on these rows the naive rewrite differs."""
    source = spark.createDataFrame(case.rows, case.schema)
    schema = SCHEMAS.get(case.fn, SALES)
    original = source.groupBy("store").applyInPandas(FUNCTIONS[case.fn], schema).filter(case.late())
    walk = run_engine([source], original, [udf_record(case.fn, FUNCTIONS[case.fn])])
    assert walk.pushed == []
    naive = source.filter(case.naive()).groupBy("store").applyInPandas(FUNCTIONS[case.fn], schema)
    assert bag(naive) != bag(original)


def test_timestamp_key_is_not_read_as_group_constant(spark):
    """A timestamp key goes through pandas in local time: a filter on it is not pushed."""
    import datetime as dt

    source = spark.createDataFrame([(dt.datetime(2024, 3, 1, 12), 1), (dt.datetime(2024, 3, 2, 12), 2)],
                                   "ts timestamp, n int")
    day = dt.datetime(2024, 3, 1, 12)
    original = source.groupBy("ts").applyInPandas(pass_through, "ts timestamp, n int").filter(F.col("ts") == day)
    walk = run_engine([source], original, [udf_record("pass_through", pass_through)])
    assert walk.pushed == [] and walk.refusals


def pass_through(pdf):
    return pdf
