"""Types and the implicit casts Spark's analyzer adds, as the Connect reader writes them out.

Types are Spark's JSON names ("integer", "decimal(10,2)"); which numeric type two operands
widen to is ir/types.py's table, read through the IR's names. Only the numeric widenings are
written out; any other mix of types that Spark would cast is refused (`NotReadable`), so a
relation is never read with a cast the server would not add.

>>> numeric("integer"), numeric("decimal(10,2)"), integral("long"), integral("double")
(True, False, True, False)
"""

from __future__ import annotations

from typing import Any

from magicpush_lab.capture.connect_plan.shapes import EXPR, NotReadable, Typed, literal, node
from magicpush_lab.ir.types import INTEGRAL, NUMERIC_RANK, spark_type, wider


def numeric(name: str) -> bool:
    """A type among which Spark's implicit casts widen (byte up to double; decimals are not)."""
    return spark_type(name) in NUMERIC_RANK


def integral(name: str) -> bool:
    return spark_type(name) in INTEGRAL


def _widest(names: set[str]) -> str:
    """The one of several numeric types the others widen to."""
    return max(names, key=lambda name: NUMERIC_RANK[spark_type(name)])


def booleans(args: list[Typed]) -> None:
    """NotReadable unless every operand of a logical operator is a boolean (or a NULL)."""
    if any(a.name not in ("boolean", "void") for a in args):
        raise NotReadable("a logical operator over values that are not booleans")


def cast_to(value: Typed, dtype: str) -> Typed:
    """`value` cast to the numeric type `dtype` (a NULL literal typed as it)."""
    if value.dtype == dtype:
        return value
    if not numeric(value.name) and value.name != "void":
        raise NotReadable(f"{value.name} where a number is needed: not analysed on Spark Connect yet")
    if value.name == "void":
        return typed_null(value, dtype)
    return Typed(node(EXPR + "Cast", [value], dataType=dtype), dtype)


def typed_null(value: Typed, dtype: Any) -> Typed:
    """A NULL literal takes the type of what it stands beside, as Spark's analyzer types it."""
    if value.name == "void":
        return literal(None, dtype)
    return value


def in_one_type(values: list[Typed], what: str) -> list[Typed]:
    """The values of a CASE or a coalesce in the one type Spark's analyzer gives them all: one
    type as it is, numbers of several types cast to the widest, NULLs typed alike; any other
    mix (a string and a number, decimals, a float beside an integer) is refused."""
    names = {v.name for v in values if v.name != "void"}
    if not names:
        raise NotReadable(f"{what} of NULLs only")
    if len(names) == 1:
        dtype = next(v.dtype for v in values if v.name != "void")
        return [typed_null(v, dtype) for v in values]
    if not all(numeric(n) for n in names) or ("float" in names and names & {"integer", "long"}):
        raise NotReadable(f"{what} over {', '.join(sorted(names))} (Spark casts them): not analysed on Spark Connect yet")
    return [cast_to(v, _widest(names)) for v in values]


def widened(args: list[Typed]) -> tuple[Typed, Typed]:
    """Two operands in the type Spark compares or computes them in: equal types as they are,
    two numeric types widened to the wider (Spark's implicit cast), a NULL as the other's type;
    any other pair (a string and a number, a date and a string, decimals) is refused."""
    a, b = args
    if a.name == "void" and b.name == "void":
        raise NotReadable("an operator over two NULLs")
    if a.name == "void":
        return typed_null(a, b.dtype), b
    if b.name == "void":
        return a, typed_null(b, a.dtype)
    if a.dtype == b.dtype and (numeric(a.name) or a.name in ("string", "boolean", "date")):
        return a, b
    if numeric(a.name) and numeric(b.name):
        wide = a.name if wider(spark_type(a.name), spark_type(b.name)) == spark_type(a.name) else b.name
        if {a.name, b.name} & {"float"} and {a.name, b.name} & {"long", "integer"}:
            raise NotReadable("a float beside an integer (Spark widens both to double or float): not analysed")
        return cast_to(a, wide), cast_to(b, wide)
    raise NotReadable(f"an operator over {a.name} and {b.name} (Spark casts them): not analysed on Spark Connect yet")
