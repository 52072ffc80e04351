"""The records the Connect reader writes, in Catalyst's JSON shapes: a resolved column (`Attr`),
a resolved expression with its type (`Typed`), a relation read (`Read`), and the expression
nodes every part of the reader builds (literals, aliases, sort orders, window frames).

>>> literal(3, "integer").flat[0]["value"], literal(None, "void").name
('3', 'void')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

EXPR = "org.apache.spark.sql.catalyst.expressions."
AGG = "org.apache.spark.sql.catalyst.expressions.aggregate."
PLAN = "org.apache.spark.sql.catalyst.plans.logical."


class NotReadable(ValueError):
    """Something in a Connect relation this reader does not resolve: the relation is a barrier."""


@dataclass(frozen=True)
class Attr:
    """One output column of a relation: what an AttributeReference record says."""

    name: str
    dtype: Any  # Spark's JSON form of the type: "integer", "decimal(10,2)", {"type": "struct", ...}
    nullable: bool
    expr_id: int

    def flat(self) -> list[dict[str, Any]]:
        return [{"class": EXPR + "AttributeReference", "num-children": 0, "name": self.name,
                 "dataType": self.dtype, "nullable": self.nullable, "metadata": {},
                 "exprId": {"product-class": EXPR + "ExprId", "id": self.expr_id, "jvmId": "connect"},
                 "qualifier": []}]


@dataclass(frozen=True)
class Typed:
    """A resolved expression in Spark's flat form, with its type."""

    flat: list[dict[str, Any]]
    dtype: Any
    attr: Attr | None = None  # the column, when the expression is one

    @property
    def name(self) -> str:
        return self.dtype if isinstance(self.dtype, str) else "other"


@dataclass
class Read:
    """A relation read: its record in the PlanStore and its output columns."""

    rid: int
    output: list[Attr]


def node(cls: str, kids: Iterable[Typed | list] = (), **fields: Any) -> list[dict[str, Any]]:
    """A node of class `cls` with its `fields`, followed by its children's records (flat form)."""
    flats = [k.flat if isinstance(k, Typed) else k for k in kids]
    out = [{"class": cls, "num-children": len(flats), **fields}]
    for k in flats:
        out.extend(k)
    return out


def literal(value: Any, dtype: Any) -> Typed:
    text = None if value is None else ("true" if value is True else "false" if value is False else str(value))
    return Typed(node(EXPR + "Literal", value=text, dataType=dtype), dtype)


def alias_as(value: Typed, attr: Attr) -> Typed:
    """`value AS attr`: the Alias that makes the column `attr`."""
    return Typed(node(EXPR + "Alias", [value], name=attr.name,
                      exprId={"product-class": EXPR + "ExprId", "id": attr.expr_id, "jvmId": "connect"},
                      qualifier=[]), value.dtype, attr)


def is_column(value: Typed) -> bool:
    return value.attr is not None and value.flat[0]["class"] == EXPR + "AttributeReference"


def sort_order(value: Typed, so: Any) -> list[dict[str, Any]]:
    """`value` in Catalyst's SortOrder with the direction and null ordering of the SortOrder
    message `so`; an unspecified null ordering is Spark's default for the direction."""
    ascending = so.direction != 2
    nulls_first = {1: True, 2: False}.get(so.null_ordering, ascending)
    return node(EXPR + "SortOrder", [value],
                direction={"object": EXPR + ("Ascending$" if ascending else "Descending$")},
                nullOrdering={"object": EXPR + ("NullsFirst$" if nulls_first else "NullsLast$")},
                sameOrderExpressions=[])


_FRAME = EXPR + "SpecifiedWindowFrame"


def window_frame(rows: bool, lower: list[dict[str, Any]], upper: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A window frame of rows (else of a range) between two bounds."""
    return node(_FRAME, [lower, upper], frameType={"object": EXPR + ("RowFrame$" if rows else "RangeFrame$")})


def frame_bound(name: str) -> list[dict[str, Any]]:
    """A named bound of a window frame: UnboundedPreceding, CurrentRow, UnboundedFollowing."""
    return [{"class": EXPR + name + "$", "num-children": 0}]
