"""dropDuplicates on a subset of the columns, on real Spark plans.

Spark keeps one row of each group of equal key values, an arbitrary one (it rewrites the
operator into a GroupBy on the keys whose other columns are `first`). A filter that reads
only the key columns keeps or drops every row of a group together, so it moves below (the
whole-groups route, verify/aggregate.py); a filter on any other column would change which
row is kept, and must not. Keys compare as Spark groups them: NULLs together, every NaN
together, -0.0 with 0.0 (the key comes out as 0.0).

Which row of a group comes out is Spark's choice, in the original as in the rewrite, so a
result is compared as what it can be: the same groups, each represented by one row of the
group (that passes the late filter) in the input.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import rewritten_pipeline, run_engine

SESSIONS = ("classic", "connect")

SCHEMA = "id int, dept int, score double, tag string"
NAN = float("nan")


def rows() -> list[tuple]:
    rnd = random.Random(23)
    base = [(1, 3, 10.0, "x"), (1, 3, 10.0, "x"), (2, 3, None, "y"), (2, 4, 5.0, None), (None, 4, 5.0, "x"),
            (None, None, -0.0, "y"), (3, None, 0.0, "x"), (4, 5, NAN, "z"), (5, 5, NAN, None), (6, 6, float("inf"), "x")]
    return base + [(rnd.choice([None, *range(6)]), rnd.choice([None, 3, 4, 5]),
                    rnd.choice([None, NAN, 0.0, -0.0, float(rnd.randint(0, 20))]), rnd.choice([None, "x", "y"]))
                   for _ in range(60)]


def canon(value):
    """NaN as one value and -0.0 as 0.0, as Spark's grouping sees them."""
    if isinstance(value, float):
        return "NaN" if value != value else value + 0.0
    return value


@dataclass(frozen=True)
class Case:
    name: str
    keys: tuple[str, ...]
    late: Callable
    expect: str | None
    predicate: str | None = None
    made: Callable | None = None  # a column added before dropDuplicates: df -> df


def body(keys, made=None):
    return lambda s: (made(s[0]) if made else s[0]).dropDuplicates(list(keys))


def tag_length(df):
    return df.withColumn("n", F.length("tag"))


def tag_length_plus_id(df):
    return df.withColumn("n", F.length("tag") + F.col("id"))


CASES = [
    Case("a filter on the key column: whole groups, equivalent", ("dept",), lambda: F.col("dept") == 3,
         EQUIVALENT, "dept = 3"),
    Case("a filter on the key column that keeps the NULL key's group", ("dept",),
         lambda: F.col("dept").isNull() | (F.col("dept") > 4), EQUIVALENT, "dept IS NULL OR dept > 4"),
    Case("a filter on another column must not move: it would change which row is kept", ("dept",),
         lambda: F.col("score") > 6, None),
    Case("a filter on two of the key columns", ("id", "dept"), lambda: (F.col("id") > 1) & (F.col("dept") != 4),
         EQUIVALENT, "id > 1 AND NOT dept = 4"),
    Case("two key columns: a disjunction with another column must not move", ("id", "dept"),
         lambda: (F.col("id") > 1) | (F.col("score") > 6), None),
    Case("a filter on one key column and another column: the key part, late filter kept", ("dept", "tag"),
         lambda: (F.col("tag") == "x") & (F.col("score") < 8), SUPERSET, "tag = 'x'"),
    Case("keys dept and tag: a filter on the other column alone must not move", ("dept", "tag"),
         lambda: F.col("score") < 8, None),
    Case("a disjunction across a key and another column must not move", ("dept",),
         lambda: (F.col("dept") == 3) | (F.col("tag") == "z"), None),
    Case("a column computed from the key alone is the same on every row of a group: a filter on it moves below",
         ("tag",), lambda: F.col("n") >= 1, EQUIVALENT, "length(tag) >= 1", made=tag_length),
    Case("a column computed from the key and another column must not move: it differs within a group",
         ("tag",), lambda: F.col("n") >= 3, None, made=tag_length_plus_id),
    Case("a double key with NaN, -0.0 and 0.0: a comparison on it moves below", ("score",),
         lambda: F.col("score") >= 0.0, EQUIVALENT, "score >= 0.0"),
    Case("a double key: its string tells -0.0 from 0.0, which share a group, and must not move", ("score",),
         lambda: F.col("score").cast("string") == "0.0", None),
]


def possible(df, source, keys, late) -> None:
    """Every output row is a row of the source that passes the late filter, one per group."""
    cols = source.columns
    allowed = Counter(tuple(canon(v) for v in r) for r in source.collect())
    out = [tuple(canon(v) for v in r) for r in df.select(*cols).collect()]
    assert all(r in allowed for r in out), "an output row that is no input row"
    groups = [tuple(r[cols.index(k)] for k in keys) for r in out]
    assert len(groups) == len(set(groups)), "two rows for one group"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_deduplicate_case(spark, case: Case):
    sources = [spark.createDataFrame(rows(), SCHEMA)]
    original = body(case.keys, case.made)(sources).filter(case.late())
    walk = run_engine(sources, original)
    if case.expect is None:
        assert walk.pushed == [], f"must not push, pushed {[str(p.predicate) for p in walk.pushed]}"
        assert walk.refusals
        return
    assert walk.pushed, f"expected a pushdown; refusals: {walk.refusals}"
    assert [(p.kind, str(p.predicate)) for p in walk.pushed] == [(case.expect, case.predicate)]
    rewritten = rewritten_pipeline(walk, sources, body(case.keys, case.made), case.late, case.expect == SUPERSET)
    # the same groups, each represented by a row of the input that passes the late filter
    key_bag = lambda df: Counter(tuple(canon(v) for v in r) for r in df.select(*case.keys).collect())  # noqa: E731
    assert key_bag(rewritten) == key_bag(original)
    assert key_bag(original), "the data should keep some groups, or the comparison proves little"
    made = case.made or (lambda df: df)
    possible(rewritten, made(sources[0]).filter(case.late()), case.keys, case.late)
    possible(original, made(sources[0]), case.keys, case.late)


def test_a_filter_on_another_column_is_refused_by_name(spark):
    """The operator's verifier names the column and the keys."""
    from magicpush_lab.ir import plan as P
    from magicpush_lab.pushdown.operators import check
    from tests.engine.harness import translate_pipeline

    sources = [spark.createDataFrame(rows(), SCHEMA)]
    plan = translate_pipeline(sources, body(("dept",))(sources).filter(F.col("score") > 6))
    late = next(n for n in P.nodes(plan) if isinstance(n, P.Filter))
    dedup = next(n for n in P.nodes(plan) if isinstance(n, P.Aggregate))
    assert P.operator_name(dedup) == "Deduplicate"
    verdict = check(dedup, late.condition, (late.condition,), EQUIVALENT)
    assert not verdict.proved
    assert verdict.reason == ("dropDuplicates on [dept] keeps one arbitrary row of each group: a filter on score, "
                              "not one of those columns, below it would change which row that is")



def word_count(text):
    return len(text.split(" "))


WORDS_SCHEMA = "id int, dept int, text string"
WORDS = [(1, 3, "a b c"), (1, 3, "a b c"), (2, 3, "a b c"), (3, None, "a  b"), (4, 4, "one"), (5, 4, None),
         (6, None, None), (7, 5, " lead and trail "), (8, 5, "a b c"), (9, 6, ""), (10, 6, "a b c d")]


def counted_then_deduplicated(keys_first: tuple[str, ...], keys_second: tuple[str, ...]):
    """Words counted by a UDF that raises on None (rows without text go first), two
    dropDuplicates with a dropna on dept between them, as a notebook cleans scraped articles;
    the columns kept are the last keys and the count (one value per group)."""
    wc = F.udf(word_count, "int")
    return lambda s: (s[0].filter(F.col("text").isNotNull()).withColumn("n", wc("text"))
                      .dropDuplicates(list(keys_first)).dropna(subset=["dept"]).dropDuplicates(list(keys_second))
                      .select(*keys_second, "n"))


@pytest.mark.parametrize("keys_first, keys_second, moves", [
    (("text", "dept"), ("text",), True),
    (("dept",), ("dept",), False),
], ids=["a count of the key's words passes both dropDuplicates and the dropna between them",
        "must not move: the counted text is not a key, the kept row's count is arbitrary"])
def test_a_udf_column_of_the_keys_crosses_deduplications_as_the_input_column(spark, keys_first, keys_second, moves):
    """Below dropDuplicates the filter reads the input's own column (the same value on every row
    of a group), not the UDF called again: that call would raise below the dropna on rows the
    dropna removes. At the UDF's projection the count is written as `size(split(text, ' ', -1))`."""
    import inspect

    from magicpush_lab.capture.trace import Udf
    from tests.engine.harness import check_pushdown, run_engine_with_notes

    sources = [spark.createDataFrame(WORDS, WORDS_SCHEMA)]
    pipeline = counted_then_deduplicated(keys_first, keys_second)
    late = lambda: F.col("n") >= 3  # noqa: E731
    original = pipeline(sources).filter(late())
    record = Udf("word_count", inspect.getsource(word_count), True, "int")
    walk, _ = run_engine_with_notes(sources, [pipeline(sources)], original, [record])
    if not moves:
        assert walk.pushed == [], [str(p.predicate) for p in walk.pushed]
        return
    assert len(walk.pushed) == 1, walk.refusals
    assert "size(split(text, ' ', -1)) >= 3" in str(walk.pushed[0].predicate), str(walk.pushed[0].predicate)
    check_pushdown(walk, sources, pipeline, late, walk.pushed[0].kind)
