"""The symbolic UDF interpreter agrees with CPython: same value, same None, same raising inputs.

Each case is a UDF's source and the inputs to try; the expected results come
from running the very same source in CPython.
"""

from __future__ import annotations

import textwrap

import pytest
import z3

from magicpush_lab.symbolic.python_udf import interpret_call
from magicpush_lab.symbolic.values import Cell, NotModelled

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
    # constants the tracer records in front of the function, as the UDF read them from the notebook
    ("captured scalar", "LIMIT = 500\nf = lambda v: 1 if v is not None and v > LIMIT else 0", INTS),
    ("captured dict with get and a default", "RATES = {1: 10, 2: 20, 99: 7}\ndef f(v):\n"
                                             "    return RATES.get(v, 0)", INTS),
    ("captured dict subscript raises KeyError", "RATES = {1: 10, 2: 20, 99: 7}\ndef f(v):\n"
                                                "    return RATES[v]", INTS),
    ("membership in a captured set", "GOOD = {0, 9, 500}\ndef f(v):\n    return 1 if v in GOOD else 0", INTS),
    ("loop over a captured list", "STEPS = [1, 10, 100]\ndef f(v):\n    if v is None:\n        return -1\n"
                                  "    n = 0\n    for s in STEPS:\n        if v >= s:\n            n += 1\n"
                                  "    return n", INTS),
    ("captured list indexed from both ends", "BUCKETS = [5, 6, 7]\ndef f(v):\n    return BUCKETS[v]", INTS),
    ("length of a captured collection", "GOOD = (1, 2)\ndef f(v):\n    return len(GOOD) if v else 0", INTS),
]

STRS = [None, "", "a", "ab", "abc", "Hello", "xyz", "a-b-c"]

STRING_CASES = [
    ("slice of a prefix", "def f(s):\n    return s[:2] if s is not None else None", "string"),
    ("slice from the end raises on None", "def f(s):\n    return s[-2:]", "string"),
    ("slice with both bounds", "def f(s):\n    return s[1:3]", "string"),
    ("slice past the end is clamped", "def f(s):\n    return s[2:100]", "string"),
    ("index raises on a short string", "def f(s):\n    return s[1]", "string"),
    ("negative index", "def f(s):\n    return s[-1]", "string"),
    ("len and startswith", "def f(s):\n    return len(s) if s.startswith('a') else -1", "long"),
    ("dict keyed by strings", "CODES = {'a': 1, 'ab': 2}\ndef f(s):\n    return CODES.get(s, 0)", "long"),
    ("membership in a captured list of strings",
     "KNOWN = ['xyz', 'Hello']\ndef f(s):\n    return 1 if s in KNOWN else 0", "long"),
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


def _symbolic(source: str, v, arg_type: str = "int", result_type: str = "long"):
    x = z3.String("x") if arg_type == "string" else z3.Int("x")
    nn = z3.Bool("x_nn")
    cell, error = interpret_call(source, (Cell(x, nn),), result_type, (arg_type,))
    concrete = z3.StringVal(v or "") if arg_type == "string" else z3.IntVal(v if v is not None else 0)
    subst = [(nn, z3.BoolVal(v is not None)), (x, concrete)]
    if z3.is_true(z3.simplify(z3.substitute(error, *subst))):
        return ("raises", None)
    present = z3.is_true(z3.simplify(z3.substitute(cell.notnull, *subst)))
    value = z3.simplify(z3.substitute(cell.value, *subst))
    if not present:
        return ("ok", None)
    return ("ok", value.as_string() if result_type == "string" else value.as_long())


@pytest.mark.parametrize("title,source,inputs", CASES, ids=[c[0] for c in CASES])
def test_symbolic_matches_cpython(title, source, inputs):
    fn = _python(source)
    for v in inputs:
        assert _symbolic(source, v) == _concrete(fn, v), f"input {v!r}"


@pytest.mark.parametrize("title,source,result_type", STRING_CASES, ids=[c[0] for c in STRING_CASES])
def test_symbolic_strings_match_cpython(title, source, result_type):
    fn = _python(source)
    for v in STRS:
        assert _symbolic(source, v, "string", result_type) == _concrete(fn, v), f"input {v!r}"


@pytest.mark.parametrize("source", [
    "def f(v):\n    while v > 0:\n        v -= 1\n    return v",
    "def f(v):\n    global COUNT\n    COUNT = v\n    return v",
    "def f(v):\n    try:\n        return v + 1\n    finally:\n        pass",
    "import random\ndef f(v):\n    return v + random.randint(0, 3)",
], ids=["while loop", "a global statement", "try/finally", "a call that differs at each call"])
def test_outside_the_subset_is_unsupported(source):
    with pytest.raises(NotModelled):
        interpret_call(source, (Cell(z3.Int("x"), z3.Bool("x_nn")),), "long", ("int",))


# a call the model does not read is a black box: the rest of the body is read, and nothing is
# assumed of the black box's value beyond what Python guarantees (it may raise, be None, be anything)
BLACK_BOXES = [
    ("a global the tracer did not record", "def f(v):\n    return LOOKUP[v]", "long"),
    ("a recorded collection of collections", "LOOKUP = {1: [2, 3]}\ndef f(v):\n    return LOOKUP[v][0]", "long"),
    ("a method the model does not know", "import datetime\ndef f(v):\n"
     "    return (datetime.date(2024, 1, 1) + datetime.timedelta(days=v)).isocalendar()[1]", "long"),
    ("a library function", "import hashlib\ndef f(v):\n    return hashlib.md5(str(v).encode()).hexdigest()",
     "string"),
    ("an object whose state a call may change", "import hashlib\ndef f(v):\n    h = hashlib.md5()\n"
     "    h.update(str(v).encode())\n    return h.hexdigest()", "string"),
]


@pytest.mark.parametrize("title,source,dtype", BLACK_BOXES, ids=[c[0] for c in BLACK_BOXES])
def test_black_boxes_assume_nothing(title, source, dtype):
    x, nn = z3.Int("x"), z3.Bool("x_nn")
    cell, error = interpret_call(source, (Cell(x, nn),), dtype, ("int",))
    at = [(nn, z3.BoolVal(True)), (x, z3.IntVal(7))]
    for claim in (error, z3.Not(error), cell.notnull, z3.Not(cell.notnull)):
        s = z3.Solver()
        s.add(z3.substitute(claim, *at))
        assert s.check() == z3.sat, f"the model rules out {claim} at x = 7"


def test_a_changed_object_is_not_its_old_self():
    """h.update(...) changes h: what h gives after it must depend on the argument, not be one
    constant for every row (which a model without states would claim)."""
    source = BLACK_BOXES[4][1]
    x, nn = z3.Int("x"), z3.Bool("x_nn")
    cell, _ = interpret_call(source, (Cell(x, nn),), "string", ("int",))
    one = z3.substitute(cell.value, (nn, z3.BoolVal(True)), (x, z3.IntVal(1)))
    two = z3.substitute(cell.value, (nn, z3.BoolVal(True)), (x, z3.IntVal(2)))
    s = z3.Solver()
    s.add(one != two)
    assert s.check() == z3.sat


def test_unmodelled_names_the_construct_and_its_line():
    from magicpush_lab.symbolic.python_udf import unmodelled

    source = "WEEKEND = 6\ndef is_weekend(d):\n    week = d.isocalendar()\n    return week[2] >= WEEKEND"
    found, why = unmodelled(source, ("date",))
    assert why is None and found == [("d.isocalendar()", 2)]
