"""The symbolic UDF interpreter agrees with CPython: same value, same None, same raising inputs.

Each case is a UDF's source and the inputs to try; the expected results come
from running the very same source in CPython.
"""

from __future__ import annotations

import textwrap

import pytest
import z3

from magicpush_lab.symbolic.python_udf import interpret_call
from magicpush_lab.symbolic.values import Cell, Unsupported

INTS = [None, -7, -1, 0, 1, 2, 9, 10, 99, 100, 500, 501, 995, 996, 10**6]

CASES = [
    ("if/else with None guard", "def f(v):\n    if v is None:\n        return None\n    if v > 500:\n"
                                "        return v + 5\n    return v", INTS),
    ("conditional expression without guard raises on None",
     "def f(v):\n    return v + 200 if v < 500 else v", INTS),
    ("elif chain", "def f(v):\n    if v is None:\n        return 0\n    elif v < 10:\n        return 1\n"
                   "    elif v < 100:\n        return 2\n    return 3", INTS),
    ("floor division and modulo follow Python for negatives",
     "def f(v):\n    if v is None:\n        return None\n    return v // 3 + v % 4", INTS),
    ("division by a value that can be zero", "def f(v):\n    return 100 // v if v is not None else -1", INTS),
    ("boolean operators short-circuit", "def f(v):\n    return 1 if v is not None and v > 3 else 0", INTS),
    ("or returns an operand", "def f(v):\n    return v or 42", INTS),
    ("membership in a literal list", "def f(v):\n    return 1 if v in [0, 1, 99] else 2", INTS),
    ("augmented assignment and a loop over a range",
     "def f(v):\n    if v is None:\n        return None\n    acc = 0\n    for i in range(4):\n"
     "        acc += v\n    return acc", INTS),
    ("min, max and abs", "def f(v):\n    if v is None:\n        return None\n"
                         "    return max(min(v, 100), -5) + abs(v)", INTS),
    ("chained comparison", "def f(v):\n    return 1 if v is not None and 0 <= v < 100 else 0", INTS),
    ("lambda", "f = lambda v: (v * 2) if v is not None else None", INTS),
    ("falling off the end returns None", "def f(v):\n    if v is not None and v > 0:\n        return 1", INTS),
    ("equality with None never raises", "def f(v):\n    return 1 if v == None else 2", INTS),
]


def _python(source: str):
    namespace: dict = {}
    exec(compile(textwrap.dedent(source), "<udf>", "exec"), namespace)  # the test's own reference
    return namespace["f"]


def _concrete(fn, v):
    try:
        return ("ok", fn(v))
    except Exception:
        return ("raises", None)


def _symbolic(source: str, v):
    x, nn = z3.Int("x"), z3.Bool("x_nn")
    cell, error = interpret_call(source, (Cell(x, nn),), "long", ("int",))
    subst = [(nn, z3.BoolVal(v is not None)), (x, z3.IntVal(v if v is not None else 0))]
    if z3.is_true(z3.simplify(z3.substitute(error, *subst))):
        return ("raises", None)
    present = z3.is_true(z3.simplify(z3.substitute(cell.notnull, *subst)))
    value = z3.simplify(z3.substitute(cell.value, *subst))
    return ("ok", value.as_long() if present else None)


@pytest.mark.parametrize("title,source,inputs", CASES, ids=[c[0] for c in CASES])
def test_symbolic_matches_cpython(title, source, inputs):
    fn = _python(source)
    for v in inputs:
        assert _symbolic(source, v) == _concrete(fn, v), f"input {v!r}"


@pytest.mark.parametrize("source", [
    "def f(v):\n    import math\n    return math.sqrt(v)",
    "def f(v):\n    while v > 0:\n        v -= 1\n    return v",
    "def f(v):\n    return LOOKUP[v]",
    "def f(v):\n    try:\n        return v + 1\n    except TypeError:\n        return 0",
], ids=["library call", "while loop", "captured global", "try/except"])
def test_outside_the_subset_is_unsupported(source):
    with pytest.raises(Unsupported):
        interpret_call(source, (Cell(z3.Int("x"), z3.Bool("x_nn")),), "long", ("int",))
