"""A Python UDF whose body is arithmetic that Spark computes the same way, written as that
Column expression.

A late filter over a UDF's double output (`density > 50`, `diff(ls, lngd) > 0.1`) can move to
the source only as a predicate that computes the same doubles: the model reads doubles as real
numbers, so a predicate read back from it (`ls + -1.0 * lngd > 0.1`) may round differently and
is refused (verify/model_gaps.py). But Python's float operations and Spark's double operations
are the same IEEE 754 operations: a body made of `+ - * /` on floats, written as a Column
expression with the same operands in the same order, gives the same value, bit for bit. So the
candidate is the late filter with each such call replaced by its body, and the verifier then
proves (or refuses) what is not arithmetic: NULLs, branches, NaN, errors.

Only what is the same operation on both sides is written; anything else gives None:
- `+ - *` and unary `-` with at least one float operand (Python brings the int operand to
  float, as Spark casts it to double); on two ints Python's integers never overflow and
  Spark's do, so that is not written;
- `/` with a float operand, or on two `int` (32-bit) values: Python's true division of ints
  is the correctly rounded quotient, and so is Spark's division of the two (exact) doubles;
  a divisor must be a non-zero literal, or sit in a branch whose test is that it is not zero
  (`p / (1000 * a) if a != 0 else 0.0`): Python raises on zero where Spark may not;
- `x if test else y`, with tests `p is None`, `p is not None`, comparisons of integers,
  `==`/`!=` between a float and a number (Python orders NaN otherwise than Spark, so no other
  test of a float), and `and`/`or`/`not` of them (the verifier checks what a test does on
  NULL); `None`, numbers, the UDF's parameters and the constants the tracer recorded for it;
- the UDF returns a double: its body's value is a float (or None) on every branch;
- or the UDF returns a string made of its string parameters, string constants and
  `s.replace(old, new)` with a non-empty constant `old` (Python's and Spark's `replace` both
  replace every occurrence, left to right), under tests `isinstance(p, str)` (a Spark string
  reaches Python as a str or None), `p is None` and `==`/`!=` of strings. (A lookup in a
  constant dict is not written: the preimage of its constants, search/preimage.py, reads better,
  and a CASE of fifty branches would be preferred to it as an equivalence.)
- or a count of pieces, `len(s.split(sep))` with a constant `sep` a Java pattern reads as itself,
  as `size(split(s, sep, -1))` (an int UDF returning anything else is not written);
- or a regex group, `re.match(p, s)[k]` / `.group(k)` (or `re.search`), with a pattern and group
  `pyregex.extract_pattern` can write for Spark's `regexp_extract`, under tests that the pattern
  matches (`is not None`, or the match object itself), written as `rlike`.

>>> udf = X.PyUdf("diff", (X.Col("s", 1, "double"), X.Col("n", 2, "double")), "double",
...               "lambda s, n: None if s is None or n is None else s - n")
>>> print(inlined(udf))
(s - n)
>>> inlined(X.PyUdf("f", (X.Col("a", 1, "long"), X.Col("b", 2, "long")), "double", "lambda a, b: a + b"))
"""

from __future__ import annotations

import ast
from typing import Callable

from magicpush_lab.ir import expr as X
from magicpush_lab.ir.types import FRACTIONAL, INTEGER_BITS, INTEGRAL
from magicpush_lab.symbolic import pyregex
from magicpush_lab.symbolic.python_udf import parse_udf, udf_constants
from magicpush_lab.symbolic.spark_functions import reads_itself
from magicpush_lab.symbolic.values import NotModelled

_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_CMP = {ast.Eq: "=", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_EXACT_INT = 2 ** 53  # integers of at most this size are doubles exactly


class _NotSame(Exception):
    """The body does something Spark's Column expression would not do the same way."""


def inlined(call: X.PyUdf) -> X.Expr | None:
    """The call's body as a Column expression computing the same values, or None."""
    if call.kind != "python" or not call.deterministic or call.source is None \
            or call.dtype not in ("double", "string", "int"):
        return None
    try:
        fn = parse_udf(call.source)
        constants = udf_constants(call.source)
    except (SyntaxError, NotModelled, ValueError):
        return None
    params = _parameters(fn)
    if params is None or len(params) != len(call.args):
        return None
    body = _body(fn)
    if body is None:
        return None
    scope = dict(zip(params, call.args))
    try:
        value, kind = _Writer(scope, constants).expr(body, frozenset())
    except (_NotSame, RecursionError):
        return None
    if call.dtype == "string":
        return _typed_null(value, "string") if kind in ("str", "none") else None
    if call.dtype == "int":  # a count of pieces: a UDF returning another int is not written
        return value if _pieces_count(value) else None
    return value if kind in ("float", "none") else None


def _pieces_count(e: X.Expr) -> bool:
    return isinstance(e, X.Func) and e.name == "size" and isinstance(e.args[0], X.Func) and e.args[0].name == "split"


def inline_calls(e: X.Expr) -> X.Expr | None:
    """`e` with every Python UDF call inlined, when there is at least one and each can be."""
    calls = [n for n in X.walk(e) if isinstance(n, X.PyUdf)]
    if not calls:
        return None
    written = {c: inlined(c) for c in calls}
    if any(v is None for v in written.values()):
        return None
    return X.transform(e, lambda n: written.get(n) if isinstance(n, X.PyUdf) else None)


def with_calls_inlined(e: X.Expr) -> X.Expr:
    """`e` with each Python UDF call that can be inlined replaced by its body (the others kept):
    the same values, with the double arithmetic of those bodies in view."""
    return X.transform(e, lambda n: inlined(n) if isinstance(n, X.PyUdf) else None)


def written_in(call: X.PyUdf, g: X.Expr) -> bool:
    """`g` computes the call's body itself, on the same arguments, and reads the call's double
    arguments nowhere else: on every input, NaN and the infinities included, it meets the value
    the call returns (a conjunct read back from the model elsewhere in `g` would not).

    >>> a = X.Col("a", 1, "double")
    >>> call = X.PyUdf("twice", (a,), "double", "lambda a: a * 2.0")
    >>> body = X.Cmp(">", X.Arith("*", a, X.Lit(2.0, "double"), "double"), X.Lit(1.0, "double"))
    >>> written_in(call, body), written_in(call, X.and_(body, X.Cmp("<", a, X.Lit(3.0, "double"))))
    (True, False)
    """
    body = inlined(call)
    if body is None:
        return False
    rest = X.transform(g, lambda n: X.Lit(None, "double") if n == body else None)
    doubles = {a for a in call.args if X.dtype_of(a) in FRACTIONAL}
    return rest != g and not any(n in doubles for n in X.walk(rest))


def _parameters(fn: ast.FunctionDef | ast.Lambda) -> list[str] | None:
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
        return None
    return [p.arg for p in a.args]


def _body(fn: ast.FunctionDef | ast.Lambda) -> ast.expr | None:
    """The function's value as one expression: a lambda's body, or a def made of
    `if test: return v` statements and a last `return v` (read as nested `v if test else ...`)."""
    if isinstance(fn, ast.Lambda):
        return fn.body
    stmts = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]  # docstring
    if not stmts or not isinstance(stmts[-1], ast.Return) or stmts[-1].value is None:
        return None
    value: ast.expr = stmts[-1].value
    for s in reversed(stmts[:-1]):
        if not (isinstance(s, ast.If) and not s.orelse and len(s.body) == 1 and isinstance(s.body[0], ast.Return)
                and s.body[0].value is not None):
            return None
        value = ast.IfExp(test=s.test, body=s.body[0].value, orelse=value)
    return value


class _Writer:
    """Python expression -> (IR expression, Python kind: "float", "int", "str", "none" or "bool")."""

    def __init__(self, scope: dict[str, X.Expr], constants: dict[str, object]) -> None:
        self.scope, self.constants = scope, constants

    def expr(self, node: ast.expr, nonzero: frozenset[str]) -> tuple[X.Expr, str]:
        """`nonzero`: the texts of expressions a branch's test says are not zero."""
        method: Callable[[ast.expr, frozenset[str]], tuple[X.Expr, str]] | None = getattr(
            self, f"_{type(node).__name__}", None)
        if method is None:
            raise _NotSame(type(node).__name__)
        return method(node, nonzero)

    def _Name(self, node: ast.Name, nonzero: frozenset[str]) -> tuple[X.Expr, str]:
        if node.id in self.scope:
            col = self.scope[node.id]
            dtype = X.dtype_of(col)
            if dtype in FRACTIONAL:
                return (col if dtype == "double" else X.Cast(col, "double")), "float"
            if dtype in INTEGRAL:
                return col, "int"
            if dtype == "string":
                return col, "str"
            raise _NotSame(f"a {dtype} argument")
        if node.id in self.constants:
            return self._number(self.constants[node.id])
        raise _NotSame(node.id)

    def _Constant(self, node: ast.Constant, nonzero: frozenset[str]) -> tuple[X.Expr, str]:
        if node.value is None:
            return X.Lit(None, "double"), "none"
        if isinstance(node.value, str):
            return X.Lit(node.value, "string"), "str"
        return self._number(node.value)

    def _Call(self, node: ast.Call, nonzero: frozenset[str]) -> tuple[X.Expr, str]:
        """`s.replace(old, new)` with constant strings, `old` not empty ('' inserts `new`
        between characters in Python and changes nothing in Spark); `len(s.split(sep))`, a
        constant `sep` of characters a Java pattern reads as themselves, as
        `size(split(s, sep, -1))` (both keep empty pieces, leading and trailing ones too)."""
        f = node.func
        if isinstance(f, ast.Name) and f.id == "len" and len(node.args) == 1 and not node.keywords:
            return self._pieces(node.args[0], nonzero)
        if isinstance(f, ast.Attribute) and f.attr == "group" and len(node.args) <= 1 and not node.keywords:
            found = self._re_call(f.value)
            k = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else 0 if not node.args \
                else None
            if found is not None and isinstance(k, int) and not isinstance(k, bool):
                return self._group(found, k)
        if not (isinstance(f, ast.Attribute) and f.attr == "replace" and len(node.args) == 2 and not node.keywords):
            raise _NotSame("a call other than str.replace")
        (text, kind), old, new = self.expr(f.value, nonzero), self._string(node.args[0]), self._string(node.args[1])
        if kind != "str" or not old.value:
            raise _NotSame("replace of an empty text, or not on a string")
        return X.Func("replace", (text, old, new), "string"), "str"

    def _re_call(self, node: ast.expr) -> tuple[str, str, X.Expr] | None:
        """(how, pattern, text) for `re.match(<constant pattern>, <string parameter>)` (or
        search), else None."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("match", "search") and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re" and "re" not in self.scope and len(node.args) == 2
                and not node.keywords):
            return None
        try:
            pattern = self._string(node.args[0]).value
            text, kind = self.expr(node.args[1], frozenset())
        except _NotSame:
            return None
        return (node.func.attr, pattern, text) if kind == "str" else None

    @staticmethod
    def _matched(how: str, pattern: str, text: X.Expr) -> X.Expr:
        """`re.<how>(pattern, text)` finds a match, as Spark's rlike with the pattern written
        for it (pyregex.java_pattern); NULL on a NULL text, where Python raises."""
        lang = pyregex.language_for(how, pattern)
        if lang is None:
            raise _NotSame("a pattern outside the subset Python and Java read alike")
        return X.Func("rlike", (text, X.Lit(pyregex.java_pattern(lang), "string")), "boolean")

    def _Subscript(self, node: ast.Subscript, nonzero: frozenset[str]) -> tuple[X.Expr, str]:
        """`re.match(p, s)[k]`: the group as Spark's regexp_extract computes it where the match
        succeeds (pyregex.extract_pattern); where it fails Python raises, which the verifier sees."""
        found = self._re_call(node.value)
        k = node.slice.value if isinstance(node.slice, ast.Constant) else None
        if found is None or not isinstance(k, int) or isinstance(k, bool):
            raise _NotSame("a subscript other than a match's group")
        return self._group(found, k)

    def _group(self, found: tuple[str, str, X.Expr], k: int) -> tuple[X.Expr, str]:
        how, pattern, text = found
        java = pyregex.extract_pattern(how, pattern, k)
        if java is None:
            raise _NotSame("a group Java may capture otherwise, or one not in every match")
        return X.Func("regexp_extract", (text, X.Lit(java, "string"), X.Lit(k, "int")), "string"), "str"

    def _pieces(self, node: ast.expr, nonzero: frozenset[str]) -> tuple[X.Expr, str]:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split"
                and len(node.args) == 1 and not node.keywords):
            raise _NotSame("len() of something other than str.split(sep)")
        (text, kind), sep = self.expr(node.func.value, nonzero), self._string(node.args[0])
        if kind != "str" or not reads_itself(sep.value):
            raise _NotSame("a split not written the same way in Spark")
        split = X.Func("split", (text, sep, X.Lit(-1, "int")), "array<string>")
        return X.Func("size", (split,), "int"), "int"

    def _string(self, node: ast.expr) -> X.Lit:
        value = node.value if isinstance(node, ast.Constant) else (
            self.constants.get(node.id) if isinstance(node, ast.Name) and node.id not in self.scope else None)
        if not isinstance(value, str):
            raise _NotSame("an argument other than a constant string")
        return X.Lit(value, "string")

    @staticmethod
    def _number(value: object) -> tuple[X.Expr, str]:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _NotSame(repr(value))
        if isinstance(value, float):
            return X.Lit(value, "double"), "float"
        if abs(value) > _EXACT_INT:
            raise _NotSame("an integer beyond a double's exact range")
        return X.Lit(value, "int" if -2 ** 31 <= value < 2 ** 31 else "long"), "int"

    def _UnaryOp(self, node: ast.UnaryOp, nonzero: frozenset[str]) -> tuple[X.Expr, str]:
        value, kind = self.expr(node.operand, nonzero)
        if isinstance(node.op, ast.UAdd) and kind in ("float", "int"):
            return value, kind
        if isinstance(node.op, ast.USub) and kind == "float":
            return X.Neg(value), "float"
        if isinstance(node.op, ast.USub) and isinstance(value, X.Lit):
            return self._number(-value.value)  # a negative literal
        raise _NotSame("unary " + type(node.op).__name__)

    def _BinOp(self, node: ast.BinOp, nonzero: frozenset[str]) -> tuple[X.Expr, str]:
        op = _ARITH.get(type(node.op))
        if op is None:
            raise _NotSame(type(node.op).__name__)
        (left, lk), (right, rk) = self.expr(node.left, nonzero), self.expr(node.right, nonzero)
        if "float" not in (lk, rk):
            if op != "/" or not (_int32(left) and _int32(right)):
                raise _NotSame("arithmetic on two integers")
        elif not {lk, rk} <= {"float", "int"}:
            raise _NotSame("arithmetic on None")
        if op == "/" and not _not_zero(node.right, nonzero, self.constants):
            raise _NotSame("a divisor that may be zero")
        return X.Arith(op, _double(left), _double(right), "double"), "float"

    def _IfExp(self, node: ast.IfExp, nonzero: frozenset[str]) -> tuple[X.Expr, str]:
        test = self._test(node.test)
        value, vk = self.expr(node.body, nonzero | _said_nonzero(node.test))
        other, ok = self.expr(node.orelse, nonzero)
        kinds = {vk, ok} - {"none"}
        if kinds == {"str"}:
            if _extract_or_empty(test, value, other):
                return value, "str"  # regexp_extract gives "" where the pattern finds no match
            # a string CASE: a None branch is a NULL string; Spark's replace passes a NULL on
            return X.Case(((test, _typed_null(value, "string")),), _typed_null(other, "string")), "str"
        if kinds - {"float"}:
            raise _NotSame("a branch that is not a float")
        kind = "float" if kinds else "none"
        for null_when, nulls, computed in ((test, value, other), (_negated(test), other, value)):
            if null_when is not None and _null(nulls) and _strict(computed, _null_tested(null_when)):
                return computed, kind  # Spark's arithmetic is NULL on a NULL operand already
        return X.Case(((test, value),), other), kind

    def _test(self, node: ast.expr) -> X.Expr:
        if isinstance(node, ast.BoolOp):
            parts = [self._test(v) for v in node.values]
            return X.or_(*parts) if isinstance(node.op, ast.Or) else X.and_(*parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return X.Not(self._test(node.operand))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
                and len(node.args) == 2 and isinstance(node.args[1], ast.Name) and node.args[1].id == "str"
                and isinstance(node.args[0], ast.Name) and node.args[0].id in self.scope
                and X.dtype_of(self.scope[node.args[0].id]) == "string"):
            return X.IsNotNull(self.scope[node.args[0].id])  # a Spark string arrives as a str or None
        found = self._re_call(node)
        if found is not None:  # `if re.match(p, s):` a match object is true
            return self._matched(*found)
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
            raise _NotSame("a test other than a comparison")
        op, right_node = node.ops[0], node.comparators[0]
        found = self._re_call(node.left)
        if isinstance(op, (ast.Is, ast.IsNot)) and found is not None \
                and isinstance(right_node, ast.Constant) and right_node.value is None:
            matched = self._matched(*found)
            return X.Not(matched) if isinstance(op, ast.Is) else matched
        if isinstance(op, (ast.Is, ast.IsNot)):
            if not (isinstance(right_node, ast.Constant) and right_node.value is None
                    and isinstance(node.left, ast.Name) and node.left.id in self.scope):
                raise _NotSame("`is` other than a parameter against None")
            col = self.scope[node.left.id]
            return X.IsNull(col) if isinstance(op, ast.Is) else X.IsNotNull(col)
        name = _CMP.get(type(op))
        if name is None:
            raise _NotSame(type(op).__name__)
        (left, lk), (right, rk) = self.expr(node.left, frozenset()), self.expr(right_node, frozenset())
        if lk == rk == "str" and name in ("=", "!="):
            # Python's str equality is Spark's: the same code points (a None operand is not
            # a str, so a NULL reaches this test only where the verifier sees it)
            return X.Cmp(name, left, right)
        if not {lk, rk} <= {"float", "int"}:
            raise _NotSame("a comparison with None")
        if "float" in (lk, rk):
            # Python compares NaN otherwise than Spark (`nan > 1` is False there, TRUE here; `nan ==
            # nan` False, TRUE): only (in)equality with a number that is not NaN is the same test
            finite = [x for x in (left, right) if isinstance(x, X.Lit) and x.value == x.value]
            if name not in ("=", "!=") or not finite:
                raise _NotSame("a comparison of doubles that NaN would decide otherwise")
            left, right = _double(left), _double(right)
        return X.Cmp(name, left, right)


def _extract_or_empty(test: X.Expr, value: X.Expr, other: X.Expr) -> bool:
    """`value if test else other` is `regexp_extract(s, p, k) if s matches p else ""`, which
    regexp_extract alone gives (it is "" where p finds no match)."""
    if not (isinstance(value, X.Func) and value.name == "regexp_extract" and other == X.Lit("", "string")
            and isinstance(test, X.Func) and test.name == "rlike" and test.args[0] == value.args[0]):
        return False
    made = pyregex.extracted_by(value.args[1].value)
    lang = pyregex.language_for(*made) if made is not None else None
    return lang is not None and test.args[1].value == pyregex.java_pattern(lang)


def _said_nonzero(test: ast.expr) -> frozenset[str]:
    """Expressions the test, when true, says are not zero: `a != 0` (or `0 != a`), alone or
    as one of the `and`-ed tests."""
    tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    found: set[str] = set()
    for t in tests:
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.NotEq):
            for a, b in ((t.left, t.comparators[0]), (t.comparators[0], t.left)):
                if isinstance(b, ast.Constant) and not isinstance(b.value, bool) and b.value == 0:
                    found.add(ast.unparse(a))
    return frozenset(found)


def _not_zero(node: ast.expr, nonzero: frozenset[str], constants: dict[str, object]) -> bool:
    """The divisor is never zero: a non-zero number, an expression a test said is not zero, or
    the product of such a one and a number of magnitude at least 1 (which cannot underflow)."""
    if ast.unparse(node) in nonzero:
        return True
    number = _number_of(node, constants)
    if number is not None:
        return number != 0
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for c, d in ((node.left, node.right), (node.right, node.left)):
            factor = _number_of(c, constants)
            if factor is not None and abs(factor) >= 1 and _not_zero(d, nonzero, constants):
                return True
    return False


def _number_of(node: ast.expr, constants: dict[str, object]) -> float | None:
    value = node.value if isinstance(node, ast.Constant) else (
        constants.get(node.id) if isinstance(node, ast.Name) else None)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _null(e: X.Expr) -> bool:
    return isinstance(e, X.Lit) and e.value is None


def _negated(test: X.Expr) -> X.Expr | None:
    """`a IS NULL OR b IS NULL` for `a IS NOT NULL AND b IS NOT NULL` (and a single one)."""
    parts = X.conjuncts(test)
    if all(isinstance(p, X.IsNotNull) for p in parts):
        return X.or_(*(X.IsNull(p.arg) for p in parts))
    return None


def _null_tested(test: X.Expr) -> frozenset[X.Expr] | None:
    """The columns of `c1 IS NULL OR c2 IS NULL ...`, or None for another test."""
    parts = X.disjuncts(test)
    if all(isinstance(p, X.IsNull) and isinstance(p.arg, X.Col) for p in parts):
        return frozenset(p.arg for p in parts)
    return None


def _strict(e: X.Expr, tested: frozenset[X.Expr] | None) -> bool:
    """`e` is NULL whenever one of the tested columns is: testing them first changes nothing
    (`None if a is None else a * 2` is Spark's `a * 2`)."""
    return tested is not None and all(_null_on(e, c) for c in tested)


def _null_on(e: X.Expr, c: X.Expr) -> bool:
    """`e` is NULL whenever `c` is: Spark's arithmetic and casts pass a NULL operand on, and a
    CASE whose every branch is NULL then is NULL whichever branch it takes."""
    if e == c or isinstance(e, X.Lit) and e.value is None:
        return True
    if isinstance(e, (X.Arith, X.Neg, X.Cast)):
        return any(_null_on(k, c) for k in X.children(e))
    if isinstance(e, X.Case):
        return all(_null_on(v, c) for v in (*(v for _, v in e.branches), e.default))
    return False


def _typed_null(e: X.Expr, dtype: str) -> X.Expr:
    return X.Lit(None, dtype) if _null(e) else e


def _int32(e: X.Expr) -> bool:
    dtype = X.dtype_of(e)
    return dtype in INTEGRAL and INTEGER_BITS[dtype] <= 32


def _double(e: X.Expr) -> X.Expr:
    """An operand brought to double as Python brings an int to float (exactly, within 2**53)."""
    if isinstance(e, X.Lit) and isinstance(e.value, int):
        return X.Lit(float(e.value), "double")
    return e if X.dtype_of(e) == "double" else X.Cast(e, "double")
