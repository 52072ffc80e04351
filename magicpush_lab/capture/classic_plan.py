"""Spark's analyzed plan as JSON, with the fields `toJSON()` leaves out filled back in.

`TreeNode.toJSON()` writes `null` for fields it cannot serialise generically:
`Expand.projections` (a list of lists of expressions: unpivot, rollup, cube)
and `PivotFirst.pivotColumnValues` (the pivot values, plain JVM objects).
Without them an unpivot or a pivot cannot be analysed, so the tracer reads
them from the JVM objects and writes them into the JSON in Spark's own
format: projections as flat expression lists, pivot values as `Literal`s.

Both JSON and JVM trees are walked in the same pre-order, so the n-th Expand
(or PivotFirst) of one is the n-th of the other.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

_EXPAND = "org.apache.spark.sql.catalyst.plans.logical.Expand"
_PIVOT_FIRST = "org.apache.spark.sql.catalyst.expressions.aggregate.PivotFirst"
_LITERAL = "org.apache.spark.sql.catalyst.expressions.Literal"


def analyzed_plan_json(jdf: Any) -> str:
    """The analyzed plan of a (JVM) Dataset as JSON, missing fields filled in."""
    plan = jdf.queryExecution().analyzed()
    text = plan.toJSON()
    if '"projections":null' not in text and '"pivotColumnValues":null' not in text:
        return text
    return fill_missing_fields(text, list(_jvm_expands(plan)), list(_jvm_pivot_values(plan)))


def fill_missing_fields(text: str, projections: list[list[list[Any]]],
                        pivot_values: list[list[dict[str, Any]]]) -> str:
    """Write Expand projections and PivotFirst values, in order of appearance, into plan JSON.

    >>> plan = '[{"class": "%s", "num-children": 0, "projections": null}]' % _EXPAND
    >>> json.loads(fill_missing_fields(plan, [[["e1"], ["e2"]]], []))[0]["projections"]
    [['e1'], ['e2']]
    """
    flat = json.loads(text)
    expands = iter(projections)
    pivots = iter(pivot_values)
    for node in flat:
        if node.get("class") == _EXPAND and node.get("projections") is None:
            node["projections"] = next(expands)
        for pivot in _pivot_first_nodes(node):
            pivot["pivotColumnValues"] = next(pivots)
    return json.dumps(flat)


def _pivot_first_nodes(plan_node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """PivotFirst expression nodes inside one plan node's aggregate list, in order."""
    for expr in plan_node.get("aggregateExpressions") or ():
        for e in expr:
            if isinstance(e, dict) and e.get("class") == _PIVOT_FIRST and e.get("pivotColumnValues") is None:
                yield e


def _seq(jseq: Any) -> list[Any]:
    return [jseq.apply(i) for i in range(jseq.length())]


def _plan_nodes(jplan: Any) -> Iterator[Any]:
    yield jplan
    for child in _seq(jplan.children()):
        yield from _plan_nodes(child)


def _expr_nodes(jexpr: Any) -> Iterator[Any]:
    yield jexpr
    for child in _seq(jexpr.children()):
        yield from _expr_nodes(child)


def _jvm_expands(jplan: Any) -> Iterator[list[list[Any]]]:
    for node in _plan_nodes(jplan):
        if node.getClass().getName() == _EXPAND:
            yield [[json.loads(e.toJSON()) for e in _seq(row)] for row in _seq(node.projections())]


def _jvm_pivot_values(jplan: Any) -> Iterator[list[list[dict[str, Any]]]]:
    for node in _plan_nodes(jplan):
        if node.getClass().getName() != "org.apache.spark.sql.catalyst.plans.logical.Aggregate":
            continue
        for expr in _seq(node.aggregateExpressions()):
            for e in _expr_nodes(expr):
                if e.getClass().getName() == _PIVOT_FIRST:
                    dtype = json.loads(e.pivotColumn().dataType().json())
                    yield [[_literal(v, dtype)] for v in _seq(e.pivotColumnValues())]


def _literal(value: Any, dtype: Any) -> dict[str, Any]:
    """A pivot value as Spark writes a Literal (its value as text; NULL as null)."""
    if value is None:
        text = None
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (int, float, str)):
        text = str(value)
    else:  # UTF8String, Decimal and other JVM objects: their own text form
        text = value.toString()
    return {"class": _LITERAL, "num-children": 0, "value": text, "dataType": dtype}
