"""The trace's plan store: equal subtrees stored once, read back in Spark's own form, decoded in
one pass however deep, and refused when over its limits. No Spark needed."""

from __future__ import annotations

import pytest

from magicpush_lab.capture import plan_store
from magicpush_lab.capture.plan_store import KIDS, PlanStore, validate
from magicpush_lab.capture.trace import Trace, TraceTooLarge
from magicpush_lab.translate.plan_json import PlanNodes

ATTR = {"class": "x.AttributeReference", "num-children": 0, "name": "v", "exprId": {"id": 1}}


def chain(depth: int) -> list[dict]:
    """Records of `depth` filters over one relation, each referring to the one below."""
    records = [{"class": "x.LocalRelation", KIDS: []}]
    records += [{"class": "x.Filter", KIDS: [i]} for i in range(depth - 1)]
    return records


def test_equal_subtrees_are_stored_once_and_read_back_as_spark_wrote_them():
    store = PlanStore()
    leaf = [{"class": "x.LocalRelation", "num-children": 0, "output": [[ATTR]]}]
    flat = [{"class": "x.Filter", "num-children": 1, "condition": [ATTR], "child": 0}, *leaf]
    first, again = store.add_flat(flat), store.add_flat(flat)
    assert first == again
    assert store.flat(first) == flat
    assert store.add_flat(leaf) == store.record(first)[KIDS][0]  # the relation is one record
    assert len(store) == 3  # the attribute, the relation, the filter


def test_a_plan_thousands_of_steps_deep_decodes_in_one_pass():
    trace = Trace.from_json({"events": [{"id": 0, "op": "filter", "inputs": [], "plan": 3999}],
                             "plans": chain(4000), "version": 2})
    node = PlanNodes(trace.plans).node(3999)
    depth = 0
    while node.kids:
        node, depth = node.kids[0], depth + 1
    assert depth == 3999


@pytest.mark.parametrize("records, message", [
    ([{"class": "x.Filter", KIDS: [0]}], "refers to 0, not an earlier record"),  # a cycle
    ([{"class": "x.Filter", KIDS: [1]}, {"class": "x.Leaf", KIDS: []}], "not an earlier record"),
    ([{"class": "x.Leaf", KIDS: [], "condition": {"@": 7}}], "not an earlier record"),
    ([{"class": 3, KIDS: []}], "not a plan record"),
    (chain(plan_store.MAX_DEPTH + 1), "nest more than"),
])
def test_malformed_or_too_deep_stores_are_refused(records, message):
    with pytest.raises(ValueError, match=message):
        validate(records, 10**7)


def test_a_trace_over_the_record_limit_is_too_large(monkeypatch):
    from magicpush_lab.capture import trace as trace_module

    monkeypatch.setattr(trace_module, "MAX_PLAN_RECORDS", 10)
    with pytest.raises(TraceTooLarge):
        Trace.from_json({"events": [], "plans": chain(11)})


def test_a_version_1_trace_with_plans_as_json_text_is_read_into_the_store():
    text = '[{"class": "x.LocalRelation", "num-children": 0, "output": []}]'
    trace = Trace.from_json({"events": [{"id": 0, "op": "range", "inputs": [], "plan": text},
                                        {"id": 1, "op": "range", "inputs": [], "plan": text}]})
    assert trace.events[0].plan == trace.events[1].plan == 0
    assert trace.plan_json(1)[0]["class"] == "x.LocalRelation"
