"""Data type names used in the IR, and how Spark's JSON type names map to them.

>>> spark_type("integer"), spark_type("decimal(10,2)"), spark_type({"type": "array"})
('int', 'decimal(10,2)', 'other')
"""

from __future__ import annotations

from typing import Any

INTEGRAL = frozenset({"byte", "short", "int", "long"})
FRACTIONAL = frozenset({"float", "double"})

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
