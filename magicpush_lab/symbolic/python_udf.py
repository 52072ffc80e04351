"""Symbolic execution of Python UDF source, built on `ast`.

A UDF receives Python values (None for SQL NULL) and returns one; Spark turns
the result back into a column value of the declared type. The interpreter
follows every path of the body at once: `if` forks the state on a Z3
condition and merges it afterwards, `return` records (path condition, value).
It also records the conditions under which the body raises (arithmetic on
None, division by zero, comparing None with `<`), because such a row makes the
original job fail (docs/semantics.md, "Errors").

Anything outside the supported subset raises `Unsupported`; the caller then
treats the UDF as a black box (an uninterpreted function).

>>> import z3
>>> from magicpush_lab.symbolic.values import Cell
>>> v = Cell(z3.Int("v"), z3.Bool("v_nn"))
>>> cell, error = interpret_call("def f(v):\\n    return v + 5 if v > 3 else v", (v,), "int", ("int",))
>>> z3.simplify(z3.substitute(cell.value, (z3.Int("v"), z3.IntVal(4))))
9
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache

import z3

from magicpush_lab.ir.types import FRACTIONAL, INTEGER_BITS, INTEGRAL
from magicpush_lab.symbolic.values import Cell, Unsupported, default_value, string_value

T = z3.BoolVal(True)
F = z3.BoolVal(False)
_MAX_UNROLL = 64


@dataclass(frozen=True)
class PyVal:
    """A symbolic Python value: `kind` is its Python type; `none` says when it is None."""

    kind: str  # "int" | "float" | "bool" | "str" | "none" | "seq" | "dict"
    value: z3.ExprRef | None
    none: z3.BoolRef
    # a captured constant collection: its elements ("seq") or (key, value) pairs ("dict")
    items: tuple = field(default=(), kw_only=True)
    # a "float" that may be a Python int at run time (`1 if c else 2.5`, `max(1, x)`): the model
    # reads it as a real either way, but a pickled UDF converts an int and a float differently
    int_or_float: bool = field(default=False, kw_only=True)


NONE = PyVal("none", None, T)


def const(v: object) -> PyVal:
    if v is None:
        return NONE
    if isinstance(v, bool):
        return PyVal("bool", z3.BoolVal(v), F)
    if isinstance(v, int):
        return PyVal("int", z3.IntVal(v), F)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise Unsupported("NaN/inf constants in UDFs are not modelled")
        return PyVal("float", z3.RealVal(v), F)
    if isinstance(v, str):
        return PyVal("str", string_value(v), F)
    raise Unsupported(f"constant of type {type(v).__name__}")


_MAX_ITEMS = 256


def captured(v: object) -> PyVal:
    """A constant the UDF reads from the notebook: a scalar, or a small list, tuple, set or dict
    of scalars. A set is kept in its iteration order, which is the order the UDF sees."""
    if isinstance(v, (list, tuple, set, frozenset)):
        if len(v) > _MAX_ITEMS:
            raise Unsupported(f"a captured collection of more than {_MAX_ITEMS} items")
        return PyVal("seq", None, F, items=tuple(const(x) for x in v))
    if isinstance(v, dict):
        if len(v) > _MAX_ITEMS:
            raise Unsupported(f"a captured dict of more than {_MAX_ITEMS} items")
        return PyVal("dict", None, F, items=tuple((const(k), const(x)) for k, x in v.items()))
    return const(v)


@dataclass
class State:
    env: dict[str, PyVal]
    live: z3.BoolRef


@dataclass
class Outcome:
    returns: list[tuple[z3.BoolRef, PyVal]] = field(default_factory=list)
    errors: list[z3.BoolRef] = field(default_factory=list)
    errors_before_return: list[int] = field(default_factory=list)

    def fail_when(self, live: z3.BoolRef, cond: z3.BoolRef) -> None:
        self.errors.append(z3.And(live, cond))

    def add_return(self, live: z3.BoolRef, value: PyVal) -> None:
        """Record a return, and how many errors were recorded before it: only those can
        have been raised on the path that reaches it (used by the row-iteration model)."""
        self.returns.append((live, value))
        self.errors_before_return.append(len(self.errors))


# ----------------------------------------------------------------------------- entry point


def interpret_call(source: str, args: tuple[Cell, ...], dtype: str,
                   arg_types: tuple[str, ...] | None = None, arrow: bool = True) -> tuple[Cell, z3.BoolRef]:
    """The UDF's result cell for symbolic argument cells, and when the call raises.
    `arrow`: the UDF is Arrow-optimised (Spark 4's default) rather than pickled, which
    changes how its result is converted (`_to_column`)."""
    out = run_body(source, args, arg_types)
    cell = _to_column(out, dtype, arrow)
    return cell, z3.Or(*out.errors) if out.errors else F


def run_body(source: str, args: tuple[Cell, ...], arg_types: tuple[str, ...] | None = None,
             names: dict[str, PyVal] | None = None) -> Outcome:
    """Every return of the UDF (falling off the end included) and every error, for symbolic
    arguments; `names` are globals the body may read (a collected table, say)."""
    fn = parse_udf(source)
    params = [a.arg for a in fn.args.args]
    if len(params) != len(args) or fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs:
        raise Unsupported("UDF signature does not match its call")
    types = arg_types or tuple(_type_of_sort(a.value.sort()) for a in args)
    env = {**_captured_env(source), **(names or {}), **{p: _param(a, t) for p, a, t in zip(params, args, types)}}
    out = Outcome()
    body = fn.body if isinstance(fn, ast.FunctionDef) else [ast.Return(fn.body)]
    end = _run(body, State(env, T), out)
    # falling off the end of a function returns None
    out.add_return(end.live, NONE)
    return out


def branch_tests(source: str, args: tuple[Cell, ...], arg_types: tuple[str, ...] | None = None) -> list[z3.BoolRef]:
    """When each `if`/`elif` test and conditional expression of the UDF holds, in source order,
    read on the parameters alone: a test that reads a local variable of the body is left out
    (paper, Section 4.4.1: components from the operator). These are only candidates' parts.
    """
    fn = parse_udf(source)
    params = [a.arg for a in fn.args.args]
    if len(params) != len(args):
        raise Unsupported("UDF signature does not match its call")
    types = arg_types or tuple(_type_of_sort(a.value.sort()) for a in args)
    env = {**_captured_env(source), **{p: _param(a, t) for p, a, t in zip(params, args, types)}}
    tests = sorted((n.test for n in ast.walk(fn) if isinstance(n, (ast.If, ast.IfExp))),
                   key=lambda t: (t.lineno, t.col_offset))
    found = []
    for test in tests:
        try:
            found.append(_truthy(_expr(test, State(dict(env), T), Outcome())))
        except (Unsupported, z3.Z3Exception):
            continue  # reads a local, or something not modelled: not a component
    return found


@lru_cache(maxsize=256)
def parse_udf(source: str) -> ast.FunctionDef | ast.Lambda:
    """The function a UDF's source defines: a `def`, or the single lambda in the snippet."""
    tree = ast.parse(textwrap.dedent(source))
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(defs) == 1:
        return defs[0]
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    if len(lambdas) == 1:
        return lambdas[0]
    raise Unsupported("cannot find a single function in the UDF source")


@lru_cache(maxsize=256)
def _constants_of(source: str) -> tuple[tuple[str, object], ...]:
    tree = ast.parse(textwrap.dedent(source))
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found.append((node.targets[0].id, ast.literal_eval(node.value)))
            except ValueError:
                continue  # not a literal: the name stays unknown, and reading it is unsupported
    return tuple(found)


def _captured_env(source: str) -> dict[str, PyVal]:
    env = {}
    for name, v in udf_constants(source).items():
        try:
            env[name] = captured(v)
        except Unsupported:
            continue  # reading it is then unsupported, and only then
    return env


def udf_constants(source: str) -> dict[str, object]:
    """The constants the tracer recorded in front of the function (`NAME = literal` lines):
    the values of the notebook's globals the UDF reads, as Spark shipped them.

    >>> udf_constants("LIMITS = {'a': 1}\\ndef f(k):\\n    return LIMITS.get(k, 0)")
    {'LIMITS': {'a': 1}}
    """
    return dict(_constants_of(source))


def _param(cell: Cell, dtype: str) -> PyVal:
    if dtype in INTEGRAL:
        return PyVal("int", cell.value, z3.Not(cell.notnull))
    if dtype in FRACTIONAL:
        return PyVal("float", cell.value, z3.Not(cell.notnull))
    if dtype == "string":
        return PyVal("str", cell.value, z3.Not(cell.notnull))
    if dtype == "boolean":
        return PyVal("bool", cell.value, z3.Not(cell.notnull))
    # dates arrive as datetime.date, decimals as Decimal: not modelled yet
    raise Unsupported(f"UDF argument of type {dtype}")


def _type_of_sort(sort: z3.SortRef) -> str:
    return {z3.IntSort(): "long", z3.RealSort(): "double", z3.StringSort(): "string",
            z3.BoolSort(): "boolean"}.get(sort, "other")


def _to_column(out: Outcome, dtype: str, arrow: bool = True) -> Cell:
    """Fold the returns into one cell, converting Python values as Spark does for `dtype`.

    The two ways Spark runs a Python UDF convert differently (checked on PySpark 4.3):
    Arrow-optimised (the default) turns an int into a double exactly and raises on an int
    outside the declared integer type; pickled gives NULL for an int in a double column,
    wraps an int that fits 64 bits into byte, short or int, and gives NULL for an int beyond
    64 bits."""
    want = ("int" if dtype in INTEGRAL else "float" if dtype in FRACTIONAL else
            "str" if dtype == "string" else "bool" if dtype == "boolean" else None)
    if want is None:
        raise Unsupported(f"UDF return type {dtype}")
    sort = {"int": z3.IntSort(), "float": z3.RealSort(), "str": z3.StringSort(), "bool": z3.BoolSort()}[want]
    value: z3.ExprRef = default_value(sort)
    notnull: z3.BoolRef = F
    for cond, v in reversed(out.returns):
        if want == "float" and v.kind == "int":
            v = _as_float(v) if arrow else NONE
        if want == "float" and v.int_or_float and not arrow:
            raise Unsupported("a pickled UDF's result may be an int or a float, which convert differently")
        if v.kind not in (want, "none"):
            # other mismatches (a float for IntegerType...) convert in ways not modelled: refuse
            raise Unsupported(f"UDF returns {v.kind} for a {dtype} column")
        v_value = v.value if v.value is not None else default_value(sort)
        value = z3.If(cond, v_value, value)
        notnull = z3.If(cond, z3.Not(v.none), notnull)
    if dtype in INTEGER_BITS:
        bits = INTEGER_BITS[dtype]
        in_range = z3.And(value >= -(2 ** (bits - 1)), value < 2 ** (bits - 1))
        if arrow:
            # Spark raises when a UDF returns an int outside the declared type's range
            out.errors.append(z3.And(notnull, z3.Not(in_range)))
        else:
            value, notnull = _pickled_int(value, notnull, in_range, bits)
    return Cell(value, z3.simplify(notnull))


def _pickled_int(value: z3.ArithRef, notnull: z3.BoolRef, in_range: z3.BoolRef,
                 bits: int) -> tuple[z3.ArithRef, z3.BoolRef]:
    """A pickled UDF's int result in a `bits`-wide column: wrapped when it fits 64 bits and the
    column is narrower, NULL beyond 64 bits."""
    if bits == 64:
        return value, z3.And(notnull, in_range)
    fits64 = z3.And(value >= -(2 ** 63), value < 2 ** 63)
    half = 2 ** (bits - 1)
    wrapped = (value + half) % (2 * half) - half
    return z3.If(in_range, value, wrapped), z3.And(notnull, z3.Or(in_range, fits64))


# ----------------------------------------------------------------------------- statements


def _run(stmts: list[ast.stmt], st: State, out: Outcome) -> State:
    for s in stmts:
        if z3.is_false(z3.simplify(st.live)):
            break
        st = _stmt(s, st, out)
    return st


def _stmt(s: ast.stmt, st: State, out: Outcome) -> State:
    if isinstance(s, ast.Return):
        out.add_return(st.live, _expr(s.value, st, out) if s.value is not None else NONE)
        return State(st.env, F)
    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
        return State({**st.env, s.targets[0].id: _expr(s.value, st, out)}, st.live)
    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
        return State({**st.env, s.target.id: _expr(s.value, st, out)}, st.live)
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
        left = _lookup(s.target.id, st)
        value = _binop(s.op, left, _expr(s.value, st, out), st, out)
        return State({**st.env, s.target.id: value}, st.live)
    if isinstance(s, ast.If):
        cond = _truthy(_expr(s.test, st, out))
        then = _run(s.body, State(dict(st.env), z3.And(st.live, cond)), out)
        other = _run(s.orelse, State(dict(st.env), z3.And(st.live, z3.Not(cond))), out)
        return _merge_states(then, other)
    if isinstance(s, ast.For) and isinstance(s.iter, ast.Name) and hasattr(st.env.get(s.iter.id), "run_loop"):
        # a loop over a table collected into Python: the table value knows how it is iterated
        return st.env[s.iter.id].run_loop(s, st, out)  # type: ignore[attr-defined]
    if isinstance(s, ast.For) and isinstance(s.target, ast.Name) and not s.orelse:
        for item in _literal_iterable(s.iter, st, out):
            st = State({**st.env, s.target.id: item}, st.live)
            if any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(s)):
                raise Unsupported("break/continue in loops")
            st = _run(s.body, st, out)
        return st
    if isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
        return st
    raise Unsupported(f"statement {type(s).__name__} at line {getattr(s, 'lineno', '?')}")


def _merge_states(a: State, b: State) -> State:
    live = z3.Or(a.live, b.live)
    env: dict[str, PyVal] = {}
    for name in a.env.keys() & b.env.keys():
        env[name] = _ite(a.live, a.env[name], b.env[name])
    # a name bound on one path only is unbound after the merge; using it raises Unsupported
    return State(env, z3.simplify(live))


def _ite(c: z3.BoolRef, a: PyVal, b: PyVal) -> PyVal:
    if a is b:
        return a
    if a.kind == "none" and b.kind == "none":
        return NONE
    if {a.kind, b.kind} & {"seq", "dict"}:
        raise Unsupported("a collection that differs between paths")
    kinds = {a.kind, b.kind} - {"none"}
    if len(kinds) != 1:
        if kinds == {"int", "float"}:
            a, b = _as_float(a), _as_float(b)
        else:
            raise Unsupported(f"a value that is {a.kind} on one path and {b.kind} on another")
    kind = (kinds - {"none"}).pop() if len(kinds) == 1 else "float"
    sort = _sort(kind)
    av = a.value if a.value is not None else default_value(sort)
    bv = b.value if b.value is not None else default_value(sort)
    return PyVal(kind, z3.If(c, av, bv), z3.If(c, a.none, b.none),
                 int_or_float=len(kinds) > 1 or a.int_or_float or b.int_or_float)


def _literal_iterable(node: ast.expr, st: State, out: Outcome) -> list[PyVal]:
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_expr(e, st, out) for e in node.elts]
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
          and all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in node.args)):
        items = [const(i) for i in range(*[a.value for a in node.args])]  # type: ignore[union-attr]
    elif isinstance(node, ast.Name) and _lookup(node.id, st).kind == "seq":
        items = list(_lookup(node.id, st).items)
    elif isinstance(node, ast.Name) and _lookup(node.id, st).kind == "dict":
        items = [k for k, _ in _lookup(node.id, st).items]
    else:
        raise Unsupported("loops over anything but a literal list, a range or a captured collection")
    if len(items) > _MAX_UNROLL:
        raise Unsupported(f"loop of more than {_MAX_UNROLL} iterations")
    return items


# ----------------------------------------------------------------------------- expressions


def _lookup(name: str, st: State) -> PyVal:
    if name in st.env:
        return st.env[name]
    raise Unsupported(f"name {name!r} is not a parameter or a local of the UDF")


def _expr(e: ast.expr, st: State, out: Outcome) -> PyVal:
    if isinstance(e, ast.Constant):
        return const(e.value)
    if isinstance(e, ast.Name):
        return _lookup(e.id, st)
    if isinstance(e, ast.BinOp):
        return _binop(e.op, _expr(e.left, st, out), _expr(e.right, st, out), st, out)
    if isinstance(e, ast.UnaryOp):
        v = _expr(e.operand, st, out)
        if isinstance(e.op, ast.Not):
            return PyVal("bool", z3.Not(_truthy(v)), F)
        _require_number(v, st, out)
        mixed = v.int_or_float
        v = _as_int(v)  # -True is -1 and +True is 1: unary arithmetic makes a bool an int
        if isinstance(e.op, ast.USub):
            return PyVal(v.kind, -v.value, F, int_or_float=mixed)  # type: ignore[operator]
        if isinstance(e.op, ast.UAdd):
            return PyVal(v.kind, v.value, F, int_or_float=mixed)
    if isinstance(e, ast.BoolOp):
        return _boolop(e, st, out)
    if isinstance(e, ast.Compare):
        return _compare(e, st, out)
    if isinstance(e, ast.IfExp):
        cond = _truthy(_expr(e.test, st, out))
        a = _expr(e.body, State(st.env, z3.And(st.live, cond)), out)
        b = _expr(e.orelse, State(st.env, z3.And(st.live, z3.Not(cond))), out)
        return _ite(cond, a, b)
    if isinstance(e, ast.Call):
        return _call(e, st, out)
    if isinstance(e, ast.Attribute) and isinstance(e.ctx, ast.Load):
        if hasattr(tuple, e.attr) or e.attr.startswith("_") or e.attr == "asDict":
            # a Row is a tuple: `r.count` is tuple.count, not a field named count
            raise Unsupported(f"attribute {e.attr!r} names a method of the row, not a field")
        return _field(_expr(e.value, st, out), e.attr)
    if isinstance(e, ast.Subscript):
        return _subscript(e, st, out)
    raise Unsupported(f"expression {type(e).__name__}")


def _subscript(e: ast.Subscript, st: State, out: Outcome) -> PyVal:
    recv = _expr(e.value, st, out)
    if getattr(recv, "field", None) is not None and isinstance(e.slice, ast.Constant) \
            and isinstance(e.slice.value, str):
        return _field(recv, e.slice.value)  # row["name"] on a collected row
    if recv.kind == "dict" and not isinstance(e.slice, ast.Slice):
        key = _expr(e.slice, st, out)
        out.fail_when(st.live, z3.Not(_has_key(recv, key)))  # KeyError
        return _lookup_key(recv, key, NONE)
    if recv.kind == "str":
        out.fail_when(st.live, recv.none)  # TypeError: 'NoneType' object is not subscriptable
        length = z3.Length(recv.value)
        if isinstance(e.slice, ast.Slice):
            if e.slice.step is not None:
                raise Unsupported("slices with a step")
            start = _slice_bound(e.slice.lower, z3.IntVal(0), length, st, out)
            end = _slice_bound(e.slice.upper, length, length, st, out)
            return PyVal("str", z3.SubString(recv.value, start, z3.If(end > start, end - start, 0)), F)
        index = _as_int(_expr(e.slice, st, out))
        if index.kind != "int":
            raise Unsupported("a string index that is not an int")
        out.fail_when(st.live, z3.Or(index.none, index.value >= length, index.value < -length))  # IndexError
        at = z3.If(index.value < 0, length + index.value, index.value)
        return PyVal("str", z3.SubString(recv.value, at, 1), F)
    if recv.kind == "seq" and not isinstance(e.slice, ast.Slice):
        index = _as_int(_expr(e.slice, st, out))
        if index.kind != "int":
            raise Unsupported("a list index that is not an int")
        n = len(recv.items)
        out.fail_when(st.live, z3.Or(index.none, index.value >= n, index.value < -n))  # IndexError
        result = recv.items[-1] if recv.items else NONE
        for i, item in reversed(list(enumerate(recv.items))):
            result = _ite(z3.Or(index.value == i, index.value == i - n), item, result)
        return result
    raise Unsupported(f"subscript of {recv.kind}")


def _slice_bound(node: ast.expr | None, default: z3.ArithRef, length: z3.ArithRef,
                 st: State, out: Outcome) -> z3.ArithRef:
    """Python's clamping of a slice bound into [0, len]; negative bounds count from the end."""
    if node is None:
        return default
    b = _as_int(_expr(node, st, out))
    if b.kind != "int":
        raise Unsupported("a slice bound that is not an int")
    x = z3.If(b.value < 0, length + b.value, b.value)
    # a bound that is None at run time means the default, as a literal None does
    return z3.If(b.none, default, z3.If(x < 0, 0, z3.If(x > length, length, x)))


def _has_key(d: PyVal, key: PyVal) -> z3.BoolRef:
    return z3.Or(*[_equal(key, k) for k, _ in d.items]) if d.items else F


def _lookup_key(d: PyVal, key: PyVal, missing: PyVal) -> PyVal:
    """d[key] as a chain of tests, the first equal key winning (keys are distinct)."""
    result = missing
    for k, v in reversed(d.items):
        result = _ite(_equal(key, k), v, result)
    return result


def _field(value: PyVal, name: str) -> PyVal:
    """`row.name` or `row["name"]`: only rows of a collected table have fields (row_iter_ops.py)."""
    read = getattr(value, "field", None)
    if read is None:
        raise Unsupported(f"attribute {name!r} of a {value.kind}")
    return read(name)


def _binop(op: ast.operator, a: PyVal, b: PyVal, st: State, out: Outcome) -> PyVal:
    if isinstance(op, ast.Add) and a.kind == "str" and b.kind == "str":
        out.fail_when(st.live, z3.Or(a.none, b.none))
        return PyVal("str", z3.Concat(a.value, b.value), F)
    _require_number(a, st, out)
    _require_number(b, st, out)
    # an operand that may be an int keeps the result possibly an int (unless `/`)
    mixed = a.int_or_float or b.int_or_float
    a, b = _same_number_kind(a, b)
    x, y = a.value, b.value
    if isinstance(op, ast.Add):
        return PyVal(a.kind, x + y, F, int_or_float=mixed)
    if isinstance(op, ast.Sub):
        return PyVal(a.kind, x - y, F, int_or_float=mixed)
    if isinstance(op, ast.Mult):
        return PyVal(a.kind, x * y, F, int_or_float=mixed)
    if isinstance(op, ast.Div):
        out.fail_when(st.live, y == 0)  # ZeroDivisionError
        fa, fb = _as_float(a), _as_float(b)
        return PyVal("float", fa.value / fb.value, F)
    if isinstance(op, (ast.FloorDiv, ast.Mod)) and a.kind == "int":
        out.fail_when(st.live, y == 0)
        # Python rounds toward -inf for either sign of the divisor
        q = z3.If(y > 0, x / y, (-x) / (-y))
        return PyVal("int", q if isinstance(op, ast.FloorDiv) else x - y * q, F)
    raise Unsupported(f"operator {type(op).__name__} on {a.kind}")


def _boolop(e: ast.BoolOp, st: State, out: Outcome) -> PyVal:
    # Python's and/or return an operand and short-circuit: later operands are
    # evaluated (and may raise) only when the earlier ones let them
    first = _expr(e.values[0], st, out)
    if len(e.values) == 1:
        return first
    rest_expr = ast.BoolOp(op=e.op, values=e.values[1:])
    go_on = _truthy(first) if isinstance(e.op, ast.And) else z3.Not(_truthy(first))
    rest = _expr(rest_expr, State(st.env, z3.And(st.live, go_on)), out)
    if first.kind == "bool" and rest.kind == "bool" and z3.is_false(first.none) and z3.is_false(rest.none):
        # None and True is None, not False: the plain conjunction only for bools that are never None
        f = _truthy(first)
        return PyVal("bool", z3.And(f, _truthy(rest)) if isinstance(e.op, ast.And) else z3.Or(f, _truthy(rest)), F)
    return _ite(go_on, rest, first)


def _compare(e: ast.Compare, st: State, out: Outcome) -> PyVal:
    result: z3.BoolRef = T
    left = _expr(e.left, st, out)
    live = st.live
    for op, right_node in zip(e.ops, e.comparators):
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right_node, (ast.List, ast.Tuple, ast.Set)):
            right = NONE  # a literal collection is read element by element by _contains
        else:
            right = _expr(right_node, State(st.env, live), out)
        c = _compare_one(op, left, right, right_node, State(st.env, live), out)
        result = z3.And(result, c)
        live = z3.And(live, c)  # chained comparisons short-circuit
        left = right
    return PyVal("bool", result, F)


def _compare_one(op: ast.cmpop, a: PyVal, b: PyVal, b_node: ast.expr, st: State, out: Outcome) -> z3.BoolRef:
    if isinstance(op, (ast.Is, ast.IsNot)):
        if b.kind != "none" and a.kind != "none":
            raise Unsupported("`is` between values other than None")
        other = a if b.kind == "none" else b
        same = other.none
        return same if isinstance(op, ast.Is) else z3.Not(same)
    if isinstance(op, (ast.Eq, ast.NotEq)):
        eq = _equal(a, b)
        return eq if isinstance(op, ast.Eq) else z3.Not(eq)
    if isinstance(op, (ast.In, ast.NotIn)):
        found = _contains(a, b_node, st, out)
        return found if isinstance(op, ast.In) else z3.Not(found)
    # ordering comparisons raise TypeError on None
    out.fail_when(st.live, z3.Or(a.none, b.none))
    if a.kind == "str" and b.kind == "str":
        x, y = a.value, b.value  # Z3 orders strings lexicographically, as Python does
        return {ast.Lt: x < y, ast.LtE: x <= y, ast.Gt: x > y, ast.GtE: x >= y}[type(op)]
    _require_number(a, st, out)
    _require_number(b, st, out)
    a, b = _same_number_kind(a, b)
    x, y = a.value, b.value
    return {ast.Lt: x < y, ast.LtE: x <= y, ast.Gt: x > y, ast.GtE: x >= y}[type(op)]


def _equal(a: PyVal, b: PyVal) -> z3.BoolRef:
    if a.kind == "none" or b.kind == "none":
        return z3.And(a.none, b.none)
    a, b = _as_int(a), _as_int(b)
    if a.kind != b.kind:
        if {a.kind, b.kind} == {"int", "float"}:
            a, b = _as_float(a), _as_float(b)
        else:
            return z3.And(a.none, b.none)  # different Python types are never equal
    both = z3.And(z3.Not(a.none), z3.Not(b.none))
    return z3.Or(z3.And(a.none, b.none), z3.And(both, a.value == b.value))


def _contains(a: PyVal, container: ast.expr, st: State, out: Outcome) -> z3.BoolRef:
    if isinstance(container, (ast.List, ast.Tuple, ast.Set)):
        return z3.Or(*[_equal(a, _expr(x, st, out)) for x in container.elts]) if container.elts else F
    b = _expr(container, st, out)
    if b.kind == "seq":
        return z3.Or(*[_equal(a, x) for x in b.items]) if b.items else F
    if b.kind == "dict":
        return _has_key(b, a)
    if a.kind == "str" and b.kind == "str":
        out.fail_when(st.live, z3.Or(a.none, b.none))
        return z3.Contains(b.value, a.value)
    raise Unsupported("`in` over something other than a literal collection or a string")


def _call(e: ast.Call, st: State, out: Outcome) -> PyVal:
    if e.keywords:
        raise Unsupported("keyword arguments in calls")
    if isinstance(e.func, ast.Name):
        name = e.func.id
        args = [_expr(a, st, out) for a in e.args]
        if name == "abs" and len(args) == 1:
            _require_number(args[0], st, out)
            x = _as_int(args[0])
            return PyVal(x.kind, z3.If(x.value >= 0, x.value, -x.value), F, int_or_float=args[0].int_or_float)
        if name in ("min", "max") and len(args) >= 2:
            if any(a.kind == "bool" for a in args):
                # min/max return an operand: a bool stays a bool (max(True, 0) is True), which
                # Spark rejects for an integer column, while the model would give the int 1
                raise Unsupported(f"{name}() of a bool")
            acc = args[0]
            for nxt in args[1:]:
                for v in (acc, nxt):
                    _require_number(v, st, out)
                mixed = acc.int_or_float or nxt.int_or_float or acc.kind != nxt.kind
                x, y = _same_number_kind(acc, nxt)
                # min keeps the first of equal values, max too; values are numbers so ties are equal
                pick = (y.value < x.value) if name == "min" else (y.value > x.value)
                acc = PyVal(x.kind, z3.If(pick, y.value, x.value), F, int_or_float=mixed)
            return acc
        if name == "len" and len(args) == 1 and args[0].kind in ("seq", "dict"):
            return const(len(args[0].items))
        if name == "len" and len(args) == 1 and args[0].kind == "str":
            out.fail_when(st.live, args[0].none)
            return PyVal("int", z3.Length(args[0].value), F)
        if name == "float" and len(args) == 1 and args[0].kind in ("int", "float"):
            out.fail_when(st.live, args[0].none)
            return _as_float(PyVal(args[0].kind, args[0].value, F))
        if name == "bool" and len(args) == 1:
            return PyVal("bool", _truthy(args[0]), F)
        raise Unsupported(f"call of {name}()")
    if isinstance(e.func, ast.Attribute):
        recv = _expr(e.func.value, st, out)
        args = [_expr(a, st, out) for a in e.args]
        meth = e.func.attr
        if recv.kind == "dict" and meth == "get" and len(args) in (1, 2):
            return _lookup_key(recv, args[0], args[1] if len(args) == 2 else NONE)
        if recv.kind == "str":
            out.fail_when(st.live, recv.none)  # AttributeError on None
            if meth in ("startswith", "endswith") and len(args) == 1 and args[0].kind == "str":
                out.fail_when(st.live, args[0].none)  # TypeError: startswith arg must be str, not None
                fn = z3.PrefixOf if meth == "startswith" else z3.SuffixOf
                return PyVal("bool", fn(args[0].value, recv.value), F)
            if meth in ("lower", "upper", "strip") and not args:
                f = z3.Function(f"str_{meth}", z3.StringSort(), z3.StringSort())
                return PyVal("str", f(recv.value), F)
        raise Unsupported(f"method {meth}() on {recv.kind}")
    raise Unsupported("call of a computed function")


# ----------------------------------------------------------------------------- helpers


def _truthy(v: PyVal) -> z3.BoolRef:
    if v.kind == "none":
        return F
    if v.kind == "bool":
        return z3.And(z3.Not(v.none), v.value)
    if v.kind in ("int", "float"):
        return z3.And(z3.Not(v.none), v.value != 0)
    if v.kind == "str":
        return z3.And(z3.Not(v.none), z3.Length(v.value) > 0)
    if v.kind in ("seq", "dict"):
        return z3.BoolVal(bool(v.items))
    raise Unsupported(f"truth value of {v.kind}")


def _require_number(v: PyVal, st: State, out: Outcome) -> None:
    if v.kind not in ("int", "float", "bool", "none"):
        raise Unsupported(f"arithmetic on {v.kind}")
    out.fail_when(st.live, v.none)  # TypeError: unsupported operand type(s) ... 'NoneType'


def _as_int(v: PyVal) -> PyVal:
    if v.kind == "bool":  # bool is an int subclass in Python
        return PyVal("int", z3.If(v.value, z3.IntVal(1), z3.IntVal(0)), v.none)
    if v.kind == "none":
        raise Unsupported("arithmetic on a value that is always None")
    return v


def _same_number_kind(a: PyVal, b: PyVal) -> tuple[PyVal, PyVal]:
    """Python's numeric tower for a binary operation: bool is int, and int meets float as float."""
    a, b = _as_int(a), _as_int(b)
    if a.kind != b.kind:
        a, b = _as_float(a), _as_float(b)
    return a, b


def _as_float(v: PyVal) -> PyVal:
    if v.kind == "int":
        return PyVal("float", z3.ToReal(v.value), v.none)
    return v


def _sort(kind: str) -> z3.SortRef:
    return {"int": z3.IntSort(), "float": z3.RealSort(), "str": z3.StringSort(), "bool": z3.BoolSort()}[kind]
