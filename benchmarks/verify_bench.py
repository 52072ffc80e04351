"""Time the verifier per category: search + proof of one operator, repeated.

    python benchmarks/verify_bench.py [--repeat 20]

Prints, per case and per category, the median and the maximum time of
finding and proving (or refusing) the pushdown through one operator. No Spark
is needed: the operators are built as IR, as translate would build them.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass
from typing import Callable

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.budget import Budget
from magicpush_lab.pushdown import check, push_down
from magicpush_lab.search.combine import combined_candidates, op_components
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

V = X.Col("v", 1, "int")
STORE = X.Col("store", 2, "string")
AMOUNT = X.Col("amount", 3, "double")
REGION = X.Col("region", 4, "string")
STORE_R = X.Col("store", 5, "string")
SALES = P.Source("sales", (V, STORE, AMOUNT), origin=0)
STORES = P.Source("stores", (STORE_R, REGION), origin=1)

BONUS = '''
def bonus(v):
    if v is None:
        return None
    if v > 500:
        return v + 5
    return v
'''

# a 14-branch UDF mapping amounts to price bands, in the spirit of the paper's Listing 6
BANDS = "def band(v):\n    if v is None:\n        return 'unknown'\n" + "".join(
    f"    {'if' if i == 0 else 'elif'} v < {100 * (i + 1)}:\n        return 'b{i}'\n" for i in range(13)
) + "    return 'top'\n"


def lit(v: object, t: str = "int") -> X.Lit:
    return X.Lit(v, t)


def udf_project(name: str, source: str, dtype: str) -> tuple[P.Project, X.Col]:
    out = X.Col(name + "_out", 10, dtype)
    return P.Project(SALES, ((V, V), (STORE, STORE), (AMOUNT, AMOUNT), (out, X.PyUdf(name, (V,), dtype, source)))), out


def groupby(agg: X.Agg) -> tuple[P.Aggregate, X.Col]:
    out = X.Col("agg", 11, agg.dtype)
    return P.Aggregate(SALES, (STORE,), ((STORE, STORE), (out, agg))), out


@dataclass(frozen=True)
class Case:
    category: str
    title: str
    build: Callable[[], P.Filter]


def _bonus() -> P.Filter:
    op, out = udf_project("bonus", BONUS, "int")
    return P.Filter(op, X.Cmp(">", out, lit(1000)))


def _bands() -> P.Filter:
    op, out = udf_project("band", BANDS, "string")
    return P.Filter(op, X.In(out, (lit("b3", "string"), lit("b7", "string"))))


def _join() -> P.Filter:
    join = P.InnerJoin(SALES, STORES, X.Cmp("=", STORE, STORE_R))
    return P.Filter(join, X.and_(X.Cmp(">", V, lit(900)), X.Cmp("=", REGION, lit("north", "string"))))


def _max() -> P.Filter:
    op, out = groupby(X.Agg("max", V, "int"))
    return P.Filter(op, X.Cmp(">", out, lit(900)))


def _conditional_max() -> P.Filter:
    weekend = X.In(X.Col("weekday", 6, "int"), (lit(6), lit(7)))
    op, out = groupby(X.Agg("max", X.Case(((weekend, AMOUNT),), lit(None, "null")), "double"))
    return P.Filter(op, X.Cmp(">", out, lit(1000.0, "double")))


def _sum_refused() -> P.Filter:
    op, out = groupby(X.Agg("sum", AMOUNT, "double"))
    return P.Filter(op, X.Cmp(">", out, lit(1000.0, "double")))


def _fold_max() -> P.Filter:
    """max written as a reduce (the paper's Figure 1(2)): aggregate(collect_list(v), 0, greatest)."""
    acc, elem = X.Col("acc", 20, "int"), X.Col("x", 21, "int")
    body = X.FoldBody(lit(0), acc, elem, X.Func("greatest", (acc, elem), "int"), acc, acc)
    op, out = groupby(X.Agg("fold", V, "int", False, body))
    return P.Filter(op, X.Cmp(">", out, lit(900)))


def _left_join() -> P.Filter:
    """sales left join stores, filter on the preserved side and on the joined side."""
    join = P.OuterJoin(SALES, STORES, X.Cmp("=", STORE, STORE_R), "left")
    return P.Filter(join, X.and_(X.Cmp(">", V, lit(900)), X.Cmp("=", REGION, lit("north", "string"))))


ITEMS = X.Col("items", 8, "array<int>")
ITEM = X.Col("item", 9, "int")


def _explode_element() -> P.Filter:
    """explode(items) as item, filter on the element: exists(items, x -> x > 3) below it."""
    child = P.Source("baskets", (V, ITEMS), origin=0)
    op = P.RowExpand(child, "explode", (ITEM,), False, None, ITEMS)
    return P.Filter(op, X.and_(X.Cmp(">", ITEM, lit(3)), X.Cmp(">", V, lit(10))))


TOP_PER_STORE = """
def top3(pdf):
    pdf = pdf[pdf.v > 0]
    pdf = pdf.sort_values("v", ascending=False).head(3)
    return pdf
"""

ROW_BY_ROW = """
def flagged(pdf):
    pdf = pdf[pdf.v > 10]
    pdf["big"] = pdf.v > 500
    return pdf
"""


def grouped_map(source: str) -> P.GroupedMap:
    """sales.groupBy(store).applyInPandas(fn, schema), as translate reads it."""
    from magicpush_lab.translate.pandas_body import body_plan

    body = body_plan(source, (V, STORE, AMOUNT))
    output = tuple(X.Col(c.name, 400 + i, c.dtype) for i, c in enumerate(body.output))
    return P.GroupedMap(SALES, (STORE,), body, output)


def _grouped_key() -> P.Filter:
    op = grouped_map(TOP_PER_STORE)
    return P.Filter(op, X.Cmp("=", op.output[1], lit("a", "string")))


def _grouped_row() -> P.Filter:
    op = grouped_map(ROW_BY_ROW)
    return P.Filter(op, op.output[3])


def _grouped_row_through_head() -> P.Filter:
    op = grouped_map(TOP_PER_STORE)
    return P.Filter(op, X.Cmp(">", op.output[0], lit(900)))


def _top_1000() -> P.Filter:
    top = P.TopK(SALES, ((V, False, False), (STORE, True, True)), 1000)
    return P.Filter(top, X.Cmp(">", V, lit(900)))


def _top_listing_2() -> P.Filter:
    top = P.TopK(SALES, ((V, True, True),), 3)
    return P.Filter(top, X.Cmp(">", V, lit(2)))


YEAR = X.Col("year", 7, "int")
YEARS = tuple(range(1990, 2022))  # 32 pivot values, 32 output columns


def pivot32() -> tuple[P.Aggregate, tuple[X.Col, ...]]:
    """groupBy(store).pivot(year, 32 years).agg(sum(amount)), as translate reads it."""
    child = P.Source("sales", (V, STORE, AMOUNT, YEAR), origin=0)
    cols = tuple(X.Col(str(y), 100 + i, "double") for i, y in enumerate(YEARS))
    slots = tuple((c, X.Agg("sum", X.Case(((X.Cmp("<=>", YEAR, lit(y)), AMOUNT),), lit(None, "null")), "double"))
                  for c, y in zip(cols, YEARS))
    return P.Aggregate(child, (STORE,), ((STORE, STORE), *slots), pivot=True), cols


def _pivot_key() -> P.Filter:
    op, _ = pivot32()
    return P.Filter(op, X.Cmp("=", STORE, lit("a", "string")))


def _pivot_key_and_column() -> P.Filter:
    op, cols = pivot32()
    return P.Filter(op, X.and_(X.Cmp("=", STORE, lit("a", "string")), X.Cmp(">", cols[5], lit(10.0, "double"))))


def _pivot_column() -> P.Filter:
    op, cols = pivot32()
    return P.Filter(op, X.Cmp(">", cols[31], lit(10.0, "double")))


def unpivot32() -> tuple[P.Expand, X.Col, X.Col]:
    """unpivot(["store"], 32 year columns, "year", "revenue")."""
    values = tuple(X.Col(f"v{y}", 200 + i, "double") for i, y in enumerate(YEARS))
    child = P.Source("revenue", (STORE, *values), origin=0)
    name, value = X.Col("year", 300, "string"), X.Col("revenue", 301, "double")
    rows = tuple((STORE, lit(c.name, "string"), c) for c in values)
    return P.Expand(child, rows, (STORE, name, value)), name, value


def _unpivot_id() -> P.Filter:
    op, _, _ = unpivot32()
    return P.Filter(op, X.Cmp("=", STORE, lit("a", "string")))


def _unpivot_value() -> P.Filter:
    op, _, value = unpivot32()
    return P.Filter(op, X.Cmp(">", value, lit(2000.0, "double")))


RELATIVE_REV = '''
def relative_rev(store, quantity, price):
    for r in old_rows:
        if r.store == store and r.year == 2006:
            return quantity * price / (r.quantity * r.price)
    return None
'''


def figure3(price_type: str) -> P.Filter:
    """The paper's Figure 3: relative revenue against the same store's first 2006 row of df_old,
    filter year >= 2008 AND relative_rev != 0, as translate reads it."""
    store, year, qty, price = (X.Col("store", 400, "string"), X.Col("year", 401, "int"),
                               X.Col("quantity", 402, "int"), X.Col("price", 403, price_type))
    old = (X.Col("store", 410, "string"), X.Col("year", 411, "int"), X.Col("quantity", 412, "int"),
           X.Col("price", 413, price_type))
    rel = X.Col("relative_rev", 420, "double")
    call = X.PyUdf("relative_rev", (store, qty, price), "double", RELATIVE_REV)
    node = P.RowIterPipeline(P.Source("df", (store, year, qty, price), origin=0), call,
                             P.Source("collected df_old", old, origin=1),
                             ((store, store), (year, year), (qty, qty), (price, price), (rel, call)),
                             "old_rows")
    late = X.and_(X.Cmp(">=", year, lit(2008)), X.Not(X.Cmp("=", rel, lit(0.0, "double"))))
    return P.Filter(node, late)


# the paper's Listing 6: 14 substring branches; the found G is a disjunction of two of them
CATEGORIES = ("Finance", "Software", "Data", "Sales", "Legal", "Health", "Retail", "Energy", "Travel",
              "Media", "Games", "Food", "Music")
CATEGORY = "def category(s):\n    if s is None:\n        return 'Unknown'\n" + "".join(
    f"    {'if' if i == 0 else 'elif'} '{c}' in s:\n        return '{c}'\n" for i, c in enumerate(CATEGORIES)
) + "    return 'Other'\n"

# a branch whose result has no SQL form: the shortcut cannot be read back, Algorithm 1 runs
LABEL = """def label(s):
    if s is None:
        return None
    if s.startswith('VIP'):
        return s.lower()
    return 'regular'
"""


def _listing_6() -> P.Filter:
    op, out = udf_project_on(STORE, "category", CATEGORY, "string")
    return P.Filter(op, X.In(out, (lit("Software", "string"), lit("Data", "string"))))


def _label() -> P.Filter:
    op, out = udf_project_on(STORE, "label", LABEL, "string")
    return P.Filter(op, X.Not(X.Cmp("=", out, lit("regular", "string"))))


def udf_project_on(arg: X.Col, name: str, source: str, dtype: str) -> tuple[P.Project, X.Col]:
    out = X.Col(name + "_out", 10, dtype)
    return P.Project(SALES, ((V, V), (STORE, STORE), (AMOUNT, AMOUNT), (out, X.PyUdf(name, (arg,), dtype, source)))), out


def algorithm_1_alone(build: Callable[[], P.Filter], repeat: int) -> tuple[list[float], int, str]:
    """Algorithm 1's enumeration without the shortcut: time to the first verified candidate,
    and how many candidates were verified."""
    times, tried, found = [], 0, "nothing found"
    for _ in range(repeat):
        late = build()
        start = time.perf_counter()
        tried = 0
        for comb in combined_candidates(late.child, late.condition, op_components(late.child, Budget()), Budget()):
            tried += 1
            verdict = check(late.child, late.condition, (comb.predicate,),
                            EQUIVALENT if comb.may_be_equivalent else SUPERSET)
            if verdict.proved:
                found = f"{comb.predicate} [{verdict.kind}]"
                break
        times.append((time.perf_counter() - start) * 1000)
    return times, tried, found


CASES = [
    Case("ROW-TO-ROW", "UDF with a branch, filter on its output", _bonus),
    Case("ROW-TO-ROW", "14 substring branches (Listing 6), IN over two results", _listing_6),
    Case("ROW-TO-ROW", "branch result without SQL form: Algorithm 1 fallback", _label),
    Case("ROW-TO-ROW", "14-branch UDF, IN over two of its results", _bands),
    Case("ROW-TO-ROW", "inner join, filter on both inputs", _join),
    Case("AGGREGATE", "groupBy max, filter on the max", _max),
    Case("AGGREGATE", "groupBy conditional max", _conditional_max),
    Case("AGGREGATE", "groupBy sum (refused)", _sum_refused),
    Case("AGGREGATE", "max written as a reduce (Figure 1(2))", _fold_max),
    Case("LEFTOUTERJ", "left join, filter on both inputs", _left_join),
    Case("ROW-EXPAND", "explode, filter on the element and a column", _explode_element),
    Case("SUBPIPELINE", "applyInPandas top 3 per store, filter on the key", _grouped_key),
    Case("SUBPIPELINE", "applyInPandas filter + assign, filter on the new flag", _grouped_row),
    Case("SUBPIPELINE", "applyInPandas top 3 per store, filter on v (refused)", _grouped_row_through_head),
    Case("TOPK", "orderBy(v desc).limit(1000), filter v > 900", _top_1000),
    Case("TOPK", "orderBy(v).limit(3), filter v > 2 (refused)", _top_listing_2),
    Case("PIVOT", "pivot to 32 columns, filter on the key", _pivot_key),
    Case("PIVOT", "pivot to 32 columns, key and one pivoted column (superset)", _pivot_key_and_column),
    Case("PIVOT", "pivot to 32 columns, filter on a pivoted column (refused)", _pivot_column),
    Case("UNPIVOT", "unpivot of 32 columns, filter on the id", _unpivot_id),
    Case("UNPIVOT", "unpivot of 32 columns, filter on the value (superset)", _unpivot_value),
    Case("ROW-ITER", "Figure 3: UDF over collected df_old, double prices", lambda: figure3("double")),
    Case("ROW-ITER", "Figure 3: UDF over collected df_old, integer prices", lambda: figure3("int")),
]


# FULLOUTERJ: sales full outer join stores on the store key, as `join(..., "store", "full")` makes it
def full_join(late: Callable[[X.Expr], X.Expr]) -> P.Filter:
    join = P.OuterJoin(SALES, STORES, X.Cmp("=", STORE, STORE_R), "both")
    key = X.Col("store", 12, "string")
    outputs = ((key, X.Coalesce((STORE, STORE_R))), (V, V), (AMOUNT, AMOUNT), (REGION, REGION))
    return P.Filter(P.Project(join, outputs), late(key))


CASES += [
    Case("FULLOUTERJ", "full join, filter on the coalesced key (both inputs)",
         lambda: full_join(lambda key: X.Cmp(">=", key, lit("m", "string")))),
    Case("FULLOUTERJ", "full join, filter on a left column (superset)",
         lambda: full_join(lambda key: X.Cmp(">", V, lit(900)))),
    Case("FULLOUTERJ", "full join, region IS NULL (refused, with a counterexample)",
         lambda: full_join(lambda key: X.IsNull(REGION))),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    per_category: dict[str, list[float]] = {}
    print(f"{'category':11s} {'case':60s} {'median ms':>9s} {'max ms':>8s}  result")
    for case in CASES:
        times, result = [], None
        for _ in range(args.repeat):
            late = case.build()
            start = time.perf_counter()
            walk = push_down(late, Budget())
            times.append((time.perf_counter() - start) * 1000)
            result = "; ".join(f"{p.predicate} [{p.kind}]" for p in walk.pushed) or "nothing pushed"
        per_category.setdefault(case.category, []).extend(times)
        print(f"{case.category:11s} {case.title:60s} {statistics.median(times):9.1f} {max(times):8.1f}  {result}")
    print()
    times, tried, found = algorithm_1_alone(_listing_6, args.repeat)
    print(f"Algorithm 1 alone (no shortcut) on Listing 6: median {statistics.median(times):.1f} ms, "
          f"max {max(times):.1f} ms, {tried} candidate(s) verified, found {found}")
    print()
    for category, times in per_category.items():
        print(f"{category:11s} median {statistics.median(times):.1f} ms, max {max(times):.1f} ms "
              f"over {len(times)} runs")


if __name__ == "__main__":
    main()
