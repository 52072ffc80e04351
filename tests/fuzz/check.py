"""The fuzzer's oracle: a proposed pushdown must not change the pipeline's result.

For a late filter and the engine's walk, every variant (each pushed predicate alone,
and all together; the late filter kept when any of them is a superset pushdown) runs
next to the original on the same tables, in the reference evaluator and, for a sample,
on Spark. The bags must be equal, and the rewritten plan must not raise where the
original did not. An input the reference has no semantics for (`Undefined`) is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from magicpush_lab.ir import plan as P
from magicpush_lab.budget import Budget
from magicpush_lab.pushdown import push_down_stacked

from tests.engine.reference import Undefined, bag, run

BUDGET_SECONDS = 2.0


@dataclass(frozen=True)
class Variant:
    label: str  # which pushed predicates, e.g. "left: a > 1 (superset)"
    plan: P.Plan


@dataclass(frozen=True)
class Mismatch:
    where: str  # "reference", "spark" or "spark-vs-reference"
    variant: str
    detail: str


def rewritten(plan: P.Plan, predicates: dict[int, Any]) -> P.Plan:
    """`plan` with each source whose origin is in `predicates` wrapped in a Filter on it."""
    if isinstance(plan, P.Source):
        return P.Filter(plan, predicates[plan.origin]) if plan.origin in predicates else plan
    changes = {}
    for f in fields(plan):
        value = getattr(plan, f.name)
        if f.name in ("child", "left", "right"):
            changes[f.name] = rewritten(value, predicates)
        elif f.name == "inputs":
            changes[f.name] = tuple(rewritten(i, predicates) for i in value)
    return replace(plan, **changes)


def variants(late: P.Filter, pushed: list) -> list[Variant]:
    """Each pushed predicate alone, then all of them together."""
    groups = [[p] for p in pushed] + ([list(pushed)] if len(pushed) > 1 else [])
    out = []
    for group in groups:
        preds = {p.source.origin: p.predicate for p in group}
        body = rewritten(late.child, preds)
        keep_late = any(p.kind == "superset" for p in group)
        label = "; ".join(f"{p.source.name}: {p.predicate} ({p.kind})" for p in group)
        out.append(Variant(label, P.Filter(body, late.condition) if keep_late else body))
    return out


def proposals(late: P.Filter) -> list:
    """The engine's pushed predicates for `late` (a crash of the engine is a finding too), with
    the filters right below it joined where that pushes as well (pushdown/walk.stacked)."""
    return push_down_stacked(late, Budget(BUDGET_SECONDS)).pushed


def outcome(plan: P.Plan, tables: dict) -> tuple[str, Any]:
    """("ok", bag), ("raises", error) or ("undefined", why) on the reference evaluator."""
    try:
        return "ok", bag(run(plan, tables), plan.output)
    except Undefined as why:
        return "undefined", str(why)
    except Exception as err:  # noqa: BLE001 - a UDF or ANSI arithmetic raising, as Spark's job would fail
        return "raises", f"{type(err).__name__}: {err}"


def compare_reference(late: P.Filter, variant: Variant, tables: dict) -> Mismatch | None | str:
    """None when the variant agrees with the original, "skip" when there is nothing to
    compare (the original raises, or an input has no reference semantics), else a Mismatch."""
    status, expected = outcome(late, tables)
    if status != "ok":
        return "skip"
    got_status, got = outcome(variant.plan, tables)
    if got_status == "undefined":
        return "skip"
    if got_status == "raises":
        return Mismatch("reference", variant.label, f"rewritten raises where the original does not: {got}")
    if got != expected:
        return Mismatch("reference", variant.label, f"original {dict(expected)} rewritten {dict(got)}")
    return None


def spark_outcome(spark, plan: P.Plan, tables: dict) -> tuple[str, Any]:
    from tests.engine.spark_ir import dataframe, rows_of

    try:
        return "ok", bag(rows_of(dataframe(spark, plan, tables), plan.output), plan.output)
    except Exception as err:  # noqa: BLE001 - the job failed (a UDF raising, ANSI overflow)
        return "raises", f"{type(err).__name__}: {str(err).splitlines()[0][:200] if str(err) else ''}"


def compare_spark(spark, late: P.Filter, variant: Variant, tables: dict) -> Mismatch | None | str:
    """The same comparison on Spark, which also checks the reference against Spark."""
    ref_status, expected = outcome(late, tables)
    if ref_status == "undefined":
        return "skip"
    status, original = spark_outcome(spark, late, tables)
    if ref_status == "raises" and status == "ok":
        # Spark's optimizer skips work whose result is not needed (a pruned column, a join
        # with an empty input), so an error the reference meets may never happen on Spark
        return "skip"
    if ref_status == "ok" and status == "raises":
        # and the other way round: Spark's optimizer adds work. A null-rejecting filter over an
        # outer join turns it into an inner one, and the filter's expression is then inferred
        # onto the other input through the join keys (abs(k) = 2147483647 from abs(a) = ... and
        # a = k), where ANSI arithmetic raises on a row the plan never filters
        return "skip"
    if status != ref_status or (status == "ok" and original != expected):
        return Mismatch("spark-vs-reference", "(original plan)",
                        f"Spark {status} {dict(original) if status == 'ok' else original}; "
                        f"reference {ref_status} {dict(expected) if ref_status == 'ok' else expected}")
    if status != "ok":
        return "skip"
    got_status, got = spark_outcome(spark, variant.plan, tables)
    if got_status != "ok":
        return Mismatch("spark", variant.label, f"rewritten raises where the original does not: {got}")
    if got != original:
        return Mismatch("spark", variant.label, f"original {dict(original)} rewritten {dict(got)}")
    return None


def first_mismatch(late: P.Filter, tables: dict, spark=None) -> Mismatch | None:
    """Run the engine on `late` and compare every variant on `tables`: the shrinker's test."""
    try:
        pushed = proposals(late)
    except Exception as err:  # noqa: BLE001
        return Mismatch("engine", "", f"push_down raised {type(err).__name__}: {err}")
    for v in variants(late, pushed):
        found = compare_reference(late, v, tables) if spark is None else compare_spark(spark, late, v, tables)
        if isinstance(found, Mismatch):
            return found
    return None
