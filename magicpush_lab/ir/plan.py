"""Operator trees: the pipeline as the paper's core operators (Table 1).

A plan node is immutable. `origin` is the id of the trace event that produced
the node (None for nodes Spark added on its own), which is how a pushed
predicate finds its way back to a notebook cell.

Operators covered so far: Source, Filter, Project (the paper's RowTransform and
DropColumn in one node, as Spark has them), InnerJoin, OuterJoin (left, right and full),
Aggregate (GroupBy, Pivot and dropDuplicates on a subset), Window (CumAggr), RowExpand, Expand (UnPivot),
TopK, Reorder, Union, GroupedMap (applyInPandas, its body a sub-plan),
RowIterPipeline (a Python UDF looping over a collected table), and
Other, the barrier that carries the reason nothing can be pushed through it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
import typing
from typing import Iterator

from magicpush_lab.ir import expr as X
from magicpush_lab.ir.expr import Col, Expr


class _OneInput:
    """Operators with one input (`child`)."""

    child: "Plan"

    @property
    def children(self) -> tuple["Plan", ...]:
        return (self.child,)


class _SameColumns(_OneInput):
    """One-input operators whose output columns are their input's."""

    @property
    def output(self) -> tuple[Col, ...]:
        return self.child.output


class _TwoInputs:
    """Joins: the left input's columns, then the right input's."""

    left: "Plan"
    right: "Plan"

    @property
    def output(self) -> tuple[Col, ...]:
        return self.left.output + self.right.output

    @property
    def children(self) -> tuple["Plan", ...]:
        return (self.left, self.right)


@dataclass(frozen=True)
class Source:
    """A table read by the pipeline: a file, a catalog table or an in-memory frame."""

    name: str
    output: tuple[Col, ...]
    origin: int | None = None

    @property
    def children(self) -> tuple["Plan", ...]:
        return ()


@dataclass(frozen=True)
class Filter(_SameColumns):
    child: "Plan"
    condition: Expr
    origin: int | None = None


@dataclass(frozen=True)
class Project(_OneInput):
    """Each output column computed from one input row: RowTransform and DropColumn."""

    child: "Plan"
    outputs: tuple[tuple[Col, Expr], ...]
    origin: int | None = None

    @property
    def output(self) -> tuple[Col, ...]:
        return tuple(c for c, _ in self.outputs)

    @property
    def kind(self) -> str:
        """The paper's name for this projection: DropColumn if it only keeps columns."""
        if all(isinstance(e, Col) and e == c for c, e in self.outputs):
            return "DropColumn"
        return "RowTransform"


@dataclass(frozen=True)
class InnerJoin(_TwoInputs):
    left: "Plan"
    right: "Plan"
    condition: Expr
    origin: int | None = None


@dataclass(frozen=True)
class SemiJoin:
    """`left_semi` (`anti` False) or `left_anti` join: the left rows that have (have no) row
    of `right` matching `condition`; only the left input's columns come out."""

    left: "Plan"
    right: "Plan"
    condition: Expr
    anti: bool = False
    origin: int | None = None

    @property
    def output(self) -> tuple[Col, ...]:
        return self.left.output

    @property
    def children(self) -> tuple["Plan", ...]:
        return (self.left, self.right)

    def as_filter(self) -> "Filter":
        """The join seen from one left row: a filter on whether a match exists. Which rows
        of `right` exist is unknown, so the match is an unknown function of the left
        columns the condition reads: a proof for every such function covers every `right`."""
        reads = tuple(sorted(X.columns(self.condition) & set(self.left.output), key=lambda c: (c.name, c.id)))
        name = ("no_match_" if self.anti else "match_") + "_".join(f"{c.name}{c.id}" for c in reads)
        return Filter(self.left, X.Func(name, reads, "boolean"))


@dataclass(frozen=True)
class OuterJoin(_TwoInputs):
    """Left, right or full outer join: every row of the `preserved` input appears, NULL-padded if
    unmatched; `preserved="both"` is the full outer join, which does this for both inputs."""

    left: "Plan"
    right: "Plan"
    condition: Expr
    preserved: str = "left"  # "left" | "right" | "both" (full outer join)
    origin: int | None = None


@dataclass(frozen=True)
class Aggregate(_OneInput):
    """GroupBy: one output row per distinct value of `keys`; outputs may hold `Agg` calls."""

    child: "Plan"
    keys: tuple[Expr, ...]
    outputs: tuple[tuple[Col, Expr], ...]
    origin: int | None = None
    pivot: bool = False  # made by groupBy().pivot(): one conditional aggregate per pivot value
    # made by dropDuplicates(subset): the other columns are `first` of the group, one arbitrary
    # row's values, so only the whole-groups route (which leaves aggregate values free) applies
    deduplicate: bool = False

    @property
    def output(self) -> tuple[Col, ...]:
        return tuple(c for c, _ in self.outputs)


@dataclass(frozen=True)
class RowExpand(_OneInput):
    """explode / posexplode / explode_outer / inline: each input row becomes 0..n rows."""

    child: "Plan"
    generator: str  # Spark's generator, e.g. "explode"
    generated: tuple[Col, ...]
    outer: bool = False
    origin: int | None = None
    array: Expr | None = None  # what explode/posexplode expand, when it is an array

    @property
    def output(self) -> tuple[Col, ...]:
        return self.child.output + self.generated


@dataclass(frozen=True)
class Expand(_OneInput):
    """Each input row becomes one output row per projection (unpivot, stack, rollup, cube).

    The paper's UnPivot: `projections[i][j]` computes output column j of the i-th
    row made from each input row.
    """

    child: "Plan"
    projections: tuple[tuple[Expr, ...], ...]
    output: tuple[Col, ...]
    origin: int | None = None

    def rows(self) -> tuple[dict[Col, Expr], ...]:
        """Each projection as output column -> its expression over the input."""
        return tuple(dict(zip(self.output, p)) for p in self.projections)


@dataclass(frozen=True)
class WindowCall:
    """One window function: which rows of its partition its value reads.

    `lower`/`upper` bound the frame relative to the current row in the window's order (negative:
    rows before, positive: rows after, 0: the current row and, for a RANGE frame, its ties; None:
    unbounded). Functions whose value reads the whole partition whatever their frame says
    (`percent_rank`, `cume_dist`, `ntile`: they count the partition's rows) have both None.

    >>> WindowCall("row_number", (), None, 0).reads()
    'before'
    >>> WindowCall("lead", (Col("d", 1, "double"),), 1, 1).reads(), WindowCall("sum", (), None, None).reads()
    ('after', 'partition')
    """

    fn: str  # Spark's function in snake case: "row_number", "lag", "sum", "first", ...
    args: tuple[Expr, ...]
    lower: int | None
    upper: int | None
    rows: bool = True  # a ROWS frame (False: a RANGE frame, which counts ties as the current row)
    dtype: str = "other"
    # the value reads only the frame's rows whose argument is not NULL (`sum`, `max`, `count` of
    # a column, `first(x, ignorenulls=True)`, ...): a row whose argument is NULL adds nothing
    skips_nulls: bool = False

    def reads(self) -> str:
        """"before": rows sorting no later than the current row (its ties included); "after":
        rows sorting no earlier; "partition": rows on both sides."""
        if self.upper is not None and self.upper <= 0:
            return "before"
        if self.lower is not None and self.lower >= 0:
            return "after"
        return "partition"

    def reads_only_non_null(self) -> bool:
        """Dropping a row whose argument is NULL changes no other row's value: the function skips
        such rows, and its frame is set by order values (RANGE) or runs to the partition's end
        or the current row (a ROWS frame counting rows would shift).

        >>> WindowCall("sum", (Col("v", 1, "double"),), None, None, skips_nulls=True).reads_only_non_null()
        True
        >>> WindowCall("sum", (Col("v", 1, "double"),), -2, 0, skips_nulls=True).reads_only_non_null()
        False
        """
        counted = self.rows and not {self.lower, self.upper} <= {None, 0}
        return self.skips_nulls and len(self.args) == 1 and not counted


@dataclass(frozen=True)
class Window(_OneInput):
    """Window functions: `computed` columns from each row's partition.

    `order` is the window's ORDER BY (key, ascending, nulls first) and `calls` the function of
    each computed column, in the same order; without `calls` each value is taken to read the
    whole partition.
    """

    child: "Plan"
    partition: tuple[Expr, ...]
    computed: tuple[Col, ...]
    origin: int | None = None
    order: tuple[tuple[Expr, bool, bool], ...] = ()
    calls: tuple[WindowCall, ...] = ()

    @property
    def output(self) -> tuple[Col, ...]:
        return self.child.output + self.computed

    def reads(self) -> frozenset[str]:
        """What the window's values read of each partition (WindowCall.reads), over its calls."""
        if len(self.calls) != len(self.computed):
            return frozenset({"partition"})
        return frozenset(c.reads() for c in self.calls)


@dataclass(frozen=True)
class TopK(_SameColumns):
    """orderBy(...).limit(k): the first k rows in the sort order."""

    child: "Plan"
    order: tuple[tuple[Expr, bool, bool], ...]  # (key, ascending, nulls first)
    k: int
    origin: int | None = None


@dataclass(frozen=True)
class Reorder(_SameColumns):
    """Sort, repartition and other operators that change only row order or placement."""

    child: "Plan"
    what: str  # the Spark operator, e.g. "Sort", "Repartition"
    origin: int | None = None


@dataclass(frozen=True)
class Union:
    """Bag union of inputs whose columns match by position; output columns are the first input's."""

    inputs: tuple["Plan", ...]
    output: tuple[Col, ...]
    origin: int | None = None

    @property
    def children(self) -> tuple["Plan", ...]:
        return self.inputs

    def column_maps(self) -> tuple[dict[Col, Col], ...]:
        """For each input, output column -> that input's column in the same position."""
        return tuple(dict(zip(self.output, child.output)) for child in self.inputs)


@dataclass(frozen=True)
class GroupedMap(_OneInput):
    """groupBy(keys).applyInPandas(fn, schema): `fn` runs once per group (the paper's GroupedMap).

    `body` is fn read as a sub-plan over one group's rows: its leaf is a Source whose
    output is the columns fn receives, and its output columns become `output` by name
    (Spark assigns the returned frame's columns to the schema by label).
    """

    child: "Plan"
    keys: tuple[Expr, ...]
    body: "Plan"
    output: tuple[Col, ...]
    origin: int | None = None
    # fn's source as recorded: what an executor of the plan runs (the proofs read `body`)
    source: str | None = None


@dataclass(frozen=True)
class RowIterPipeline:
    """A Python UDF that loops over another table collected into Python (paper, Table 1).

    `child` is the left table, whose rows the UDF is applied to; `side_input` is the
    collected DataFrame the UDF reads through the global `side_name` (a Source whose
    origin is the event that was collected); `udf` is the call inside `outputs`, which
    are computed per left row like a Project's.
    """

    child: "Plan"
    udf: X.PyUdf
    side_input: "Source"
    outputs: tuple[tuple[Col, Expr], ...]
    side_name: str
    origin: int | None = None

    @property
    def children(self) -> tuple["Plan", ...]:
        return (self.child, self.side_input)

    @property
    def output(self) -> tuple[Col, ...]:
        return tuple(c for c, _ in self.outputs)


@dataclass(frozen=True)
class Other:
    """A barrier: nothing is pushed through it, and `reason` says why."""

    children: tuple["Plan", ...]
    output: tuple[Col, ...]
    reason: str
    origin: int | None = None


Plan = typing.Union[Source, Filter, Project, InnerJoin, SemiJoin, OuterJoin, Aggregate, Window, RowExpand, Expand,
                    TopK, Reorder, Union, Other, GroupedMap, RowIterPipeline]


def operator_name(node: Plan) -> str:
    """The paper's operator name (Table 1) for display in proofs."""
    if isinstance(node, Project):
        return node.kind
    if isinstance(node, Aggregate):
        return "Pivot" if node.pivot else "Deduplicate" if node.deduplicate else "GroupBy"
    if isinstance(node, Expand):
        return "UnPivot"
    if isinstance(node, Window):
        return "CumAggr"
    if isinstance(node, OuterJoin) and node.preserved == "both":
        return "FullOuterJoin"
    if isinstance(node, OuterJoin):
        return "LeftOuterJoin" if node.preserved == "left" else "RightOuterJoin"
    if isinstance(node, SemiJoin):
        return "AntiJoin" if node.anti else "SemiJoin"
    return type(node).__name__


def nodes(plan: Plan) -> Iterator[Plan]:
    """Every node, parents before children (left input first); iterative, for deep pipelines."""
    stack = [plan]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def with_children(node: Plan, kids: tuple[Plan, ...]) -> Plan:
    """`node` with its inputs replaced by `kids`, given in `node.children`'s order.

    >>> s, t = Source("s", ()), Source("t", ())
    >>> with_children(Filter(s, X.TRUE), (t,)).child.name
    't'
    """
    if kids == node.children:
        return node
    if isinstance(node, Union):
        return replace(node, inputs=kids)
    if isinstance(node, Other):
        return replace(node, children=kids)
    names = [n for n in ("child", "left", "right", "side_input") if n in node.__dataclass_fields__]
    return replace(node, **dict(zip(names, kids)))  # type: ignore[type-var]


def expressions(node: Plan) -> list[Expr]:
    """The expressions a node holds in its own fields, whatever they are called (not its
    inputs', and not a RowIterPipeline's `udf`, which its `outputs` hold already)."""
    found: list[Expr] = []

    def visit(value: object) -> None:
        if isinstance(value, (tuple, list)):
            for v in value:
                visit(v)
        elif isinstance(value, X.Expr.__args__):  # type: ignore[attr-defined]
            found.append(value)  # type: ignore[arg-type]
        elif isinstance(value, WindowCall):
            visit(value.args)

    for name in getattr(node, "__dataclass_fields__", {}):
        if name not in ("child", "left", "right", "inputs", "children", "side_input", "body", "udf"):
            visit(getattr(node, name))
    return found


def sources(plan: Plan) -> tuple[Source, ...]:
    return tuple(n for n in nodes(plan) if isinstance(n, Source))
