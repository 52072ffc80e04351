"""Spark's analyzed plans read from the JVM into a PlanStore, each JVM plan node once.

A pipeline built call by call holds each step's plan inside the next one's: the plan of the
DataFrame a `withColumn` returns is a new Project whose child is, as the same JVM object, the
analyzed plan of the DataFrame it was called on. So an event's plan is encoded by walking down
from its root until a node already encoded (its input's) is met: every plan node crosses from
the JVM once, however many events contain it.

A node's own fields come from `TreeNode.jsonFields`, the fields of Spark's `toJSON()` without
the children, in Spark's own format. A Project is the exception: its projection lists every
column, so a chain of K `withColumn` calls would cross O(K^2) attribute descriptions. For a
Project only the expressions it adds (`projectList.diff(child.output)`) cross; a column it
passes through refers to the child's output attribute, already in the store.

`toJSON()` writes `null` for fields it cannot serialise generically: `Expand.projections` (a
list of lists of expressions: unpivot, rollup, cube) and `PivotFirst.pivotColumnValues` (the
pivot values, plain JVM objects). Without them an unpivot or a pivot cannot be analysed, so
they are read from the JVM objects and written in Spark's own format: projections as flat
expression lists, pivot values as `Literal`s.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from magicpush_lab.capture.plan_store import KIDS, REF, PlanStore, is_ref, ref_ids

_PROJECT = "org.apache.spark.sql.catalyst.plans.logical.Project"
_EXPAND = "org.apache.spark.sql.catalyst.plans.logical.Expand"
_AGGREGATE = "org.apache.spark.sql.catalyst.plans.logical.Aggregate"
_PIVOT_FIRST = "org.apache.spark.sql.catalyst.expressions.aggregate.PivotFirst"
_LITERAL = "org.apache.spark.sql.catalyst.expressions.Literal"
# `name#id`, then `L` for a long and `-T<delay>ms` for an event-time column (AttributeReference.toString)
_ATTRIBUTE_ID = re.compile(r"#(\d+)L?(?:-T-?\d+ms)?$")
_SEPARATOR = "\u0001"  # between attributes in one string: a character no column name has
# operators whose output is their input's columns, in order
_SAME_COLUMNS = frozenset({"Filter", "Sort", "Repartition", "RepartitionByExpression", "RebalancePartitions",
                           "SubqueryAlias", "View", "ResolvedHint", "LocalLimit", "GlobalLimit", "Sample",
                           "Distinct", "Deduplicate", "Offset", "Tail"})


class PlanEncoder:
    """Encodes JVM analyzed plans into one PlanStore, remembering every JVM node it encoded."""

    def __init__(self, store: PlanStore, jvm: Any) -> None:
        self.store, self.jvm = store, jvm
        # identityHashCode -> [(JVM node, record id)]: the nodes encoded so far (kept alive by
        # these references, so an identity is never reused while it is here)
        self._known: dict[int, list[tuple[Any, int]]] = {}
        # record id -> {expression id: record id of that output attribute}
        self._outputs: dict[int, dict[int, int]] = {}
        self._nodes: dict[int, Any] = {}  # record id -> a JVM node it was encoded from
        self._orders: dict[int, list[int]] = {}  # record id -> its output columns' ids, in order
        self._render = getattr(getattr(jvm.org.json4s.jackson, "JsonMethods$"), "MODULE$")
        self._system = jvm.java.lang.System  # looked up once: each lookup is a round trip

    def encode(self, plan: Any) -> int:
        """The record id of a JVM plan; the nodes not encoded before are read now."""
        stack: list[tuple[Any, bool]] = [(plan, False)]
        results: list[int] = []
        pending: list[tuple[Any, int]] = []  # (node, number of children) waiting for their ids
        while stack:
            node, expanded = stack.pop()
            if expanded:
                n = pending.pop()[1]
                kids = results[len(results) - n:] if n else []
                del results[len(results) - n:]
                results.append(self._encoded(node, kids))
                continue
            known = self._lookup(node)
            if known is not None:
                results.append(known)
                continue
            children = node.children()
            n = children.length()
            stack.append((node, True))
            pending.append((node, n))
            stack.extend((children.apply(i), False) for i in range(n - 1, -1, -1))
        return results[0]

    def _lookup(self, node: Any) -> int | None:
        for seen, rid in self._known.get(self._identity(node), ()):
            if seen.equals(node):  # a case class's equals starts with reference equality
                return rid
        return None

    def _identity(self, node: Any) -> int:
        return int(self._system.identityHashCode(node))

    def _encoded(self, node: Any, kids: list[int]) -> int:
        cls = node.getClass().getName()
        compact = self._project(node, kids) if cls == _PROJECT else None
        record, order = compact if compact is not None else ({**self._fields(node, cls), KIDS: kids}, None)
        record["class"] = cls
        rid = self.store.intern(record)
        if order is not None:
            self._orders.setdefault(rid, order)
        self._known.setdefault(self._identity(node), []).append((node, rid))
        self._nodes.setdefault(rid, node)
        return rid

    def _fields(self, node: Any, cls: str) -> dict[str, Any]:
        fields = json.loads(_escape_chars(self._render.compact(self.jvm.org.json4s.JObject(node.jsonFields())), node,
                                          plan_node=True))
        if cls == _EXPAND and fields.get("projections") is None:
            fields["projections"] = [[json.loads(e.toJSON()) for e in _seq(row)] for row in _seq(node.projections())]
        if cls == _AGGREGATE:
            _fill_pivot_values(fields, node)
        return {k: self.store.field(v) for k, v in fields.items()}

    def _project(self, node: Any, kids: list[int]) -> tuple[dict[str, Any], list[int]] | None:
        """A Project whose pass-through columns refer to the child's output attributes, and its
        output columns' ids in order; None when one of them is not found there (then all its
        fields are read)."""
        child = node.child()
        inputs = self.output_attributes(kids[0], child)
        projection = node.projectList()
        added_seq = projection.diff(child.output())
        added = _seq(added_seq)
        trees = [self.store.add_json(_escape_chars(e.toJSON(), e)) for e in added]
        order = self._order_when_appended(node, projection, added_seq, added, kids[0], child)
        if order is None:  # columns reordered or dropped: each column's id, read from its text
            order = list(_attribute_ids(node.output().mkString(_SEPARATOR)))
        by_id: dict[int, list[int]] = {}
        for tree in trees:
            expr_id = _expr_id(self.store.record(tree))
            if expr_id is None:
                return None
            by_id.setdefault(expr_id, []).append(tree)
        refs = []
        for expr_id in order:
            if by_id.get(expr_id):
                refs.append(by_id[expr_id].pop(0))
            elif expr_id in inputs:
                refs.append(inputs[expr_id])
            else:
                return None
        if any(by_id.values()) or not refs:
            return None
        return {"projectList": {REF: refs}, "child": 0, KIDS: kids}, order

    def _order_when_appended(self, node: Any, projection: Any, added_seq: Any, added: list[Any], child_rid: int,
                             child: Any) -> list[int] | None:
        """The projection's column ids in order when it keeps the child's columns in their order
        and adds or replaces some (what `withColumn` makes), without reading every column's text
        (slow in the JVM for a thousand columns); None otherwise."""
        if not projection.diff(added_seq).equals(child.output()):
            return None
        below = self.output_order(child_rid, child)
        if below is None:
            return None
        positions = {int(projection.indexOf(e)): e for e in added}
        if len(positions) != len(added) or len(below) + len(added) != int(projection.length()):
            return None
        order, rest = [], iter(below)
        for i in range(len(below) + len(added)):
            if i in positions:
                expr_id = _expr_id(json.loads(positions[i].toJSON())[0])
                if expr_id is None:
                    return None
                order.append(expr_id)
            else:
                order.append(next(rest))
        return order

    def output_order(self, rid: int, node: Any) -> list[int] | None:
        """The expression ids of record `rid`'s output columns in order, where the records tell
        them (a projection, a relation listing its output, an operator that keeps its input's
        columns); else read from the JVM node's output text."""
        found = self._orders.get(rid)
        if found is not None:
            return found
        record = self.store.record(rid)
        listed = record.get("output")
        if record["class"] == _PROJECT and is_ref(record.get("projectList")):
            found = [_expr_id(self.store.record(r)) for r in ref_ids(record["projectList"])]
        elif not record[KIDS] and is_ref(listed):
            found = [_expr_id(self.store.record(r)) for r in ref_ids(listed)]
        elif record["class"].rsplit(".", 1)[-1] in _SAME_COLUMNS and len(record[KIDS]) == 1:
            found = self.output_order(record[KIDS][0], node.child())
        else:
            found = list(_attribute_ids(node.output().mkString(_SEPARATOR)))
        if found is None or any(i is None for i in found):
            return None
        self._orders[rid] = found
        return found

    def output_attributes(self, rid: int, node: Any) -> dict[int, int]:
        """Expression id -> record id of each output attribute of record `rid` (JVM `node`)."""
        found = self._outputs.get(rid)
        if found is not None:
            return found
        record = self.store.record(rid)
        table: dict[int, int] = {}
        listed = record.get("output")
        if not record[KIDS] and is_ref(listed):
            for ref in ref_ids(listed):  # a leaf lists its output attributes (LogicalRelation...)
                expr_id = _expr_id(self.store.record(ref))
                if expr_id is not None:
                    table[expr_id] = ref
            self._outputs[rid] = table
            return table
        if record["class"] == _PROJECT and is_ref(record.get("projectList")):
            # the child's columns (a dropped one is never asked for above), and the ones made here
            table = {**self.output_attributes(record[KIDS][0], node.child()),
                     **self._new_attributes(node, [node.child()])}
        else:
            children = _seq(node.children())
            for kid, child in zip(record[KIDS], children):
                table.update(self.output_attributes(kid, child))
            table.update(self._new_attributes(node, children))
        self._outputs[rid] = table
        return table

    def _new_attributes(self, node: Any, children: list[Any]) -> dict[int, int]:
        """The output attributes `node` has that its children's outputs do not (a column it makes,
        a column whose nullability a join changes): their records by expression id."""
        new = node.output()
        for child in children:
            new = new.diff(child.output())
        table = {}
        for attribute in _seq(new):
            rid = self.store.add_json(attribute.toJSON())
            expr_id = _expr_id(self.store.record(rid))
            if expr_id is not None:
                table[expr_id] = rid
        return table


def _expr_id(record: dict[str, Any]) -> int | None:
    expr_id = record.get("exprId")
    return expr_id.get("id") if isinstance(expr_id, dict) and isinstance(expr_id.get("id"), int) else None


def _attribute_ids(text: str) -> Iterator[int]:
    """The expression ids of attributes written `name#id` one after another.

    >>> list(_attribute_ids("a#1L" + _SEPARATOR + "c#0#12" + _SEPARATOR + "t#3-T10000ms"))
    [1, 12, 3]
    """
    for part in text.split(_SEPARATOR) if text else ():
        match = _ATTRIBUTE_ID.search(part)
        if match is None:
            raise ValueError(f"not an attribute: {part!r:.80}")
        yield int(match.group(1))


_NO_ESCAPE = '"escapeChar":null'


_NO_EVAL_MODE = '"evalMode":null'


def _escape_chars(text: str, jvm_obj: Any, plan_node: bool = False) -> str:
    """The JSON of a node or expression with LIKE's escape character written where `toJSON()`
    leaves it null (a Scala Char has no generic JSON form). Spark prints a LIKE's escape
    character only when it is not the default backslash, so when the object's text has no
    ESCAPE clause every LIKE in it has the default; otherwise they stay null: unknown, and a
    predicate with an unknown escape character is never written back as code.

    A cast's evalMode (an enumeration) is null there too, so `try_cast` (NULL where the value
    does not convert) would read as a cast (which raises there under ANSI). Spark prints a
    try_cast as `try_cast(...)`: when the text has one and no other cast, every cast in it is
    marked "TRY" (translation reads it as a function written back as `try_cast`); when it has
    both, "MIXED" (which one is which is not known: translation reads neither); without one,
    every cast is the session's own."""
    if _NO_ESCAPE not in text and _NO_EVAL_MODE not in text:
        return text
    # a plan node's own line (toString would print its children too), every field shown
    own = jvm_obj.simpleString(2**31 - 1) if plan_node else jvm_obj.toString()
    if _NO_EVAL_MODE in text and "try_cast(" in own:
        mode = "MIXED" if "cast(" in own.replace("try_cast(", "") else "TRY"
        text = text.replace(_NO_EVAL_MODE, f'"evalMode":"{mode}"')
    if _NO_ESCAPE not in text or " ESCAPE '" in own:
        return text
    return text.replace(_NO_ESCAPE, '"escapeChar":"\\\\"')


def _fill_pivot_values(fields: dict[str, Any], node: Any) -> None:
    """Write the pivot values PivotFirst's JSON leaves null, from the JVM node, in order."""
    pivots = [e for expr in fields.get("aggregateExpressions") or () for e in expr
              if isinstance(e, dict) and e.get("class") == _PIVOT_FIRST and e.get("pivotColumnValues") is None]
    if not pivots:
        return
    values = iter(_jvm_pivot_values(node))
    for pivot in pivots:
        pivot["pivotColumnValues"] = next(values)


def _seq(jseq: Any) -> list[Any]:
    return [jseq.apply(i) for i in range(jseq.length())]


def _expr_nodes(jexpr: Any) -> Iterator[Any]:
    yield jexpr
    for child in _seq(jexpr.children()):
        yield from _expr_nodes(child)


def _jvm_pivot_values(aggregate: Any) -> Iterator[list[list[dict[str, Any]]]]:
    for expr in _seq(aggregate.aggregateExpressions()):
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
