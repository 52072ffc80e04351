"""GroupBy's second route (verify/aggregate_halves.py): the rows G keeps and those it removes,
for the aggregations users write that the paper's pre-condition (2) refuses, and the candidate
that proposes them (search/aggregate_reads.py).

The verifier cases are data: the aggregates, the late filter, the predicate G and the kind,
and whether the route proves it. Each proved case has neighbours that must not be proved:
G one row too strong, a group the late filter keeps with no row G keeps, an aggregate that
reads every row. On Spark, the candidate goes through whole pipelines of the fold families'
shapes; each rewrite runs against the original on rows with NULLs, duplicates and NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pipeline import optimize_trace
from magicpush_lab.search.aggregate_reads import rows_kept_groups_read
from magicpush_lab.verify import aggregate, aggregate_halves
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET
from tests.cells import rewritten, traced

from .harness import bag

K = X.Col("k", 1, "int")
A, B = X.Col("a", 2, "int"), X.Col("b", 3, "int")
D = X.Col("d", 4, "double")
O1, O2, O3 = X.Col("o1", 11, "long"), X.Col("o2", 12, "long"), X.Col("o3", 13, "long")
SOURCE = P.Source("t", (K, A, B, D))


def lit(v: object) -> X.Lit:
    return X.Lit(v, "double" if isinstance(v, float) else "int")


def lt(e: X.Expr, v: object) -> X.Expr:
    return X.Cmp("<", e, lit(v))


def gt(e: X.Expr, v: object) -> X.Expr:
    return X.Cmp(">", e, lit(v))


def eq(e: X.Expr, v: object) -> X.Expr:
    return X.Cmp("=", e, lit(v))


def when(c: X.Expr, v: X.Expr, default: X.Expr | None = None) -> X.Expr:
    return X.Case(((c, v),), default if default is not None else X.Lit(None, "null"))


def grouped(*aggs: X.Agg) -> P.Aggregate:
    outs = (O1, O2, O3)
    return P.Aggregate(SOURCE, (K,), ((K, K), *((outs[i], a) for i, a in enumerate(aggs))))


@dataclass(frozen=True)
class Case:
    title: str
    op: P.Aggregate
    late: X.Expr
    g: X.Expr
    kind: str
    proved: bool


MIN_A, MIN_B = X.Agg("min", A, "int"), X.Agg("min", B, "int")
MAX_A = X.Agg("max", A, "int")
SUM_A, COUNT_A, COUNT_ALL = X.Agg("sum", A, "long"), X.Agg("count", A, "long"), X.Agg("count", None, "long")
COUNT_B4 = X.Agg("count", when(eq(B, 4), lit(1)), "long")
AVG_D = X.Agg("avg", D, "double")
HAS_A, HAS_B = X.Agg("max", gt(A, 50), "boolean"), X.Agg("max", lt(B, 30), "boolean")
H1, H2 = X.Col("h1", 21, "boolean"), X.Col("h2", 22, "boolean")


def flags(first: X.Agg, second: X.Agg) -> P.Aggregate:
    return P.Aggregate(SOURCE, (K,), ((K, K), (H1, first), (H2, second)))


LATEST_A = X.Agg("max_by", A, "int", by=when(gt(B, 50), D))  # a of the row with the largest d among b > 50
FIRST_A = X.Agg("min_by", A, "int", by=B)

# min/max of struct(a, d): each field is min_by/max_by of it ordered by a, NULL first
# (translate/spark_plan._struct_extremum_outputs)
BY_A = X.Case(((X.IsNull(A), X.Lit(-(1 << 31), "int")),), A)
FIRST_OF, LAST_OF = (lambda x: X.Agg("min_by", x, X.dtype_of(x), by=BY_A)), (lambda x: X.Agg("max_by", x, X.dtype_of(x), by=BY_A))


def struct_ends(*aggs: X.Agg) -> P.Aggregate:
    outs = (O1, O2, O3, X.Col("o4", 14, "double"))
    return P.Aggregate(SOURCE, (K,), ((K, K), *((outs[i], a) for i, a in enumerate(aggs))))


ENDS = struct_ends(FIRST_OF(A), LAST_OF(A), FIRST_OF(D), LAST_OF(D))
O4 = X.Col("o4", 14, "double")
A_OUTSIDE = X.or_(lt(A, 20), X.IsNull(A), gt(A, 50))

# the first two items of sort_array(collect_list(a), false): max(a) and the second largest
TOP2 = P.Aggregate(SOURCE, (K,), ((K, K), (O1, MAX_A), (O2, X.Agg("second_max", A, "int"))))

CASES = [
    # the two best values of a group both at least 50: a value under 50 is neither of them
    Case("top two at least 50: the rows under 50 go", TOP2, X.Cmp(">=", O2, lit(50)),
         X.Cmp(">=", A, lit(50)), SUPERSET, True),
    Case("top two: the best at least 50 alone, the second changes when a low row goes, must not", TOP2,
         X.Cmp(">=", O1, lit(50)), X.Cmp(">=", A, lit(50)), SUPERSET, False),
    Case("top two at least 50: not an equivalence (a group may keep one such row)", TOP2,
         X.Cmp(">=", O2, lit(50)), X.Cmp(">=", A, lit(50)), EQUIVALENT, False),
    # the fields of a struct's min and max: a first a under 20 and a last a over 50, with a
    # condition on each end's d; a row with a from 20 to 50 is neither end of a kept group
    Case("struct ends: first a under 20, last a over 50: the rows in between go", ENDS,
         X.and_(lt(O1, 20), gt(O2, 50), X.Not(eq(O3, 0.0)), X.Not(eq(O4, 0.0))), A_OUTSIDE, SUPERSET, True),
    Case("struct ends: without the NULL a, a group whose first row has none would pass, must not", ENDS,
         X.and_(lt(O1, 20), gt(O2, 50), X.Not(eq(O3, 0.0)), X.Not(eq(O4, 0.0))), X.or_(lt(A, 20), gt(A, 50)),
         SUPERSET, False),
    Case("struct ends: a bound on the first only, the last row may go and its d changes, must not", ENDS,
         X.and_(lt(O1, 20), X.Not(eq(O4, 0.0))), X.or_(lt(A, 20), X.IsNull(A)), SUPERSET, False),
    # two minima, each under 50: a row with both at 50 or more is neither minimum of a kept group
    Case("min and min under 50: a row low in one of them stays", grouped(MIN_A, MIN_B),
         X.and_(lt(O1, 50), lt(O2, 50)), X.or_(lt(A, 50), lt(B, 50)), SUPERSET, True),
    Case("min and min under 50: G on a alone drops a group's low b, must not", grouped(MIN_A, MIN_B),
         X.and_(lt(O1, 50), lt(O2, 50)), lt(A, 50), SUPERSET, False),
    Case("min and min under 50: not an equivalence (a group can keep a low a and no low b)", grouped(MIN_A, MIN_B),
         X.and_(lt(O1, 50), lt(O2, 50)), X.or_(lt(A, 50), lt(B, 50)), EQUIVALENT, False),
    # min and max of one column (pre-condition (2) has no witness for them)
    Case("min at most 5 and max at least 57: the readings in between go", grouped(MIN_A, MAX_A),
         X.and_(X.Cmp("<=", O1, lit(5)), X.Cmp(">=", O2, lit(57))),
         X.or_(X.Cmp("<=", A, lit(5)), X.Cmp(">=", A, lit(57))), SUPERSET, True),
    Case("min 3 or 5: keeping only 3s and 5s lets a group whose minimum is 4 show 5, must not",
         grouped(MIN_A), X.or_(X.Cmp("<=", O1, lit(3)), eq(O1, 5)),
         X.or_(X.Cmp("<=", A, lit(3)), eq(A, 5)), SUPERSET, False),
    Case("min 3 or 5: every value up to 5 stays", grouped(MIN_A), X.or_(X.Cmp("<=", O1, lit(3)), eq(O1, 5)),
         X.Cmp("<=", A, lit(5)), SUPERSET, True),
    # a sum beside a count of the same column: NULLs add to neither
    Case("sum and count of a, their NULLs go", grouped(SUM_A, COUNT_A),
         X.and_(X.Cmp(">=", O1, lit(100)), gt(O2, 2)), X.IsNotNull(A), SUPERSET, True),
    Case("sum and count of a: dropping the zeros changes the count, must not", grouped(SUM_A, COUNT_A),
         X.and_(X.Cmp(">=", O1, lit(100)), gt(O2, 2)), X.Cmp("!=", A, lit(0)), SUPERSET, False),
    Case("a sum over 100: rows adding 0 go", grouped(SUM_A), gt(O1, 100), X.Cmp("!=", A, lit(0)), SUPERSET, True),
    Case("a sum over 100: dropping the negative rows raises kept sums, must not", grouped(SUM_A), gt(O1, 100),
         gt(A, 0), SUPERSET, False),
    Case("a sum of 0 is kept: a group of only zeros must stay, must not", grouped(SUM_A),
         X.Cmp(">=", O1, lit(0)), X.Cmp("!=", A, lit(0)), SUPERSET, False),
    # counts of a condition
    Case("a count of b = 4 at least 1: exactly the b = 4 rows", grouped(COUNT_B4), X.Cmp(">=", O1, lit(1)),
         eq(B, 4), EQUIVALENT, True),
    Case("a count of b = 4 under 5 keeps groups with none: must not", grouped(COUNT_B4), lt(O1, 5),
         eq(B, 4), SUPERSET, False),
    Case("count(*) beside: every row counts, must not", grouped(MIN_A, COUNT_ALL),
         X.and_(lt(O1, 50), gt(O2, 0)), lt(A, 50), SUPERSET, False),
    # an average: only rows whose value is NULL may go
    Case("avg of d over 2.5: NULLs go", grouped(AVG_D), gt(O1, 2.5), X.IsNotNull(D), SUPERSET, True),
    Case("avg of d over 2.5: the low values move the average, must not", grouped(AVG_D), gt(O1, 2.5),
         gt(D, 2.5), SUPERSET, False),
    # bool_or flags, one needed TRUE through a cast to int, the other only not NULL: a row on which
    # no flag's condition is TRUE changes the other flag only from NULL to FALSE, which the kept
    # group's row with a > 50 already decides when both flags read a (not when the other reads b)
    Case("a flag cast to 1 and another of a column that may be NULL: a group's b may be NULL on the rows "
         "kept, must not", flags(HAS_A, HAS_B),
         X.and_(X.Cmp(">=", X.Cast(H1, "int"), lit(1)), X.IsNotNull(H2)), X.or_(gt(A, 50), lt(B, 30)),
         SUPERSET, False),
    Case("a flag cast to 1 and another not NULL, its column never NULL beside: the rows of either condition",
         flags(HAS_A, X.Agg("max", lt(A, 30), "boolean")),
         X.and_(X.Cmp(">=", X.Cast(H1, "int"), lit(1)), X.IsNotNull(H2)), X.or_(gt(A, 50), lt(A, 30)),
         SUPERSET, True),
    Case("a flag cast to 0 or more: no flag needs TRUE, the rows of no condition count, must not",
         flags(HAS_A, X.Agg("max", lt(A, 30), "boolean")),
         X.and_(X.Cmp(">=", X.Cast(H1, "int"), lit(0)), X.IsNotNull(H2)), X.or_(gt(A, 50), lt(A, 30)),
         SUPERSET, False),
    # max_by/min_by: a row without an ordering value is never picked
    Case("max_by over a when: the rows with an ordering value stay", grouped(LATEST_A), gt(O1, 10),
         X.and_(gt(B, 50), X.IsNotNull(D)), SUPERSET, True),
    Case("max_by over a when: not an equivalence (the picked a may be 10 or less)", grouped(LATEST_A), gt(O1, 10),
         X.and_(gt(B, 50), X.IsNotNull(D)), EQUIVALENT, False),
    Case("max_by over a when, picked a over 10: dropping the rows with a low a changes the pick, must not",
         grouped(LATEST_A), gt(O1, 10), gt(A, 10), SUPERSET, False),
    Case("min_by of a by b: a bound on b drops the group's first row, must not", grouped(FIRST_A), lt(O1, 5),
         lt(B, 50), SUPERSET, False),
    Case("min_by of a by b: the rows with a b stay", grouped(FIRST_A), lt(O1, 5), X.IsNotNull(B), SUPERSET, True),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_the_halves_route_proves_exactly_the_sound_predicates(case: Case):
    verdict = aggregate_halves.verify(case.op, case.late, case.g, case.kind)
    assert verdict is not None
    assert verdict.proved == case.proved, verdict.reason
    if not case.proved and verdict.counterexample:
        rows = verdict.counterexample["input 1"]
        assert rows, verdict.counterexample


@pytest.mark.parametrize("case", [c for c in CASES if not c.proved], ids=[c.title for c in CASES if not c.proved])
def test_no_route_of_the_groupby_verifier_proves_an_unsound_predicate(case: Case):
    assert not aggregate.verify(case.op, case.late, (case.g,), case.kind).proved


def late_udf(raises_at: int | None) -> X.Expr:
    """A Python UDF late filter on both minima, raising (integer division by 0) on one value
    of the first when `raises_at` is given."""
    guard = f"    if a == {raises_at}:\n        return 1 // 0 > 0\n" if raises_at is not None else ""
    source = f"def both_low(a, b):\n    if a is None or b is None:\n        return False\n{guard}" \
             "    return a < 50 and b < 50\n"
    return X.PyUdf("both_low", (O1, O2), "boolean", source)


@pytest.mark.parametrize("raises_at,proved", [(None, True), (70, False)], ids=["no error", "raises on 70"])
def test_a_late_filter_raising_on_a_kept_half_the_original_never_sees_is_refused(raises_at, proved):
    # a group with a = 60 (b = 90) and a = 70 (b = 10): the original's minimum of a is 60, the
    # rewrite keeps only the second row (b < 50) and computes the late filter on 70
    op = grouped(MIN_A, MIN_B)
    verdict = aggregate_halves.verify(op, late_udf(raises_at), X.or_(lt(A, 50), lt(B, 50)), SUPERSET)
    assert verdict is not None and verdict.proved == proved, verdict.reason


# (aggregates, late filter): the candidate the search proposes
CANDIDATES = [
    ((MIN_A, MIN_B), X.and_(lt(O1, 50), lt(O2, 50)), "a < 50 OR b < 50"),
    ((MIN_A, MAX_A), X.and_(X.or_(X.Cmp("<=", O1, lit(3)), eq(O1, 5)), X.or_(eq(O2, 57), X.Cmp(">=", O2, lit(59)))),
     "a <= 5 OR a >= 57"),
    ((SUM_A, COUNT_A), gt(O1, 100), None),  # only the rows adding NULL or 0: not proposed
    ((SUM_A, MIN_B), X.and_(gt(O1, 100), lt(O2, 50)), "a != 0 OR b < 50"),
    ((COUNT_B4,), X.Cmp(">=", O1, lit(1)), "b = 4"),
    ((X.Agg("max", when(eq(B, 4), lit(1), lit(0)), "int"),), eq(O1, 1), "b = 4"),
    ((X.Agg("max", when(eq(B, 4), lit(1), lit(0)), "int"),), gt(O1, 10), "False"),
    ((MIN_A, COUNT_ALL), lt(O1, 50), None),  # count(*) reads every row
    ((FIRST_OF(A), LAST_OF(A), FIRST_OF(D)), X.and_(lt(O1, 20), gt(O2, 50), X.Not(eq(O3, 0.0))),
     "a < 20 OR a IS NULL OR a > 50"),  # a struct's ends: bounded by the ordering field's own
    ((FIRST_OF(A), FIRST_OF(D)), X.Not(eq(O2, 0.0)), None),  # no bound on the first a: any row may be first
    ((MAX_A, X.Agg("second_max", A, "int")), X.and_(X.Cmp(">=", O1, lit(40)), X.Cmp(">=", O2, lit(50))),
     "a >= 50"),  # the second's bound bounds the best too
]


@pytest.mark.parametrize("aggs,late,expected", CANDIDATES, ids=[str(c[1]) for c in CANDIDATES])
def test_the_candidate_is_the_rows_some_aggregate_of_a_kept_group_reads(aggs, late, expected):
    found = rows_kept_groups_read(grouped(*aggs), late)
    assert (None if found is None else str(found)) == expected


# ----------------------------------------------------------------------------- on Spark

SETUP = (
    "from pyspark.sql import functions as F\n"
    "t = spark.createDataFrame([(1, 10, 60, 1.0), (1, 70, 40, 2.0), (1, 70, 40, 2.0), (2, 55, 80, None), "
    "(2, None, 20, float('nan')), (3, 30, None, 4.0), (3, 0, 51, 0.0), (4, 90, 95, 5.0), (4, 4, 50, None), "
    "(5, None, None, None), (6, 5, 5, 3.0), (6, 60, 70, 3.5)], 'k int, a int, b int, d double')\n"
)


TOP_TWO = ("m = t.groupBy('k').agg(F.sort_array(F.collect_list('d'), asc=False).alias('s'))\n"
           "m = m.select('k', F.get('s', 0).alias('best'), F.get('s', 1).alias('second'))")
STRUCT_ENDS = ("m = t.groupBy('k').agg(F.min(F.struct('a', 'b', 'd')).alias('first'), "
               "F.max(F.struct('a', 'b', 'd')).alias('last'))\n"
               "m = m.select('k', F.col('first.a').alias('fa'), F.col('first.d').alias('fd'), F.col('last.a').alias('la'))")


@dataclass(frozen=True)
class SparkCase:
    title: str
    cells: tuple[str, ...]
    expect: str | None  # the kind, or None: nothing may move
    predicate: str | None = None
    why: str | None = None  # for a case that must not push: a part of the note


SPARK_CASES = [
    SparkCase("min of two columns under 50: the rows low in one of them are read",
              ("m = t.groupBy('k').agg(F.min('a').alias('lo_a'), F.min('b').alias('lo_b'))",
               "out = m.filter((F.col('lo_a') < 50) & (F.col('lo_b') < 50))"),
              SUPERSET, '(F.col("a") < 50) | (F.col("b") < 50)'),
    SparkCase("min of two columns under 50 beside count(*): every row counts, must not",
              ("m = t.groupBy('k').agg(F.min('a').alias('lo_a'), F.min('b').alias('lo_b'), F.count('*').alias('n'))",
               "out = m.filter((F.col('lo_a') < 50) & (F.col('lo_b') < 50))"),
              None, why="GroupBy"),
    SparkCase("bool_or of two conditions, both: the rows of either condition are read",
              ("m = t.groupBy('k').agg(F.bool_or(F.col('a') > 50).alias('hi'), F.bool_or(F.col('b') < 30).alias('lo'))",
               "out = m.filter(F.col('hi') & F.col('lo'))"),
              SUPERSET, '(F.col("a") > 50) | (F.col("b") < 30)'),
    SparkCase("bool_or negated: every row of a kept group counts (only NULLs could go, not proposed)",
              ("m = t.groupBy('k').agg(F.bool_or(F.col('a') > 50).alias('hi'))",
               "out = m.filter(~F.col('hi'))"),
              None, why="GroupBy"),
    SparkCase("bool_or NULL: the groups of only NULLs are the ones kept, must not",
              ("m = t.groupBy('k').agg(F.bool_or(F.col('a') > 50).alias('hi'))",
               "out = m.filter(F.col('hi').isNull())"),
              None, why="GroupBy"),
    SparkCase("a sum and a minimum: the rows adding to the sum or low enough for the minimum",
              ("m = t.groupBy('k').agg(F.sum('a').alias('total'), F.min('b').alias('lo_b'))",
               "out = m.filter((F.col('total') >= 60) & (F.col('lo_b') < 45))"),
              SUPERSET, '(F.col("a") != 0) | (F.col("b") < 45)'),
    SparkCase("a capped sum whose 0 is kept: a group of only NULLs and zeros must stay, must not",
              ("m = t.groupBy('k').agg(F.coalesce(F.sum(F.when(F.col('a') < 50, F.col('a'))), F.lit(0)).alias('s'))",
               "out = m.filter(F.col('s') < 40)"),
              None, why="GroupBy"),
    SparkCase("a count of a condition at least 1 and an average of d: rows of neither go",
              ("m = t.groupBy('k').agg(F.count(F.when(F.col('b') >= 50, 1)).alias('high'), F.avg('d').alias('avg_d'))",
               "out = m.filter((F.col('high') >= 1) & (F.col('avg_d') > 1.5))"),
              SUPERSET, '(F.col("b") >= 50) | F.col("d").isNotNull()'),
    SparkCase("a min in a set and a max over a bound, through Spark's casts: the rows low or high enough",
              ("t.createOrReplaceTempView('t')\nm = spark.sql('SELECT k, min(a) AS lo, max(a) AS hi FROM t GROUP BY k')",
               "out = m.filter(F.col('lo').isin(4, 5, 10) & (F.col('hi') >= 60))"),
              SUPERSET, '(F.col("a") <= 10) | (F.col("a") >= 60)'),
    SparkCase("a min in a set or a max over a bound: no bound per aggregate, must not",
              ("t.createOrReplaceTempView('t')\nm = spark.sql('SELECT k, min(a) AS lo, max(a) AS hi FROM t GROUP BY k')",
               "out = m.filter(F.col('lo').isin(4, 5, 10) | (F.col('hi') >= 60))"),
              None, why="GroupBy"),
    SparkCase("bool_or flags as ints, one at least 1: the rows on which some flag's condition holds",
              ("m = t.groupBy('k').agg(F.bool_or(F.col('a') > 50).alias('hi'), F.bool_or(F.col('a') < 30).alias('lo'))",
               "out = m.filter((F.col('hi').cast('int') >= 1) & F.col('lo').cast('int').isin(0, 1))"),
              SUPERSET, '(F.col("a") > 50) | (F.col("a") < 30)'),
    SparkCase("bool_or flags as ints, none needed at 1: every row of a kept group counts, must not",
              ("m = t.groupBy('k').agg(F.bool_or(F.col('a') > 50).alias('hi'), F.bool_or(F.col('a') < 30).alias('lo'))",
               "out = m.filter((F.col('hi').cast('int') >= 0) & F.col('lo').cast('int').isin(0, 1))"),
              None, why="GroupBy"),
    SparkCase("a capped sum kept at 0: the rows it reads are every row (a NULL, or at least 3, or under 10), "
              "nothing is suggested, must not",
              ("capped = F.when(F.col('a') < 3, F.col('a')).when(F.col('a') >= 3, 3)\n"
               "m = t.groupBy('k').agg(F.coalesce(F.sum(capped), F.lit(0)).alias('s'))",
               "out = m.filter((F.col('s') < 10) | (F.col('s') == 29))"),
              None, why="GroupBy"),
    SparkCase("max_by over a when: only rows with an ordering value are read",
              ("m = t.groupBy('k').agg(F.max_by('a', F.when(F.col('b') >= 50, F.col('d'))).alias('latest'))",
               "out = m.filter(F.col('latest') > 10)"),
              SUPERSET, '(F.col("b") >= 50) & F.col("d").isNotNull()'),
    SparkCase("max_by of a plain column, picked value over 10: nothing but NULLs could go, must not",
              ("m = t.groupBy('k').agg(F.max_by('a', 'd').alias('latest'))",
               "out = m.filter(F.col('latest') > 10)"),
              None, why="GroupBy"),
    SparkCase("the two largest of a sorted list at least 2: the smaller values go (NaN is the largest and stays)",
              (TOP_TWO, "out = m.filter(F.col('second') >= 2.0)"),
              SUPERSET, 'F.col("d") >= 2.0'),
    SparkCase("the largest of a sorted list at least 2, the second kept: a smaller value may be second, must not",
              (TOP_TWO, "out = m.filter(F.col('best') >= 2.0)"),
              None, why="GroupBy"),
    SparkCase("the two smallest of a list sorted up, the second at most 40: the larger values go",
              ("m = t.groupBy('k').agg(F.sort_array(F.collect_list('a')).alias('s'))\n"
               "m = m.select('k', F.get('s', 0).alias('low'), F.get('s', 1).alias('next'))",
               "out = m.filter(F.col('next') <= 40)"),
              SUPERSET, 'F.col("a") <= 40'),
    SparkCase("the third item of a sorted list is not read, must not",
              ("m = t.groupBy('k').agg(F.sort_array(F.collect_list('d'), asc=False).alias('s'))\n"
               "m = m.select('k', F.get('s', 2).alias('third'))",
               "out = m.filter(F.col('third') >= 2.0)"),
              None, why="Other"),
    SparkCase("min and max of a struct, read field by field: the rows between the ends' bounds go",
              (STRUCT_ENDS, "out = m.filter((F.col('fa') < 20) & (F.col('la') > 50) & (F.col('fd') != 0.0))"),
              SUPERSET, '(F.col("a") < 20) | F.col("a").isNull() | (F.col("a") > 50)'),
    SparkCase("min and max of a struct, a bound on the first only: the last end's row may go, must not",
              (STRUCT_ENDS, "out = m.filter(F.col('fa') < 20)"),
              None, why="GroupBy"),
    SparkCase("min of a struct, a field filtered and the whole struct kept: its fields are all described",
              ("m = t.groupBy('k').agg(F.min(F.struct('a', 'd')).alias('first'))",
               "out = m.filter(F.col('first.a') < 20).select('k', 'first')"),
              SUPERSET, '(F.col("a") < 20) | F.col("a").isNull()'),
    SparkCase("min of a struct read whole by the late filter: not described, must not",
              ("m = t.groupBy('k').agg(F.min(F.struct('a', 'd')).alias('first'))",
               "out = m.filter(F.col('first').isNotNull() & (F.col('first.a') < 20))"),
              None, why="no filter to push"),
    SparkCase("an average over 1.5: its low values move it, nothing is proposed (only NULLs could go)",
              ("m = t.groupBy('k').agg(F.avg('d').alias('avg_d'))",
               "out = m.filter(F.col('avg_d') > 1.5)"),
              None, why="GroupBy"),
]


@pytest.mark.parametrize("case", SPARK_CASES, ids=[c.title for c in SPARK_CASES])
def test_fold_family_shapes_on_spark(shell, spark, case: SparkCase):
    cells = [SETUP, *case.cells]
    ip, _ = shell
    trace = traced(shell, cells)
    original = bag(ip.user_ns["out"])
    result = optimize_trace(trace, cells, time_budget=30)
    found = [s for s in result.suggestions if s.source == "t"]
    if case.expect is None:
        assert found == [], [s.predicate for s in found]
        assert any(r.get("operator") == case.why for r in result.refusals) \
            or any(case.why in n for n in result.notes), (result.refusals, result.notes)
        return
    assert found, (result.notes, result.refusals)
    s = found[0]
    assert s.kind == case.expect, (s.kind, s.predicate)
    if case.predicate is not None:
        assert s.predicate == case.predicate
    new_cells = rewritten(cells, s)
    namespace = {"spark": spark}
    for cell in new_cells:
        exec(compile(cell, "<cell>", "exec"), namespace)  # the suggestion's cells, as a notebook runs them
    assert bag(namespace["out"]) == original and original, (s.predicate, new_cells)
