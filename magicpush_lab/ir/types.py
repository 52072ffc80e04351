"""Data type names used in the IR, how Spark's JSON type names map to them, and the facts about
Spark's numeric types that every layer reads (integer widths, decimal shapes, and the one table
of widening: which type two numeric operands are brought to, which casts keep every value).

>>> spark_type("integer"), spark_type("decimal(10,2)"), spark_type({"type": "array"})
('int', 'decimal(10,2)', 'other')
>>> integer_range("byte"), decimal_shape("decimal(10,2)"), decimal_shape("int"), operand_decimal("int")
((-128, 128), (10, 2), None, (10, 0))
>>> wider("short", "long"), wider("long", "float"), widens("int", "long"), widens("int", "decimal(12,2)")
('long', 'float', True, True)
"""

from __future__ import annotations

from typing import Any

INTEGRAL = frozenset({"byte", "short", "int", "long"})
FRACTIONAL = frozenset({"float", "double"})

#: two's-complement width of each integral type
INTEGER_BITS = {"byte": 8, "short": 16, "int": 32, "long": 64}
#: Spark's numeric types from narrowest to widest (its type coercion's numeric precedence): two
#: operands of different numeric types are both cast to the wider one
NUMERIC_RANK = {"byte": 0, "short": 1, "int": 2, "long": 3, "float": 4, "double": 5}
#: integral types from narrowest to widest: a cast up this order keeps every value
INTEGER_RANK = {name: rank for name, rank in NUMERIC_RANK.items() if name in INTEGRAL}
#: the decimal type Spark gives an integer operand of decimal arithmetic
INTEGER_AS_DECIMAL = {"byte": (3, 0), "short": (5, 0), "int": (10, 0), "long": (20, 0)}
#: Spark's largest decimal precision; a result needing more digits is rounded
MAX_DECIMAL_PRECISION = 38

_SPARK_NAMES = {
    "byte": "byte", "short": "short", "integer": "int", "long": "long",
    "float": "float", "double": "double", "string": "string", "boolean": "boolean",
    "date": "date", "timestamp": "timestamp", "timestamp_ntz": "timestamp", "void": "null",
    "binary": "binary",
}


def spark_type(name: Any) -> str:
    """IR type name for a Spark `dataType` as it appears in plan JSON (a string or a struct)."""
    if not isinstance(name, str):
        return "other"
    if name.startswith("decimal"):
        return name.replace(" ", "")
    if name.startswith(("char(", "varchar(")):
        return "string"
    return _SPARK_NAMES.get(name, "other")


def is_numeric(dtype: str) -> bool:
    return dtype in INTEGRAL or dtype in FRACTIONAL or dtype.startswith("decimal")


def is_integral(dtype: str) -> bool:
    return dtype in INTEGRAL


def integer_range(dtype: str) -> tuple[int, int]:
    """[low, high) of an integral type's values."""
    bits = INTEGER_BITS[dtype]
    return -(2 ** (bits - 1)), 2 ** (bits - 1)


def is_decimal(dtype: str | None) -> bool:
    return dtype is not None and dtype.startswith("decimal(")


def decimal_shape(dtype: str) -> tuple[int, int] | None:
    """(precision, scale) of a decimal type; None for any other type or a malformed name."""
    if not dtype.startswith("decimal(") or not dtype.endswith(")"):
        return None
    try:
        precision, scale = (int(x) for x in dtype[len("decimal("):-1].split(","))
    except ValueError:
        return None
    return precision, scale


def operand_decimal(dtype: str) -> tuple[int, int]:
    """(precision, scale) an integral or decimal operand has in decimal arithmetic."""
    if dtype in INTEGER_AS_DECIMAL:
        return INTEGER_AS_DECIMAL[dtype]
    shape = decimal_shape(dtype)
    if shape is None:
        raise ValueError(f"not a decimal or integral type: {dtype}")
    return shape


def wider(a: str, b: str) -> str:
    """The type Spark's implicit cast brings two numeric operands to: the wider of the two by
    NUMERIC_RANK (the first on a tie)."""
    return a if NUMERIC_RANK[a] >= NUMERIC_RANK[b] else b


def integer_widens(src: str, target: str) -> bool:
    """A cast from an integral type to one at least as wide: every value kept as it is."""
    return src in INTEGER_RANK and target in INTEGER_RANK and INTEGER_RANK[src] <= INTEGER_RANK[target]


def decimal_widens(src: str, target: str) -> bool:
    """A cast of an integral or decimal type to a decimal with as many digits on both sides of
    the point (an integral type counting as its decimal, INTEGER_AS_DECIMAL): every value kept."""
    if not ((src in INTEGRAL or is_decimal(src)) and is_decimal(target)):
        return False
    (p1, s1), (p2, s2) = operand_decimal(src), operand_decimal(target)
    return p2 - s2 >= p1 - s1 and s2 >= s1


def widens(src: str, target: str) -> bool:
    """A cast that only widens, so keeps every value: to a wider integral type, or to a decimal
    with room on both sides of the point."""
    return integer_widens(src, target) or decimal_widens(src, target)
