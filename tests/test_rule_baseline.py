"""The rule baseline (benchmarks/rule_baseline.py) applies each of the paper's rules, and no more.

Plans are built in the IR directly; each case that pushes sits next to one that must not.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from benchmarks.rule_baseline import baseline_push, per_source, source_key
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P

V, S = X.Col("v", 1, "int"), X.Col("store", 2, "string")
K, R = X.Col("k", 3, "string"), X.Col("region", 4, "string")
MX = X.Col("mx", 5, "int")
SALES = P.Source("sales", (V, S), origin=0)
STORES = P.Source("stores", (K, R), origin=1)


def lit(v):
    return X.Lit(v, "string" if isinstance(v, str) else "int")


def cmp(op, c, v):
    return X.Cmp(op, c, lit(v))


def udf(name, source):
    return X.PyUdf(name, (V,), "int", source)


BONUS = "def bonus(v):\n    if v is None:\n        return None\n    if v > 500:\n        return v + 5\n    return v\n"
SHIFT = "def shift(v):\n    return v + 200 if v < 500 else v\n"
W = X.Col("w", 6, "int")


def grouped(agg, keys=(S,)):
    return P.Aggregate(SALES, keys, tuple((k, k) for k in keys) + ((MX, agg),))


def join(kind):
    cond = X.Cmp("=", S, K)
    if kind == "inner":
        return P.InnerJoin(SALES, STORES, cond)
    if kind in ("semi", "anti"):
        return P.SemiJoin(SALES, STORES, cond, anti=kind == "anti")
    return P.OuterJoin(SALES, STORES, cond, preserved=kind)


def loop(body: str) -> P.RowIterPipeline:
    side = P.Source("collected", (X.Col("id", 7, "int"), X.Col("year", 8, "int")), origin=2)
    call = X.PyUdf("f", (V,), "int", f"def f(id):\n    for r in old_rows:\n{body}    return 0\n")
    return P.RowIterPipeline(SALES, call, side, ((V, V), (S, S), (W, call)), "old_rows")


@dataclass(frozen=True)
class Case:
    title: str
    plan: P.Plan  # ends in the filter to push
    expect: dict[str, str]  # source name -> the baseline's predicate there


CASES = [
    Case("(1) a rename: the predicate follows the column", P.Filter(P.Project(SALES, ((W, V),)), cmp(">", W, 3)),
         {"sales": "v > 3"}),
    Case("(1) an invertible UDF column is substituted",
         P.Filter(P.Project(SALES, ((W, udf("bonus", BONUS)),)), cmp(">", W, 1000)), {"sales": "bonus(v) > 1000"}),
    Case("(1) a UDF that is not invertible is not substituted",
         P.Filter(P.Project(SALES, ((W, udf("shift", SHIFT)),)), cmp(">", W, 600)), {}),
    Case("(1) a black-box UDF is not invertible", P.Filter(P.Project(SALES, ((W, udf("box", None)),)), cmp(">", W, 6)),
         {}),
    Case("(1) a nondeterministic column in the projection stops even a plain conjunct",
         P.Filter(P.Project(SALES, ((V, V), (W, X.Func("rand", (), "double", False)))), cmp(">", V, 3)), {}),
    Case("(2) max(v) >= c becomes v >= c", P.Filter(grouped(X.Agg("max", V, "int")), cmp(">=", MX, 9)),
         {"sales": "v >= 9"}),
    Case("(2) max(v) < c is not a bound on rows", P.Filter(grouped(X.Agg("max", V, "int")), cmp("<", MX, 9)), {}),
    Case("(2) min(v) < c becomes v < c", P.Filter(grouped(X.Agg("min", V, "int")), cmp("<", MX, 9)),
         {"sales": "v < 9"}),
    Case("(2) sum(v) > c is not a bound on rows", P.Filter(grouped(X.Agg("sum", V, "long")), cmp(">", MX, 9)), {}),
    Case("(2) the group key passes", P.Filter(grouped(X.Agg("sum", V, "long")), cmp("=", S, "a")),
         {"sales": "store = 'a'"}),
    Case("(2) a global aggregate has no key to push on", P.Filter(grouped(X.Agg("max", V, "int"), ()), cmp(">", MX, 9)),
         {}),
    Case("(4) conjuncts on each input of an inner join",
         P.Filter(join("inner"), X.And((cmp(">", V, 3), cmp("=", R, "north")))),
         {"sales": "v > 3", "stores": "region = 'north'"}),
    Case("(4) a conjunct reading both inputs stays", P.Filter(join("inner"), X.Cmp("=", V, X.Func("length", (R,), "int"))),
         {}),
    Case("(5) a disjunction of conjunctions across the inputs gives each its part",
         P.Filter(join("inner"), X.Or((X.And((cmp(">", V, 3), cmp("=", R, "n"))), X.And((cmp("<", V, 0), cmp("=", R, "s")))))),
         {"sales": "v > 3 OR v < 0", "stores": "region = 'n' OR region = 's'"}),
    Case("(5) a disjunct without a part on one input restricts that input nowhere",
         P.Filter(join("inner"), X.Or((X.And((cmp(">", V, 3), cmp("=", R, "n"))), cmp("=", R, "s")))),
         {"stores": "region = 'n' OR region = 's'"}),
    Case("(6) left join: the preserved input's conjunct goes to it", P.Filter(join("left"), cmp(">", V, 3)),
         {"sales": "v > 3"}),
    Case("(6) left join: a conjunct on the joined input does not go", P.Filter(join("left"), cmp("=", R, "n")), {}),
    Case("(6) left join: a conjunct on the join key goes to both inputs", P.Filter(join("left"), cmp("=", S, "a")),
         {"sales": "store = 'a'", "stores": "k = 'a'"}),
    Case("(6) a full outer join is not covered", P.Filter(join("both"), cmp(">", V, 3)), {}),
    Case("(7) semi join: the filter goes to the left input", P.Filter(join("semi"), cmp(">", V, 3)), {"sales": "v > 3"}),
    Case("(7) anti join likewise", P.Filter(join("anti"), X.IsNull(S)), {"sales": "store IS NULL"}),
    Case("(8) the loop's own equality on the collected row goes to the collected table",
         P.Filter(loop("        if r.id == id and r.year == 2006:\n            return 1\n"), cmp("=", W, 1)),
         {"collected": "year = 2006"}),
    Case("(8) a loop body with a statement after the if is not a filter",
         P.Filter(loop("        if r.year == 2006:\n            return 1\n        id = 0\n"), cmp("=", W, 1)), {}),
    Case("(8) an ordering comparison may raise on None: nothing is read from the loop",
         P.Filter(loop("        if r.year == 2006 and r.id < id:\n            return 1\n"), cmp("=", W, 1)), {}),
    Case("(9) unpivot: the index column passes, the value column does not",
         P.Filter(P.Expand(SALES, ((S, V), (S, lit(0))), (K, W)), X.And((cmp("=", K, "a"), cmp(">", W, 3)))),
         {"sales": "store = 'a'"}),
    Case("top-k is covered by no rule", P.Filter(P.TopK(SALES, ((V, False, False),), 3), cmp(">", V, 3)), {}),
    # the guard itself is a filter with an operator below, pushed on its own
    Case("a guard filter keeps a cast that can fail above it",
         P.Filter(P.Filter(P.Project(SALES, ((V, V), (S, S))), cmp("=", S, "1")),
                  X.Cmp(">", X.Cast(S, "int"), lit(0))), {"sales": "store = '1'"}),
    Case("a filter that cannot raise moves below another filter",
         P.Filter(P.Filter(P.Project(SALES, ((V, V), (S, S))), cmp("=", S, "1")), cmp(">", V, 0)),
         {"sales": "v > 0 AND store = '1'"}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_rule_baseline_case(case):
    found = per_source(baseline_push(case.plan))
    names = {source_key(s): s.name for s in P.nodes(case.plan) if isinstance(s, P.Source)}
    assert {names[k]: str(g) for k, g in found.items()} == case.expect


def test_join_condition_conjuncts_go_where_unmatched_rows_are_dropped():
    cond = X.And((X.Cmp("=", S, K), cmp("=", R, "n"), cmp(">", V, 3)))
    expect = {"inner": {"sales": "v > 3", "stores": "region = 'n'"}, "left": {"stores": "region = 'n'"},
              "anti": {"stores": "region = 'n'"}, "both": {}}
    for kind, wanted in expect.items():
        plan = (P.InnerJoin(SALES, STORES, cond) if kind == "inner" else
                P.SemiJoin(SALES, STORES, cond, anti=True) if kind == "anti" else
                P.OuterJoin(SALES, STORES, cond, preserved=kind))
        found = {p.source.name: str(p.predicate) for p in baseline_push(plan)}
        assert found == wanted, kind


def test_exact_only_when_every_conjunct_moved_by_an_exact_rule():
    whole = baseline_push(P.Filter(grouped(X.Agg("max", V, "int")), X.And((cmp("=", S, "a"), cmp(">", MX, 9)))))
    part = baseline_push(P.Filter(join("inner"), X.And((cmp(">", V, 3), X.Cmp("=", V, X.Func("length", (R,), "int"))))))
    assert [p.exact for p in whole] == [True] and [p.exact for p in part] == [False]
