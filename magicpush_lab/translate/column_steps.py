"""`withColumn` calls read from their analyzed plans: the column each makes, the columns it
reads, and whether a run of them computes the same as one `withColumns`.

A chain `df.withColumn(n1, e1).withColumn(n2, e2)` evaluates e2 against the DataFrame e1 made;
`df.withColumns({n1: e1, n2: e2})` evaluates both against `df`. Both add a new name at the end
and replace an existing one in place (Spark's `withColumn` is `withColumns` of one column), so
the two agree exactly when no expression reads a column an earlier call of the run made or
replaced, no name repeats (case-insensitively, as Spark resolves names), and every expression
is deterministic. Reads are taken from the resolved plans: each `withColumn` event's plan is a
projection over its input's plan whose one alias is the column made, and the attribute ids
under that alias are what it reads. Reading a run is linear in its length: each step's own
record and its alias's expression, never the plan below it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from magicpush_lab.capture.plan_store import KIDS, REF, PlanStore
from magicpush_lab.capture.trace import Event, Trace
from magicpush_lab.translate.plan_json import simple_class

#: expression classes whose value differs from one evaluation to the next (or depends on where
#: the row is): a fold could change which values a row gets, so a step holding one never folds
NONDETERMINISTIC = frozenset({
    "Rand", "Randn", "Uniform", "RandStr", "Uuid", "Shuffle", "MonotonicallyIncreasingID",
    "SparkPartitionID", "InputFileName", "InputFileBlockStart", "InputFileBlockLength", "RandomRanking",
})


@dataclass(frozen=True)
class ColumnStep:
    """One traced `withColumn` call as its plan shows it.

    made: the id Spark gave the column it makes (its alias's expression id).
    reads: the ids of the columns its expression reads.
    refused: why the step cannot join a fold (None: it can).
    """

    event: int
    input: int
    name: str
    made: tuple[Any, ...]
    reads: frozenset[tuple[Any, ...]]
    refused: str | None = None


def _simple(record: dict[str, Any]) -> str:
    return simple_class(str(record.get("class", "")))


def _expr_id(record: dict[str, Any]) -> tuple[Any, ...] | None:
    """An attribute's or alias's identity: its expression id with the JVM (or reader) that gave it."""
    found = record.get("exprId")
    if not isinstance(found, dict) or "id" not in found:
        return None
    return (found["id"], found.get("jvmId"))


def column_step(trace: Trace, event: Event) -> ColumnStep | None:
    """The step `event` is, when it is a `withColumn` whose plan reads as one column made over
    its input's plan; None for any other event (a fold never starts or runs through it)."""
    if event.op != "withColumn" or len(event.inputs) != 1 or event.plan is None:
        return None
    before = trace.event(event.inputs[0])
    if before is None or before.plan is None:
        return None
    store = trace.plans
    root = store.record(event.plan)
    # a projection right over the input's plan: a window or an aggregate in the expression puts
    # another operator between them, and that is no plain column
    if _simple(root) != "Project" or root.get(KIDS) != [before.plan]:
        return None
    items = root.get("projectList")
    if not (isinstance(items, dict) and isinstance(items.get(REF), list)):
        return None
    aliases = []
    for rid in items[REF]:
        kind = _simple(store.record(rid))
        if kind == "Alias":
            aliases.append(rid)
        elif kind != "AttributeReference":
            return None
    if len(aliases) != 1:
        return None
    alias = store.record(aliases[0])
    made = _expr_id(alias)
    if made is None or not isinstance(alias.get("name"), str):
        return None
    reads, refused = _read_expression(store, alias[KIDS][0]) if alias.get(KIDS) else (frozenset(), "no expression")
    return ColumnStep(event.id, before.id, alias["name"], made, reads, refused)


def _read_expression(store: PlanStore, root: int) -> tuple[frozenset[tuple[Any, ...]], str | None]:
    """The ids an expression reads, and why it cannot be folded (None: it can)."""
    reads: set[tuple[Any, ...]] = set()
    refused: str | None = None
    for rid in store.subtree(root):
        record = store.record(rid)
        cls, kind = str(record.get("class", "")), _simple(record)
        if kind in ("AttributeReference", "OuterReference"):
            found = _expr_id(record)
            if found is None:
                refused = refused or "a column without an id"
            else:
                reads.add(found)
        elif ".plans.logical." in cls:  # a subquery's plan inside the expression
            refused = refused or "a subquery"
        elif kind in NONDETERMINISTIC:
            refused = refused or f"a nondeterministic expression ({kind})"
        elif record.get("udfDeterministic") is False or record.get("deterministic") is False:
            refused = refused or f"a nondeterministic function ({record.get('name') or kind})"
    return frozenset(reads), refused


def chains(trace: Trace) -> list[tuple[ColumnStep, ...]]:
    """Maximal runs of consecutive `withColumn` steps, in the order they ran. Two steps are
    consecutive when the later one's input is the earlier one's DataFrame and nothing else uses
    that DataFrame: no other call, no look (count, show...), no variable at the end. A fold
    removes that DataFrame, so a run is cut where anything else sees it."""
    steps = {e.id: s for e in trace.events if (s := column_step(trace, e)) is not None}
    consumers = trace.consumers()
    looked = {i.event for i in trace.inspections}
    held = set(trace.variables.values())

    def joins(step: ColumnStep) -> bool:  # the step continues the run its input ends
        return (step.input in steps and consumers.get(step.input) == (step.event,)
                and step.input not in looked and step.input not in held)

    out = []
    for step in steps.values():
        if joins(step):
            continue  # not a run's first step
        run = [step]
        while True:
            nxt = consumers.get(run[-1].event, ())
            if len(nxt) != 1 or nxt[0] not in steps or not joins(steps[nxt[0]]):
                break
            run.append(steps[nxt[0]])
        out.append(tuple(run))
    return out


def layers(run: tuple[ColumnStep, ...]) -> tuple[tuple[ColumnStep, ...], ...]:
    """`run` cut into consecutive layers, each computing the same as one `withColumns` over the
    layer's input: a new layer starts at a step that reads a column made or replaced earlier in
    the current one, or repeats one of its names (case-insensitively); a step that cannot fold
    is a layer of its own.

    >>> s = lambda e, name, reads=(), refused=None: ColumnStep(e, e - 1, name, (e,), frozenset((r,) for r in reads),
    ...                                                        refused)
    >>> [[x.event for x in layer] for layer in layers((s(1, "a"), s(2, "b"), s(3, "c", [1]), s(4, "C"), s(5, "d")))]
    [[1, 2], [3], [4, 5]]
    >>> [[x.event for x in layer] for layer in layers((s(1, "a"), s(2, "r", refused="rand"), s(3, "c")))]
    [[1], [2], [3]]
    """
    out: list[tuple[ColumnStep, ...]] = []
    current: list[ColumnStep] = []
    made: set[tuple[Any, ...]] = set()
    names: set[str] = set()
    for step in run:
        if step.refused is not None or step.reads & made or step.name.lower() in names:
            if current:
                out.append(tuple(current))
            current, made, names = [], set(), set()
        if step.refused is not None:
            out.append((step,))
            continue
        current.append(step)
        made.add(step.made)
        names.add(step.name.lower())
    if current:
        out.append(tuple(current))
    return tuple(out)
