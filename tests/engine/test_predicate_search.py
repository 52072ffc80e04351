"""Algorithm 1: candidates combined from components when the late filter cannot be read back.

The search-level cases run the enumeration alone (no shortcut) on a real Spark
plan, so its order and budget are what is tested; the pipeline-level cases go
through the whole walk. Every found predicate is applied on Spark and the
output bags compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown import check, late_filter
from magicpush_lab.budget import Budget
from magicpush_lab.search.combine import Limits, combined_candidates, op_components
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import bag, check_pushdown, run_engine, translate_pipeline, udf_record


def category(s):  # the paper's Listing 6 shape: 14 branches on substrings
    if s is None:
        return "Unknown"
    if "Finance" in s:
        return "Finance"
    elif "Software" in s:
        return "Software"
    elif "Data" in s:
        return "Data"
    elif "Sales" in s:
        return "Sales"
    elif "Legal" in s:
        return "Legal"
    elif "Health" in s:
        return "Health"
    elif "Retail" in s:
        return "Retail"
    elif "Energy" in s:
        return "Energy"
    elif "Travel" in s:
        return "Travel"
    elif "Media" in s:
        return "Media"
    elif "Games" in s:
        return "Games"
    elif "Food" in s:
        return "Food"
    elif "Music" in s:
        return "Music"
    return "Other"


def label(s):  # one branch's result has no SQL form (lower() is not read back)
    if s is None:
        return None
    if s.startswith("VIP"):
        return s.lower()
    return "regular"


def label2(s):  # two branches whose results have no SQL form
    if s is None:
        return None
    if s.startswith("VIP"):
        return s.lower()
    if s.endswith("!"):
        return s.upper()
    return "regular"


def grade(s, v):  # three nested tests, the result without SQL form
    if s is None or v is None:
        return None
    if v > 10:
        if s.startswith("A"):
            if s.endswith("!"):
                return s.lower()
    return "none"


def shout(s):  # no branch separates the rows the filter keeps
    if s.startswith("VIP"):
        return s.lower()
    return s.upper()


UDFS = {name: (F.udf(fn, StringType()), udf_record(name, fn, return_type="string"))
        for name, fn in (("category", category), ("label", label), ("label2", label2), ("grade", grade),
                             ("shout", shout))}

GROUPS = ["Finance and Software", "Software", "Big Data", "Data Software", "Sales", "Legal Data",
          "Health", "Music", "Food Data", "Games", "other", None, "VIP gold", "VIP", "vip", "VIPregular", "wow!", "!", "Art!", "Apple", "Bar!"]


def groups(spark):
    return [spark.createDataFrame([(i, g) for i, g in enumerate(GROUPS * 3)], "id int, grp string")]


def with_udf(name: str, out: str = "c"):
    return lambda s: s[0].withColumn(out, UDFS[name][0](F.col("grp")))


# ----------------------------------------------------------------------------- Algorithm 1 alone


def test_listing_6_enumeration_finds_the_two_branch_disjunction_first(spark):
    """The paper's prototype tried over 1,000 candidates here; steered by the solver, the first
    candidate verified is the two-branch disjunction, and it is an equivalence."""
    sources = groups(spark)
    body, late = with_udf("category"), lambda: F.col("c").isin("Software", "Data")
    plan = translate_pipeline(sources, body(sources).filter(late()), [UDFS["category"][1]])
    f = late_filter(plan)
    op = f.child
    tried, found = 0, None
    for comb in combined_candidates(op, f.condition, op_components(op, Budget(60)), Budget(60),
                                    Limits(max_checks=500, seconds=60)):
        tried += 1
        verdict = check(op, f.condition, (comb.predicate,), EQUIVALENT if comb.may_be_equivalent else SUPERSET)
        if verdict.proved:
            found = (comb, verdict)
            break
    assert found is not None and tried <= 3, f"tried {tried}"
    comb, verdict = found
    assert verdict.kind == EQUIVALENT and comb.disjuncts == 2
    assert {"contains(grp, 'Software')", "contains(grp, 'Data')"} <= {
        str(lit) for d in comb.predicate.args for lit in X.conjuncts(d)}
    _same_bag(sources, body, late, comb.predicate, superset=False)


def test_enumeration_stops_at_its_check_budget(spark):
    """A budget of a few solver checks ends the enumeration with nothing, never with a guess."""
    sources = groups(spark)
    plan = translate_pipeline(sources, with_udf("category")(sources).filter(F.col("c").isin("Software", "Data")),
                              [UDFS["category"][1]])
    f = late_filter(plan)
    assert list(combined_candidates(f.child, f.condition, op_components(f.child, Budget()), Budget(),
                                    Limits(max_checks=2))) == []


def test_components_from_the_operator_are_each_branch_test_and_its_negation(spark):
    sources = groups(spark)
    plan = translate_pipeline(sources, with_udf("label")(sources).filter(F.col("c") != "regular"),
                              [UDFS["label"][1]])
    op = late_filter(plan).child
    assert [str(c) for c in op_components(op, Budget())] == [
        "grp IS NULL", "grp IS NOT NULL", "startswith(grp, 'VIP')", "NOT startswith(grp, 'VIP')"]


def test_operators_without_one_row_semantics_get_no_combined_candidates():
    v = X.Col("v", 1, "int")
    agg = P.Aggregate(P.Source("t", (v,)), (v,), ((v, v),))
    assert list(combined_candidates(agg, X.Cmp(">", v, X.Lit(1, "int")), [X.Cmp(">", v, X.Lit(1, "int"))], Budget())) == []


def _same_bag(sources, body, late, g: X.Expr, superset: bool) -> None:
    from magicpush_lab.rewrite.pyspark_column import to_column

    rewritten = body([sources[0].filter(to_column(g))])
    if superset:
        rewritten = rewritten.filter(late())
    assert bag(rewritten) == bag(body(sources).filter(late()))


# ----------------------------------------------------------------------------- through the whole walk


@dataclass(frozen=True)
class Case:
    title: str
    body: Callable
    late: Callable
    expect: str | None
    predicates: tuple[str, ...] | None
    udfs: tuple[str, ...]


CASES = [
    Case("a branch whose result has no SQL form: its branch condition is pushed as a superset",
         with_udf("label"), lambda: F.col("c") != "regular", SUPERSET,
         ("startswith(grp, 'VIP')",), ("label",)),  # a NULL grp starts with nothing
    # `grp IS NOT NULL` is proved first (one disjunct); the two-branch cover implies it, so it
    # can never keep more rows, and it is the one pushed
    Case("of two proved supersets, the one that implies the other is pushed",
         with_udf("label2"), lambda: F.col("c") != "regular", SUPERSET,
         ("startswith(grp, 'VIP') OR endswith(grp, '!')",),  # the NULL tests are implied
         ("label2",)),
    # one test per cover (two components at most), none implying another: their conjunction
    # is proved too, and keeps fewer rows than any of them on any data
    Case("proved supersets neither of which implies the other: their conjunction is pushed",
         lambda s: s[0].withColumn("c", UDFS["grade"][0](F.col("grp"), F.col("id"))),
         lambda: F.col("c") != "none", SUPERSET,
         ("id IS NOT NULL AND startswith(grp, 'A') AND endswith(grp, '!')",), ("grade",)),
    Case("no branch separates the kept rows: nothing is pushed",
         with_udf("shout"), lambda: F.col("c") == "x", None, None, ("shout",)),
    Case("a filter every branch's result decides: the shortcut pushes it as an equivalence",
         with_udf("label"), lambda: F.col("c").isNull(), EQUIVALENT, ("grp IS NULL",), ("label",)),
    # lower() is not modelled, so a VIP row might map to 'regular': only NULLs can go
    Case("the other branch's constant, with lower() unknown: only what is certain is pushed",
         with_udf("label"), lambda: F.col("c") == "regular", SUPERSET, ("grp IS NOT NULL",), ("label",)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_walk_with_combined_candidates(spark, case: Case):
    sources = groups(spark)
    original = case.body(sources).filter(case.late())
    walk = run_engine(sources, original, [UDFS[u][1] for u in case.udfs])
    check_pushdown(walk, sources, case.body, case.late, case.expect, case.predicates)
