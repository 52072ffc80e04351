"""The pandas UDF reader agrees with pandas, element by element, on the series Spark builds.

Each case is a UDF body, its argument columns (Spark types and values, NULLs
included) and its declared return type. The expected values come from running
the same body with pandas on series built as Spark's Arrow conversion builds
them: an integer column is a float64 series with NaN when the batch has a NULL
and keeps its own width (int32 for `int`) when it has none; strings are object
series with None. Both batches are tried, since a pushed filter can turn one
into the other. Bodies that are not element-wise must be refused.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
import z3

from magicpush_lab.symbolic.pandas_udf import interpret_call, unreadable_reason
from magicpush_lab.symbolic.values import Cell, NotModelled

INTS = [None, -7, -1, 0, 1, 2, 3, 9, 10, 99, 100, 500, 501, 2**31 - 1, -(2**31)]
SMALL = [None, -7, -1, 0, 1, 2, 3, 9, 10, 99, 100, 500, 501]
STRS = [None, "", "a", "ab", "b", "ba", "abc", "q"]
DOUBLES = [None, -2.5, 0.0, 0.5, 1.0, 3.25, 10.0]
NUMPY_TYPES = {"int": "int32", "long": "int64", "short": "int16", "byte": "int8"}


@dataclass(frozen=True)
class Case:
    title: str
    source: str
    types: tuple[str, ...]  # Spark types of the arguments
    columns: tuple[list, ...]  # one list of values per argument, rows aligned
    returns: str = "long"


def one(title, source, t, values, returns="long"):
    return Case(title, source, (t,), (values,), returns)


CASES = [
    one("arithmetic after a clip that bounds it", "def f(s):\n    return s.clip(-1000, 1000) * 2 + 1", "int", INTS),
    one("where keeps the element or puts the other value", "def f(s):\n    return s.where(s > 0, 0)", "int", INTS),
    one("mask is where's opposite", "def f(s):\n    return s.mask(s > 100, -1)", "int", INTS),
    one("np.where wrapped in a series", "def f(s):\n    return pd.Series(np.where(s > 9, s, 0))", "int", INTS),
    one("fillna replaces the missing elements", "def f(s):\n    return s.fillna(0)", "int", INTS),
    one("clip to constant bounds", "def f(s):\n    return s.clip(0, 100)", "int", INTS),
    one("clip with keyword bounds", "def f(s):\n    return s.clip(lower=-1)", "int", INTS),
    one("a comparison returns a boolean series; NULL compares False", "def f(s):\n    return s > 3", "int", INTS,
        "boolean"),
    one("!= with a missing element is True", "def f(s):\n    return s != 3", "int", INTS, "boolean"),
    one("floor division and modulo by a literal", "def f(s):\n    return s // 3 + s % 4", "int", INTS),
    one("true division gives doubles", "def f(s):\n    return s / 4", "int", SMALL, "double"),
    one("abs and unary minus", "def f(s):\n    return abs(-s.clip(-1000, 1000)) + s.clip(-5, 5).abs()", "int",
        INTS),
    one("isna, notna and combined masks", "def f(s):\n    return s.isna() | (s.notna() & (s < 0))", "int", INTS,
        "boolean"),
    one("isin over a literal list", "def f(s):\n    return s.isin([0, 1, 99])", "int", INTS, "boolean"),
    one("between is inclusive", "def f(s):\n    return s.between(0, 99)", "int", INTS, "boolean"),
    one("np.maximum propagates NaN", "def f(s):\n    return pd.Series(np.maximum(s, 5))", "int", SMALL),
    one("a notebook constant recorded in front of the function",
        "FACTOR = 3\nLABEL = 'x'\ndef f(s):\n    return s.clip(0, 10) * FACTOR", "int", INTS),
    one("lambda body", "f = lambda s: s // 2", "int", INTS),
    one("local variables", "def f(s):\n    t = s.clip(0, 10)\n    u: pd.Series = t * 3\n    return u", "int", INTS),
    one("str.startswith: a missing element stays NULL", "def f(s):\n    return s.str.startswith('a')", "string",
        STRS, "boolean"),
    one("str.endswith with na=False", "def f(s):\n    return s.str.endswith('b', na=False)", "string", STRS,
        "boolean"),
    one("string equality and ordering with None are False", "def f(s):\n    return (s == 'ab') | (s >= 'b')",
        "string", STRS, "boolean"),
    one("str.len", "def f(s):\n    return s.str.len()", "string", STRS),
    one("& with a missing startswith element is False",
        "def f(s):\n    return s.str.startswith('a') & (s != 'q')", "string", STRS, "boolean"),
    one("doubles: arithmetic and where", "def f(s):\n    return (s * 2).where(s > 0, 0.0)", "double", DOUBLES,
        "double"),
    one("a square is one multiplication", "def f(s):\n    return s ** 2 + s ** 1", "double", DOUBLES, "double"),
    one("a clipped int32 squared stays in range", "def f(s):\n    return s.clip(-1000, 1000) ** 2", "int", INTS),
    one("an int result for a double column", "def f(s):\n    return s.fillna(-1) // 2", "int", INTS, "double"),
    Case("two series arguments", "def f(a, b):\n    return a.where(b.str.startswith('a', na=False), a // 10)",
         ("int", "string"), ([None, 1, 2, 3, 4, 5, None, 7], [None, "a", "b", None, "ab", "x", "a", "a"])),
    Case("two integer widths meet", "def f(a, b):\n    return a.where(a > b, b.clip(-5, 5))", ("int", "long"),
         ([None, 1, -5, 7, 2**31 - 1], [3, None, 4, -9, 2**31])),
]

UNREADABLE = [
    ("a sum over the batch", "def f(s):\n    return s - s.sum()"),
    ("a mean over the batch", "def f(s):\n    return s - s.mean()"),
    ("shift reads the previous row", "def f(s):\n    return s.shift(1)"),
    ("cumsum", "def f(s):\n    return s.cumsum()"),
    ("rolling windows", "def f(s):\n    return s.rolling(2).sum()"),
    ("positional access", "def f(s):\n    return s * s.iloc[0]"),
    ("the batch's length", "def f(s):\n    return s + len(s)"),
    ("sorting", "def f(s):\n    return s.sort_values()"),
    ("rank", "def f(s):\n    return s.rank()"),
    ("a name the body closes over", "def f(s):\n    return s * FACTOR"),
    ("a recorded constant that is not a scalar", "KEYS = [1, 2]\ndef f(s):\n    return s.isin(KEYS)"),
    ("an if on a series", "def f(s):\n    if s > 0:\n        return s\n    return -s"),
    ("apply with a Python function", "def f(s):\n    return s.apply(lambda x: x + 1)"),
    ("division by a column", "def f(s):\n    return s / s"),
    ("a numpy array returned instead of a series", "def f(s):\n    return np.where(s > 0, s, 0)"),
    ("a scalar returned", "def f(s):\n    return 5"),
    ("a float result for an integer column", "def f(s):\n    return s / 2"),
    ("a series of one scalar", "def f(s):\n    return pd.Series(5)"),
    ("an integer literal float64 would round", "def f(s):\n    return s.fillna(1152921504606846976)"),
    ("literal arithmetic float64 would round", "def f(s):\n    return s.where(s > 0, 67108864 * 1073741824)"),
    ("another decorator may change the function",
     "@pandas_udf('long')\n@functools.lru_cache\ndef f(s):\n    return s.fillna(0)"),
    ("int32 arithmetic that can wrap", "def f(s):\n    return s * 2 + 1"),
    ("an int32 squared can wrap", "def f(s):\n    return s ** 2"),
    ("a cube goes through the C library's pow", "def f(s):\n    return s ** 3"),
    ("abs of the smallest int32 wraps", "def f(s):\n    return s.abs()"),
    ("a literal outside int32", "def f(s):\n    return s + 3000000000"),
]


def _spark_series(t: str, values: list) -> pd.Series:
    """The series Spark's Arrow conversion hands the UDF for these values."""
    if t in NUMPY_TYPES:
        if any(v is None for v in values):
            return pd.Series([np.nan if v is None else float(v) for v in values], dtype="float64")
        return pd.Series(values, dtype=NUMPY_TYPES[t])
    if t == "double":
        return pd.Series([np.nan if v is None else v for v in values], dtype="float64")
    return pd.Series(values, dtype=object)


def _pandas_result(source: str, types, columns) -> list:
    namespace: dict = {"pd": pd, "np": np}
    exec(compile(textwrap.dedent(source), "<udf>", "exec"), namespace)  # the test's own reference
    out = namespace["f"](*(_spark_series(t, list(c)) for t, c in zip(types, columns)))
    return [None if (v is None or (isinstance(v, float) and v != v)) else v for v in out]


def _cell(t: str, v) -> Cell:
    if v is None:
        default = {"string": z3.StringVal(""), "double": z3.RealVal(0)}.get(t, z3.IntVal(0))
        return Cell(default, z3.BoolVal(False))
    value = z3.StringVal(v) if t == "string" else z3.RealVal(v) if t == "double" else z3.IntVal(v)
    return Cell(value, z3.BoolVal(True))


def _python_value(e: z3.ExprRef):
    e = z3.simplify(e)
    if z3.is_true(e) or z3.is_false(e):
        return z3.is_true(e)
    if z3.is_int_value(e):
        return e.as_long()
    if z3.is_rational_value(e):
        return float(e.as_fraction())
    if z3.is_string_value(e):
        return e.as_string()
    if z3.is_bool(e):  # string comparisons that simplify leaves alone: decide them
        solver = z3.Solver()
        solver.add(e)
        return solver.check() == z3.sat
    raise AssertionError(f"not a constant: {e}")


def _reader_result(case: Case, row: tuple) -> object:
    cells = tuple(_cell(t, v) for t, v in zip(case.types, row))
    cell, error, unknown = interpret_call(case.source, cells, case.returns, case.types)
    assert z3.is_false(z3.simplify(error)), "no case here raises"
    assert z3.is_false(z3.simplify(unknown)), "the reader says the value depends on the batch"
    return _python_value(cell.value) if _python_value(cell.notnull) else None


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, (np.bool_,)):
        return bool(a) == bool(b)
    return float(a) == float(b)


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_reader_matches_pandas_on_every_element(case: Case):
    rows = list(zip(*case.columns))
    without_nulls = [r for r in rows if all(v is not None for v in r)]
    assert unreadable_reason(case.source, case.types, case.returns) is None
    for batch in (rows, without_nulls):
        expected = _pandas_result(case.source, case.types, list(zip(*batch)))
        got = [_reader_result(case, r) for r in batch]
        assert all(_same(g, x) for g, x in zip(got, expected)), list(zip(batch, got, expected))


@pytest.mark.parametrize("title,source", UNREADABLE, ids=[t for t, _ in UNREADABLE])
def test_body_that_is_not_element_wise_is_refused(title: str, source: str):
    assert unreadable_reason(source, ("int",), "long") is not None


def test_long_arithmetic_is_refused_because_float64_is_exact_only_to_2_53():
    assert unreadable_reason("def f(s):\n    return s // 2 + 1", ("long",), "long") is not None
    assert unreadable_reason("def f(s):\n    return s // 2 + 1", ("int",), "long") is None


def test_missing_source_is_refused():
    assert unreadable_reason(None, ("int",), "long") is not None


def test_unreadable_body_raises_unsupported_in_the_interpreter():
    with pytest.raises(NotModelled):
        interpret_call("def f(s):\n    return s.cumsum()", (_cell("int", 1),), "long", ("int",))
