"""IR expressions to and from plain JSON, so a predicate can travel to the kernel that measures it.

>>> from magicpush_lab.ir.expr import Cmp, Col, Lit
>>> e = Cmp(">", Col("v", 3, "int"), Lit(995, "int"))
>>> expr_from_json(expr_to_json(e)) == e
True
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from magicpush_lab.ir import expr as X

_KINDS = {cls.__name__: cls for cls in (
    X.Col, X.Lit, X.Arith, X.Neg, X.Cmp, X.And, X.Or, X.Not, X.IsNull, X.IsNotNull,
    X.In, X.Case, X.Coalesce, X.Cast, X.Func, X.PyUdf, X.Agg, X.ArrayExists)}


def _value_to_json(v: Any) -> Any:
    if isinstance(v, dt.datetime):
        return {"datetime": v.isoformat()}
    if isinstance(v, dt.date):
        return {"date": v.isoformat()}
    if isinstance(v, float) and v != v:
        return {"float": "nan"}
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return {"float": "inf" if v > 0 else "-inf"}
    return v


def _value_from_json(v: Any) -> Any:
    if isinstance(v, dict):
        if "datetime" in v:
            return dt.datetime.fromisoformat(v["datetime"])
        if "date" in v:
            return dt.date.fromisoformat(v["date"])
        if "float" in v:
            return float(v["float"])
        raise ValueError(f"unknown literal encoding {v!r}")
    return v


def expr_to_json(e: X.Expr) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": type(e).__name__}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if f.name == "value":
            out[f.name] = _value_to_json(v)
        elif f.name == "branches":
            out[f.name] = [[expr_to_json(c), expr_to_json(r)] for c, r in v]
        elif isinstance(v, tuple):
            out[f.name] = [expr_to_json(a) for a in v]
        elif dataclasses.is_dataclass(v):
            out[f.name] = expr_to_json(v)
        elif v is None and f.name in ("arg", "by"):
            out[f.name] = None
        else:
            out[f.name] = v
    return out


def expr_from_json(d: dict[str, Any]) -> X.Expr:
    """Rebuild an expression; raises ValueError on anything that is not an IR expression."""
    if not isinstance(d, dict) or d.get("kind") not in _KINDS:
        raise ValueError(f"not an IR expression: {d!r:.80}")
    cls = _KINDS[d["kind"]]
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in d:
            continue
        v = d[f.name]
        if f.name == "value":
            kwargs[f.name] = _value_from_json(v)
        elif f.name == "branches":
            kwargs[f.name] = tuple((expr_from_json(c), expr_from_json(r)) for c, r in v)
        elif f.name in ("args", "values"):
            kwargs[f.name] = tuple(expr_from_json(a) for a in v)
        elif f.name in ("arg", "left", "right", "default", "array", "var", "body", "by"):
            kwargs[f.name] = expr_from_json(v) if v is not None else None
        else:
            kwargs[f.name] = v
    return cls(**kwargs)
