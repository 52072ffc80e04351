"""Symbolic execution of Python UDF source, built on `ast`.

A UDF receives Python values (None for SQL NULL) and returns one; Spark turns
the result back into a column value of the declared type. The interpreter
follows every path of the body at once: `if` forks the state on a Z3
condition and merges it afterwards, `return` records (path condition, value).
It also records the conditions under which the body raises, and which exception
(arithmetic on None, division by zero, comparing None with `<`, a missing key),
because such a row makes the original job fail (docs/semantics.md, "Errors") unless
a `try`/`except` of the body catches it.

What Python does to values is in py_library.py (operators, `str`, dates, `math`, `re`,
built-ins); this module runs statements and expressions: assignments and tuple unpacking,
`if`, `for` over collections of known length, `try`/`except`/`else`, `raise`, `assert`,
`return` anywhere, helper functions (the recorded source's other functions, nested `def`s,
lambdas) and the modules the source imports. A call the model does not read is a black box
(py_values.opaque): an uninterpreted function of its arguments, so the rest of the body is
still read. A construct outside all of that raises `NotModelled`; the caller then treats the
whole UDF as a black box (an uninterpreted function).

>>> import z3
>>> from magicpush_lab.symbolic.values import Cell
>>> v = Cell(z3.Int("v"), z3.Bool("v_nn"))
>>> cell, error = interpret_call("def f(v):\\n    return v + 5 if v > 3 else v", (v,), "int", ("int",))
>>> z3.simplify(z3.substitute(cell.value, (z3.Int("v"), z3.IntVal(4))))
9
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import textwrap
from dataclasses import dataclass, replace
from functools import lru_cache

import z3

from magicpush_lab.ir.types import FRACTIONAL, INTEGER_BITS, INTEGRAL
from magicpush_lab.symbolic import py_library as L
from magicpush_lab.symbolic.py_values import (EXCEPTION_BASES, F, NONE, PYOBJ, T, UNKNOWN_ERROR, Outcome, PyVal,
                                              State, as_float, as_int, captured, const, forget_opaque_states,
                                              ite, ite_of, opaque, same_number_kind, seq, sort_of_kind, truthy)
from magicpush_lab.symbolic.values import Cell, NotModelled, default_value

__all__ = ["PyVal", "State", "Outcome", "NONE", "T", "F", "const", "captured", "interpret_call", "run_body",
           "branch_tests", "parse_udf", "udf_constants", "unmodelled", "black_box_places", "python_type_of"]

_MAX_UNROLL = 64
_MAX_CALL_DEPTH = 8
_sort = sort_of_kind  # the Z3 sort of a kind (row_iter_ops.py reads it)
_truthy = truthy
_as_int, _as_float = as_int, as_float


# ----------------------------------------------------------------------------- functions and modules


@dataclass(frozen=True)
class Function:
    """A function the body can call: a `def` or a lambda of the recorded source, the names it
    sees besides its parameters (the recorded source's own, and for a nested one its enclosing
    function's at the call), and the parameters' defaults."""

    node: ast.FunctionDef | ast.Lambda
    name: str
    globals: dict
    defaults: tuple[PyVal, ...]
    nested_in: int | None = None  # the frame it was defined in (its free names are read there)


# names of calls that give a different value each time: a UDF calling them is not deterministic
_NONDETERMINISTIC = ("random", "time", "uuid", "secrets", "os", "numpy.random", "datetime.datetime.now",
                     "datetime.datetime.today", "datetime.datetime.utcnow", "datetime.date.today")

_BUILTINS = {"abs", "min", "max", "len", "float", "int", "str", "bool", "round", "isinstance", "sum", "any",
             "all", "tuple", "list", "set", "frozenset", "print", "range", "sorted", "enumerate", "zip", "map",
             "filter", "type", "repr", "hash", "id", "open", "input", "getattr", "setattr", "hasattr", "iter",
             "next", "ord", "chr", "divmod", "pow", "format", "reversed", "dict", "object", "vars", "globals",
             "locals", "eval", "exec", "super", "callable", "issubclass", "hex", "oct", "bin"}
_TYPE_NAMES = {"int", "float", "str", "bool", "tuple", "list", "dict", "set", "frozenset"}


def _module(dotted: str) -> PyVal:
    if dotted.startswith(_NONDETERMINISTIC) and any(dotted == p or dotted.startswith(p + ".")
                                                    for p in _NONDETERMINISTIC):
        raise NotModelled(f"{dotted} gives a different value at each call")
    return PyVal("module", None, F, extra=dotted)


def _bind_import(node: ast.Import | ast.ImportFrom, env: dict[str, PyVal]) -> None:
    if isinstance(node, ast.Import):
        for a in node.names:
            env[a.asname or a.name.split(".")[0]] = _module(a.name if a.asname else a.name.split(".")[0])
        return
    if node.level or not node.module:
        raise NotModelled("a relative import")
    for a in node.names:
        if a.name == "*":
            raise NotModelled("import *")
        env[a.asname or a.name] = _module(f"{node.module}.{a.name}")


# ----------------------------------------------------------------------------- entry points


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
        raise NotModelled("UDF signature does not match its call")
    types = arg_types or tuple(_type_of_sort(a.value.sort()) for a in args)
    module = {**module_env(source), **(names or {})}
    env = {**module, **{p: _param(a, t) for p, a, t in zip(params, args, types)}}
    out = Outcome()
    frame = _Frame(fn, module, 0, _local_names(fn))
    end = _run(_body_of(fn), State(env, T), out, frame)
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
        raise NotModelled("UDF signature does not match its call")
    types = arg_types or tuple(_type_of_sort(a.value.sort()) for a in args)
    module = module_env(source)
    env = {**module, **{p: _param(a, t) for p, a, t in zip(params, args, types)}}
    frame = _Frame(fn, module, 0, _local_names(fn))
    tests = sorted((n.test for n in ast.walk(fn) if isinstance(n, (ast.If, ast.IfExp))),
                   key=lambda t: (t.lineno, t.col_offset))
    found = []
    for test in tests:
        try:
            found.append(_truth(_expr(test, State(dict(env), T), Outcome(), frame), State(env, T), Outcome()))
        except (NotModelled, z3.Z3Exception):
            continue  # reads a local, or something not modelled: not a component
    return found


def unmodelled(source: str, arg_types: tuple[str, ...]) -> tuple[list[tuple[str, int]], str | None]:
    """What of the UDF the model reads as black boxes ((source text, line in the function)),
    and why the UDF is not read at all (None when it is)."""
    from magicpush_lab.symbolic.values import fresh_cell

    try:
        out = run_body(source, tuple(fresh_cell(f"a{i}", t) for i, t in enumerate(arg_types)), arg_types)
    except NotModelled as err:
        return [], str(err)
    first = parse_udf(source).lineno
    shortest: dict[int, str] = {}
    for text, line in out.unmodelled:  # the innermost black box of each line says what it is
        if line not in shortest or len(text) < len(shortest[line]):
            shortest[line] = text
    return [(text, line - first + 1) for line, text in sorted(shortest.items())], None


def black_box_places(source: str, arg_types: tuple[str, ...]) -> tuple[list[tuple[str, str, int, str | None]], str | None]:
    r"""unmodelled(), each black box placed in the function of the recorded source that holds it:
    (source text, that function's name, line in it, the lambda's code when it is a lambda, else
    None). A helper the UDF calls, or a step of an RDD round trip (translate/rdd.py writes each
    step's function above the function it synthesizes), is named itself, not the UDF.

    >>> helper = "def helper(d):\n    return d.isocalendar()[1]\ndef f(d):\n    return helper(d) > 2"
    >>> black_box_places(helper, ("date",))
    ([('d.isocalendar()', 'helper', 2, None)], None)
    >>> step = "_step0 = lambda d: d.isocalendar()[1]\ndef _rdd_w(day):\n    return _step0(day)"
    >>> black_box_places(step, ("date",))[0]
    [('d.isocalendar()', '<lambda>', 1, 'lambda d: d.isocalendar()[1]')]
    """
    from magicpush_lab.symbolic.values import fresh_cell

    try:
        out = run_body(source, tuple(fresh_cell(f"a{i}", t) for i, t in enumerate(arg_types)), arg_types)
    except NotModelled as err:
        return [], str(err)
    shortest: dict[int, str] = {}
    for text, line in out.unmodelled:  # the innermost black box of each line says what it is
        if line not in shortest or len(text) < len(shortest[line]):
            shortest[line] = text
    tree = ast.parse(textwrap.dedent(source))
    entry = parse_udf(source)
    placed = []
    for line, text in sorted(shortest.items()):
        owner = next((s for s in tree.body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
        lambdas = [n for n in ast.walk(owner) if isinstance(n, ast.Lambda)
                   and n.lineno <= line <= (n.end_lineno or n.lineno)] if owner is not None else []
        if isinstance(owner, ast.FunctionDef):
            placed.append((text, owner.name, line - owner.lineno + 1, None))
        elif lambdas:
            placed.append((text, "<lambda>", line - lambdas[-1].lineno + 1, ast.unparse(lambdas[-1])))
        else:
            name = entry.name if isinstance(entry, ast.FunctionDef) else "<lambda>"
            placed.append((text, name, line - entry.lineno + 1, None))
    return placed, None


@lru_cache(maxsize=256)
def parse_udf(source: str) -> ast.FunctionDef | ast.Lambda:
    """The function a UDF's source defines: the last function of the recorded source (the
    tracer writes helpers and constants in front of it), else the single lambda in the snippet."""
    tree = ast.parse(textwrap.dedent(source))
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.FunctionDef):
        return last
    if isinstance(last, (ast.Assign, ast.Expr)) and isinstance(last.value, ast.Lambda):
        return last.value
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    if len(lambdas) == 1:
        return lambdas[0]
    raise NotModelled("cannot find a single function in the UDF source")


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


def udf_constants(source: str) -> dict[str, object]:
    """The constants the tracer recorded in front of the function (`NAME = literal` lines):
    the values of the notebook's globals the UDF reads, as Spark shipped them.

    >>> udf_constants("LIMITS = {'a': 1}\\ndef f(k):\\n    return LIMITS.get(k, 0)")
    {'LIMITS': {'a': 1}}
    """
    return dict(_constants_of(source))


def module_env(source: str) -> dict[str, PyVal]:
    """The names the recorded source binds besides the UDF: constants, imported modules, and
    functions the UDF may call."""
    tree = ast.parse(textwrap.dedent(source))
    entry = parse_udf(source)
    env: dict[str, PyVal] = {}
    for name, v in udf_constants(source).items():
        try:
            env[name] = captured(v)
        except NotModelled:
            continue  # reading it is then unsupported, and only then
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            _bind_import(node, env)  # a module whose calls differ each time refuses the UDF
        elif isinstance(node, ast.FunctionDef) and node is not entry:
            env[node.name] = _function(node, node.name, env, None)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda) and node.value is not entry \
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            env[node.targets[0].id] = _function(node.value, node.targets[0].id, env, None)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in env \
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            env[node.targets[0].id] = env[node.value.id]  # another name for a function
    return env


def _function(node: ast.FunctionDef | ast.Lambda, name: str, globals_: dict, nested_in: int | None,
              defaults: tuple[PyVal, ...] = ()) -> PyVal:
    return PyVal("func", None, F, extra=Function(node, name, globals_, defaults, nested_in))


def _param(cell: Cell, dtype: str) -> PyVal:
    if dtype in INTEGRAL:
        return PyVal("int", cell.value, z3.Not(cell.notnull))
    if dtype in FRACTIONAL:
        return PyVal("float", cell.value, z3.Not(cell.notnull), extra="param")
    if dtype == "string":
        return PyVal("str", cell.value, z3.Not(cell.notnull))
    if dtype == "boolean":
        return PyVal("bool", cell.value, z3.Not(cell.notnull))
    if dtype == "date":
        return PyVal("date", cell.value, z3.Not(cell.notnull))
    # a timestamp arrives in the worker's local time, a decimal as Decimal, an array as a list:
    # values the model knows only as themselves
    safe = "".join(ch if ch.isalnum() else "_" for ch in dtype)
    inject = z3.Function(f"box_param_{safe}", cell.value.sort(), PYOBJ)
    none = z3.Not(cell.notnull)
    return PyVal("opaque", z3.If(none, z3.Const("py_None", PYOBJ), inject(cell.value)), none, extra=dtype)


def _type_of_sort(sort: z3.SortRef) -> str:
    return {z3.IntSort(): "long", z3.RealSort(): "double", z3.StringSort(): "string",
            z3.BoolSort(): "boolean"}.get(sort, "other")


def python_type_of(dtype: str) -> str | None:
    """The Python type Spark expects for a column type (int, float, str, bool, date)."""
    return ("int" if dtype in INTEGRAL else "float" if dtype in FRACTIONAL else "str" if dtype == "string"
            else "bool" if dtype == "boolean" else "date" if dtype == "date" else None)


def _to_column(out: Outcome, dtype: str, arrow: bool = True) -> Cell:
    """Fold the returns into one cell, converting Python values as Spark does for `dtype`.

    The two ways Spark runs a Python UDF convert differently (checked on PySpark 4.3):
    Arrow-optimised (the default) turns an int into a double exactly and raises on an int
    outside the declared integer type; pickled gives NULL for an int in a double column,
    wraps an int that fits 64 bits into byte, short or int, and gives NULL for an int beyond
    64 bits."""
    want = python_type_of(dtype)
    if want is None or (want == "date" and not arrow):
        raise NotModelled(f"UDF return type {dtype}")
    sort = sort_of_kind(want)
    value: z3.ExprRef = default_value(sort)
    notnull: z3.BoolRef = F
    for cond, v in reversed(out.returns):
        if want == "float" and v.kind == "int":
            v = as_float(v) if arrow else NONE
        if want == "float" and v.int_or_float and not arrow:
            raise NotModelled("a pickled UDF's result may be an int or a float, which convert differently")
        if v.kind == "opaque":
            v = _converted(v, dtype, cond, out)
        if v.kind not in (want, "none"):
            # other mismatches (a float for IntegerType...) convert in ways not modelled: refuse
            raise NotModelled(f"UDF returns {v.kind} for a {dtype} column")
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


def _converted(v: PyVal, dtype: str, cond: z3.BoolRef, out: Outcome) -> PyVal:
    """An object the model does not know, converted by Spark to `dtype`: some value or NULL,
    or an error (a wrong type), as the same unknown function of the object everywhere."""
    safe = "".join(ch if ch.isalnum() else "_" for ch in dtype)
    want = python_type_of(dtype)
    sort = sort_of_kind(want)  # type: ignore[arg-type]
    value = z3.Function(f"py_to_{safe}", PYOBJ, sort)(v.value)
    null = z3.Function(f"py_to_{safe}_null", PYOBJ, z3.BoolSort())(v.value)
    out.errors.append(z3.And(cond, z3.Not(v.none), z3.Function(f"py_to_{safe}_raises", PYOBJ, z3.BoolSort())(v.value)))
    return PyVal(want, value, z3.Or(v.none, null))  # type: ignore[arg-type]


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


# ----------------------------------------------------------------------------- frames


@dataclass(frozen=True)
class _Frame:
    """The function being run: its node, the names it sees besides its locals, a number that
    tells its calls apart, and the names it binds (its locals)."""

    fn: ast.FunctionDef | ast.Lambda
    globals: dict
    number: int
    locals: frozenset[str]
    depth: int = 0


def _local_names(fn: ast.FunctionDef | ast.Lambda) -> frozenset[str]:
    names = {a.arg for a in fn.args.args}
    body = fn.body if isinstance(fn, ast.FunctionDef) else [fn.body]
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.Lambda)) and n is not fn:
            if isinstance(n, ast.FunctionDef):
                names.add(n.name)
            continue  # its own locals are its own
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names |= {a.asname or a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
        stack.extend(ast.iter_child_nodes(n))
    return frozenset(names)


def _body_of(fn: ast.FunctionDef | ast.Lambda) -> list[ast.stmt]:
    if isinstance(fn, ast.FunctionDef):
        return fn.body
    return [ast.Return(fn.body, lineno=fn.lineno, col_offset=fn.col_offset)]


def _where(node: ast.AST) -> tuple[str, int]:
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - a description only
        text = type(node).__name__
    return (text if len(text) <= 80 else text[:77] + "..."), getattr(node, "lineno", 0)


# ----------------------------------------------------------------------------- statements


def _run(stmts: list[ast.stmt], st: State, out: Outcome, frame: _Frame | None = None) -> State:
    for s in stmts:
        if z3.is_false(z3.simplify(st.live)):
            break
        st = _stmt(s, st, out, frame)
    return st


def _stmt(s: ast.stmt, st: State, out: Outcome, frame: _Frame | None = None) -> State:
    if isinstance(s, ast.Return):
        out.add_return(st.live, _expr(s.value, st, out, frame) if s.value is not None else NONE)
        return State(st.env, F)
    if isinstance(s, ast.Assign):
        value = _expr(s.value, st, out, frame)
        env = dict(st.env)
        for target in s.targets:
            env = _assign(target, value, State(env, st.live), out)
        return State(env, st.live)
    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
        return State({**st.env, s.target.id: _expr(s.value, st, out, frame)}, st.live)
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
        left = _lookup(s.target.id, st, frame)
        value = _binop(s.op, left, _expr(s.value, st, out, frame), st, out, s)
        return State({**st.env, s.target.id: value}, st.live)
    if isinstance(s, ast.If):
        cond = _truth(_expr(s.test, st, out, frame), st, out)
        then = _run(s.body, State(dict(st.env), z3.And(st.live, cond)), out, frame)
        other = _run(s.orelse, State(dict(st.env), z3.And(st.live, z3.Not(cond))), out, frame)
        return _merge_states(then, other)
    if isinstance(s, ast.For) and isinstance(s.iter, ast.Name) and hasattr(st.env.get(s.iter.id), "run_loop"):
        # a loop over a table collected into Python: the table value knows how it is iterated
        return st.env[s.iter.id].run_loop(s, st, out)  # type: ignore[attr-defined]
    if isinstance(s, ast.For) and not s.orelse:
        if any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(s)):
            raise NotModelled("break/continue in loops")
        for item in _iterable(s.iter, st, out, frame):
            st = State(_assign(s.target, item, st, out), st.live)
            st = _run(s.body, st, out, frame)
        return st
    if isinstance(s, ast.Try):
        return _try(s, st, out, frame)
    if isinstance(s, ast.Raise):
        kind = _raised_kind(s)
        out.fail_when(st.live, T, kind)
        return State(st.env, F)
    if isinstance(s, ast.Assert):
        ok = _truth(_expr(s.test, st, out, frame), st, out)
        out.fail_when(st.live, z3.Not(ok), "AssertionError")
        return State(st.env, z3.And(st.live, ok))
    if isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
        return st
    if isinstance(s, ast.Expr):
        # a call for its effect: its errors count, and objects it may change are unknown after it
        _expr(s.value, st, out, frame)
        return st
    if isinstance(s, ast.FunctionDef):
        if s.decorator_list:
            raise NotModelled(f"decorated function {s.name} inside the UDF")
        defaults = tuple(_expr(d, st, out, frame) for d in s.args.defaults)
        return State({**st.env, s.name: _function(s, s.name, frame.globals if frame else {},
                                                  frame.number if frame else None, defaults)}, st.live)
    if isinstance(s, (ast.Import, ast.ImportFrom)):
        env = dict(st.env)
        _bind_import(s, env)
        return State(env, st.live)
    raise NotModelled(f"statement {type(s).__name__} at line {getattr(s, 'lineno', '?')}")


def _assign(target: ast.expr, value: PyVal, st: State, out: Outcome) -> dict[str, PyVal]:
    if isinstance(target, ast.Name):
        return {**st.env, target.id: value}
    if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(t, ast.Starred) for t in target.elts):
        if value.kind != "seq":
            raise NotModelled(f"unpacking a {value.kind}")
        if len(value.items) != len(target.elts):
            out.fail_when(st.live, T, "ValueError")  # too many / not enough values to unpack
            return st.env
        env = st.env
        for t, v in zip(target.elts, value.items):
            env = _assign(t, v, State(env, st.live), out)
        return env
    raise NotModelled(f"assignment to {type(target).__name__}")


def _raised_kind(s: ast.Raise) -> str:
    exc = s.exc.func if isinstance(s.exc, ast.Call) else s.exc
    if s.exc is None:
        raise NotModelled("a bare raise")
    name = exc.id if isinstance(exc, ast.Name) else exc.attr if isinstance(exc, ast.Attribute) else None
    return name if name in EXCEPTION_BASES or name in ("Exception", "ArithmeticError", "LookupError",
                                                       "AssertionError") else UNKNOWN_ERROR


def _caught(kind: str, handler: ast.ExceptHandler) -> bool | None:
    """Whether `handler` catches an exception of class `kind`; None when it cannot be told."""
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    wanted = set()
    for n in names:
        if isinstance(n, ast.Name):
            wanted.add(n.id)
        elif isinstance(n, ast.Attribute):
            wanted.add(n.attr)
        else:
            return None
    if {"Exception", "BaseException"} & wanted:
        return True
    if kind == UNKNOWN_ERROR:
        return None
    return bool(({kind} | set(EXCEPTION_BASES.get(kind, ()))) & wanted)


def _try(s: ast.Try, st: State, out: Outcome, frame: _Frame | None) -> State:
    """try/except/else: the first exception the body raises (errors are recorded in the order the
    code raises them) goes to the first handler that catches its class; a path that raised does
    not return from the body; names the body assigns are unknown in a handler (Python leaves
    them as they were when the exception happened)."""
    if s.finalbody:
        raise NotModelled("try/finally")
    mark, returns_mark = len(out.errors), len(out.returns)
    body_end = _run(s.body, st, out, frame)
    raised = [(out.errors[i], out.kinds.get(i, UNKNOWN_ERROR)) for i in range(mark, len(out.errors))]
    del out.errors[mark:]
    for i in [k for k in out.kinds if k >= mark]:
        del out.kinds[i]
    entries: list[list[z3.BoolRef]] = [[] for _ in s.handlers]
    none_before: z3.BoolRef = T
    for cond, kind in raised:
        first = z3.And(cond, none_before)
        none_before = z3.And(none_before, z3.Not(cond))
        for i, h in enumerate(s.handlers):
            catches = _caught(kind, h)
            if catches is None:
                raise NotModelled("an except clause that may or may not catch an unknown error")
            if catches:
                entries[i].append(first)
                break
        else:
            out.fail_when(T, first, kind)
    for i in range(returns_mark, len(out.returns)):
        cond, value = out.returns[i]
        out.returns[i] = (z3.And(cond, none_before), value)
    normal = State(body_end.env, z3.And(body_end.live, none_before))
    if s.orelse:
        normal = _run(s.orelse, normal, out, frame)
    assigned = {n.id for b in s.body for n in ast.walk(b) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    before = {k: v for k, v in st.env.items() if k not in assigned}
    result = normal
    for h, entry in zip(s.handlers, entries):
        if not entry:
            continue
        handled = _run(h.body, State(dict(before), z3.Or(*entry)), out, frame)
        result = _merge_states(result, handled)
    return result


def _merge_states(a: State, b: State) -> State:
    live = z3.Or(a.live, b.live)
    # a path that cannot be taken binds nothing: the names are the other path's
    if z3.is_false(z3.simplify(a.live)):
        return State(b.env, z3.simplify(live))
    if z3.is_false(z3.simplify(b.live)):
        return State(a.env, z3.simplify(live))
    env: dict[str, PyVal] = {}
    for name in a.env.keys() & b.env.keys():
        try:
            env[name] = ite(a.live, a.env[name], b.env[name])
        except NotModelled:
            continue  # unusable after the merge: reading it is refused then
    # a name bound on one path only is unbound after the merge; using it raises NotModelled
    return State(env, z3.simplify(live))


def _iterable(node: ast.expr, st: State, out: Outcome, frame: _Frame | None) -> list[PyVal]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" \
            and node.func.id not in st.env:
        if not all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in node.args):
            raise NotModelled("range() with bounds that are not literals")
        items = [const(i) for i in range(*[a.value for a in node.args])]  # type: ignore[union-attr]
    else:
        v = _expr(node, st, out, frame)
        if v.kind == "seq":
            items = list(v.items)
        elif v.kind == "dict":
            items = [k for k, _ in v.items]
        else:
            raise NotModelled(f"a loop over a {v.kind}")
    if len(items) > _MAX_UNROLL:
        raise NotModelled(f"loop of more than {_MAX_UNROLL} iterations")
    return items


# ----------------------------------------------------------------------------- expressions


def _lookup(name: str, st: State, frame: _Frame | None = None) -> PyVal:
    if name in st.env:
        return st.env[name]
    if frame is not None and name in frame.locals:
        raise NotModelled(f"name {name!r} may be read before it is assigned")
    if name in _BUILTINS:
        raise NotModelled(f"the built-in {name} as a value")
    if frame is None:
        raise NotModelled(f"name {name!r} is not a parameter or a local of the UDF")
    # a global of the notebook the tracer did not record: one fixed, unknown object
    return PyVal("opaque", z3.Const(f"py_global_{name}", PYOBJ),
                 z3.Function("py_is_none", PYOBJ, z3.BoolSort())(z3.Const(f"py_global_{name}", PYOBJ)),
                 extra=name)


def _expr(e: ast.expr, st: State, out: Outcome, frame: _Frame | None = None) -> PyVal:
    if isinstance(e, ast.Constant):
        return const(e.value)
    if isinstance(e, ast.Name):
        v = _lookup(e.id, st, frame)
        if e.id not in st.env and v.kind == "opaque" and v.extra == e.id:
            out.unmodelled.append(_where(e))  # a global the tracer did not record: a note names it
        return v
    if isinstance(e, ast.BinOp):
        return _binop(e.op, _expr(e.left, st, out, frame), _expr(e.right, st, out, frame), st, out, e)
    if isinstance(e, ast.UnaryOp):
        v = _expr(e.operand, st, out, frame)
        if isinstance(e.op, ast.Not):
            return PyVal("bool", z3.Not(_truth(v, st, out)), F)
        if v.kind == "opaque":
            return opaque(f"op_{type(e.op).__name__}", (v,), st, out, *_where(e))
        if isinstance(e.op, ast.USub):
            return L.negate(v, st, out)
        if isinstance(e.op, ast.UAdd):
            L.require_number(v, st, out)
            mixed = v.int_or_float
            v = as_int(v)
            return PyVal(v.kind, v.value, F, int_or_float=mixed)
        raise NotModelled("~ on a value")
    if isinstance(e, ast.BoolOp):
        return _boolop(e, st, out, frame)
    if isinstance(e, ast.Compare):
        return _compare(e, st, out, frame)
    if isinstance(e, ast.IfExp):
        cond = _truth(_expr(e.test, st, out, frame), st, out)
        a = _expr(e.body, State(st.env, z3.And(st.live, cond)), out, frame)
        b = _expr(e.orelse, State(st.env, z3.And(st.live, z3.Not(cond))), out, frame)
        return ite(cond, a, b)
    if isinstance(e, ast.Call):
        return _call(e, st, out, frame)
    if isinstance(e, ast.Attribute) and isinstance(e.ctx, ast.Load):
        return _attribute(_expr(e.value, st, out, frame), e, st, out)
    if isinstance(e, ast.Subscript):
        return _subscript(e, st, out, frame)
    if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
        if any(isinstance(x, ast.Starred) for x in e.elts):
            raise NotModelled("* in a collection display")
        return seq(tuple(_expr(x, st, out, frame) for x in e.elts))
    if isinstance(e, ast.Dict):
        if any(k is None for k in e.keys):
            raise NotModelled("** in a dict display")
        pairs = tuple((_expr(k, st, out, frame), _expr(v, st, out, frame)) for k, v in zip(e.keys, e.values))
        if len({str(z3.simplify(k.value)) if k.value is not None else k.kind for k, _ in pairs}) != len(pairs) \
                or any(not (k.value is None or z3.is_const(z3.simplify(k.value))) for k, _ in pairs):
            raise NotModelled("a dict display whose keys are not distinct literals")
        return PyVal("dict", None, F, items=pairs)
    if isinstance(e, ast.JoinedStr):
        parts: list = []
        for v in e.values:
            if isinstance(v, ast.Constant):
                parts.append(const(v.value))
            elif isinstance(v, ast.FormattedValue):
                spec = ast.unparse(v.format_spec)[2:-1] if v.format_spec is not None else ""
                conversion = {-1: "", 115: "s", 114: "r", 97: "a"}[v.conversion]
                parts.append((_expr(v.value, st, out, frame), conversion, spec))
        return L.fstring(parts, st, out, _where(e))
    if isinstance(e, ast.Lambda):
        defaults = tuple(_expr(d, st, out, frame) for d in e.args.defaults)
        return _function(e, "<lambda>", frame.globals if frame else {}, frame.number if frame else None, defaults)
    if isinstance(e, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return _comprehension(e, st, out, frame)
    raise NotModelled(f"expression {type(e).__name__}")


def _comprehension(e: ast.ListComp | ast.SetComp | ast.GeneratorExp, st: State, out: Outcome,
                   frame: _Frame | None) -> PyVal:
    if len(e.generators) != 1 or e.generators[0].ifs or e.generators[0].is_async:
        raise NotModelled("a comprehension with conditions or several loops")
    gen = e.generators[0]
    items = []
    for item in _iterable(gen.iter, st, out, frame):
        inner = State(_assign(gen.target, item, st, out), st.live)
        items.append(_expr(e.elt, inner, out, frame))
    return seq(tuple(items))


def _attribute(recv: PyVal, e: ast.Attribute, st: State, out: Outcome) -> PyVal:
    name = e.attr
    if recv.kind == "module":
        return _module_attribute(recv.extra, name)
    if getattr(recv, "field", None) is not None:
        if hasattr(tuple, name) or name.startswith("_") or name == "asDict":
            # a Row is a tuple: `r.count` is tuple.count, not a field named count
            raise NotModelled(f"attribute {name!r} names a method of the row, not a field")
        return recv.field(name)  # type: ignore[attr-defined]
    if recv.kind == "seq" and recv.extra:
        if hasattr(tuple, name) or name.startswith("_") or name == "asDict":
            raise NotModelled(f"attribute {name!r} names a method of the row, not a field")
        if name not in recv.extra:
            out.fail_when(st.live, T, "AttributeError")
            return NONE
        return recv.items[recv.extra.index(name)]
    if recv.kind == "date":
        found = L.date_attribute(recv, name, st, out)
        if found is not None:
            return found
    if recv.kind == "timedelta":
        found = L.timedelta_attribute(recv, name, st, out)
        if found is not None:
            return found
    if recv.kind == "none":
        out.fail_when(st.live, T, "AttributeError")
        return NONE
    if recv.kind in ("seq", "dict", "func"):
        raise NotModelled(f"attribute {name!r} of a {recv.kind}")
    return opaque(f"attr_{recv.kind}_{name}", (recv,), st, out, *_where(e))


def _module_attribute(dotted: str, name: str) -> PyVal:
    full = f"{dotted}.{name}"
    if full in ("math.pi", "math.e", "math.tau"):
        return const(getattr(math, name))
    if full in ("datetime.date.min", "datetime.date.max"):
        return L.date_const(getattr(dt.date, name))
    return _module(full)


def _subscript(e: ast.Subscript, st: State, out: Outcome, frame: _Frame | None) -> PyVal:
    recv = _expr(e.value, st, out, frame)
    if getattr(recv, "field", None) is not None and isinstance(e.slice, ast.Constant) \
            and isinstance(e.slice.value, str):
        return recv.field(e.slice.value)  # type: ignore[attr-defined]  # row["name"] on a collected row
    if recv.kind == "seq" and recv.extra and isinstance(e.slice, ast.Constant) and isinstance(e.slice.value, str):
        if e.slice.value not in recv.extra:
            out.fail_when(st.live, T, "ValueError")
            return NONE
        return recv.items[recv.extra.index(e.slice.value)]
    if recv.kind == "dict" and not isinstance(e.slice, ast.Slice):
        key = _expr(e.slice, st, out, frame)
        out.fail_when(st.live, z3.Not(L.has_key(recv, key)), "KeyError")
        return L.lookup(recv, key, NONE)
    if recv.kind == "str":
        out.fail_when(st.live, recv.none)  # TypeError: 'NoneType' object is not subscriptable
        length = z3.Length(recv.value)
        if isinstance(e.slice, ast.Slice):
            if e.slice.step is not None:
                raise NotModelled("slices with a step")
            lo = _constant_bound(e.slice.lower)
            hi = _constant_bound(e.slice.upper)
            if lo is not None and lo >= 0 and (hi is None or hi >= 0) and e.slice.lower is not None or \
                    e.slice.lower is None and hi is not None and hi >= 0:
                # non-negative literal bounds: Z3's extraction clamps at the end as Python does
                start = lo or 0
                size = (hi - start if hi is not None else length - start)
                return PyVal("str", z3.SubString(recv.value, start, z3.If(size > 0, size, 0)
                                                 if hi is None else max(size, 0)), F)
            start = _slice_bound(e.slice.lower, z3.IntVal(0), length, st, out, frame)
            end = _slice_bound(e.slice.upper, length, length, st, out, frame)
            return PyVal("str", z3.SubString(recv.value, start, z3.If(end > start, end - start, 0)), F)
        index = as_int(_expr(e.slice, st, out, frame))
        if index.kind != "int":
            raise NotModelled("a string index that is not an int")
        out.fail_when(st.live, z3.Or(index.none, index.value >= length, index.value < -length), "IndexError")
        at = z3.If(index.value < 0, length + index.value, index.value)
        return PyVal("str", z3.SubString(recv.value, at, 1), F)
    if recv.kind == "split" and not isinstance(e.slice, ast.Slice):
        return L.subscript_split(recv, _expr(e.slice, st, out, frame), st, out)
    if recv.kind == "match" and not isinstance(e.slice, ast.Slice):  # m[k] is m.group(k)
        got = L.match_method(recv, "group", [_expr(e.slice, st, out, frame)], st, out)
        if got is None:
            raise NotModelled("a match's group other than a literal")
        return got
    if recv.kind == "seq" and isinstance(e.slice, ast.Slice):
        bounds = [_constant_bound(b) for b in (e.slice.lower, e.slice.upper, e.slice.step)]
        given = [b for b in (e.slice.lower, e.slice.upper, e.slice.step) if b is not None]
        if len([b for b in bounds if b is not None]) != len(given):
            raise NotModelled("a slice of a collection with bounds that are not literals")
        return seq(recv.items[slice(*bounds)])
    if recv.kind == "seq":
        index = as_int(_expr(e.slice, st, out, frame))
        if index.kind != "int":
            raise NotModelled("a list index that is not an int")
        n = len(recv.items)
        out.fail_when(st.live, z3.Or(index.none, index.value >= n, index.value < -n), "IndexError")
        known = z3.simplify(index.value)
        if z3.is_int_value(known) and z3.is_false(z3.simplify(index.none)):
            return recv.items[known.as_long()] if -n <= known.as_long() < n else NONE
        result = recv.items[-1] if recv.items else NONE
        for i, item in reversed(list(enumerate(recv.items))):
            result = ite(z3.Or(index.value == i, index.value == i - n), item, result)
        return result
    if recv.kind == "opaque":
        key = _expr(e.slice, st, out, frame) if not isinstance(e.slice, ast.Slice) else None
        if key is None:
            raise NotModelled("a slice of an unknown object")
        return opaque("getitem", (recv, key), st, out, *_where(e))
    if recv.kind == "none":
        out.fail_when(st.live, T)
        return NONE
    raise NotModelled(f"subscript of {recv.kind}")


def _constant_bound(node: ast.expr | None) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, int) and not isinstance(node.operand.value, bool):
        return -node.operand.value
    return None


def _slice_bound(node: ast.expr | None, default: z3.ArithRef, length: z3.ArithRef,
                 st: State, out: Outcome, frame: _Frame | None) -> z3.ArithRef:
    """Python's clamping of a slice bound into [0, len]; negative bounds count from the end."""
    if node is None:
        return default
    b = as_int(_expr(node, st, out, frame))
    if b.kind != "int":
        raise NotModelled("a slice bound that is not an int")
    x = z3.If(b.value < 0, length + b.value, b.value)
    # a bound that is None at run time means the default, as a literal None does
    return z3.If(b.none, default, z3.If(x < 0, 0, z3.If(x > length, length, x)))


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}


def _binop(op: ast.operator, a: PyVal, b: PyVal, st: State, out: Outcome, node: ast.AST | None = None) -> PyVal:
    if type(op) not in _BINOPS:
        raise NotModelled(f"operator {type(op).__name__}")
    return L.binop(_BINOPS[type(op)], a, b, st, out, _where(node) if node is not None else ("", 0))


def _truth(v: PyVal, st: State, out: Outcome) -> z3.BoolRef:
    return L.truth_with_errors(v, st, out)


def _boolop(e: ast.BoolOp, st: State, out: Outcome, frame: _Frame | None) -> PyVal:
    # Python's and/or return an operand and short-circuit: later operands are
    # evaluated (and may raise) only when the earlier ones let them
    first = _expr(e.values[0], st, out, frame)
    if len(e.values) == 1:
        return first
    rest_expr = ast.BoolOp(op=e.op, values=e.values[1:])
    first_true = _truth(first, st, out)
    go_on = first_true if isinstance(e.op, ast.And) else z3.Not(first_true)
    rest = _expr(rest_expr, State(st.env, z3.And(st.live, go_on)), out, frame)
    if first.kind == "bool" and rest.kind == "bool" and z3.is_false(first.none) and z3.is_false(rest.none):
        # None and True is None, not False: the plain conjunction only for bools that are never None
        f = truthy(first)
        return PyVal("bool", z3.And(f, truthy(rest)) if isinstance(e.op, ast.And) else z3.Or(f, truthy(rest)), F)
    return ite(go_on, rest, first)


_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


def _compare(e: ast.Compare, st: State, out: Outcome, frame: _Frame | None) -> PyVal:
    if len(e.ops) == 1 and isinstance(e.ops[0], (ast.Eq, ast.NotEq)) and \
            (_is_nan_literal(e.left) or _is_nan_literal(e.comparators[0])):
        # NaN equals nothing, itself included: `x == float("nan")` is False for every value the
        # model has (an unknown object's __eq__ might say otherwise)
        other = _expr(e.comparators[0] if _is_nan_literal(e.left) else e.left, st, out, frame)
        if other.kind != "opaque":
            return PyVal("bool", F if isinstance(e.ops[0], ast.Eq) else T, F)
    result: z3.BoolRef = T
    left = _expr(e.left, st, out, frame)
    live = st.live
    for op, right_node in zip(e.ops, e.comparators):
        right = _expr(right_node, State(st.env, live), out, frame)
        if "opaque" in (left.kind, right.kind) and not isinstance(op, (ast.Is, ast.IsNot)):
            if len(e.ops) > 1:
                raise NotModelled("a chained comparison with an unknown object")
            # an object's __eq__ or __lt__ may return anything, and may raise
            return opaque(f"op_{type(op).__name__}", (left, right), st, out, *_where(e))
        c = _compare_one(op, left, right, State(st.env, live), out)
        result = z3.And(result, c)
        live = z3.And(live, c)  # chained comparisons short-circuit
        left = right
    return PyVal("bool", result, F)


def _is_nan_literal(node: ast.expr) -> bool:
    """`float("nan")` (any case, signed) or `math.nan`, `np.nan`, `numpy.nan`.

    >>> [_is_nan_literal(ast.parse(t, mode="eval").body) for t in ('float("NaN")', "np.nan", "float(x)", "nan")]
    [True, True, False, False]
    """
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and \
            len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant):
        text = node.args[0].value
        return isinstance(text, str) and text.strip().lower().lstrip("+-") == "nan"
    return (isinstance(node, ast.Attribute) and node.attr in ("nan", "NaN", "NAN")
            and isinstance(node.value, ast.Name) and node.value.id in ("math", "np", "numpy"))


def _compare_one(op: ast.cmpop, a: PyVal, b: PyVal, st: State, out: Outcome) -> z3.BoolRef:
    if isinstance(op, (ast.Is, ast.IsNot)):
        if b.kind != "none" and a.kind != "none":
            raise NotModelled("`is` between values other than None")
        other = a if b.kind == "none" else b
        same = other.none
        return same if isinstance(op, ast.Is) else z3.Not(same)
    if isinstance(op, (ast.Eq, ast.NotEq)):
        eq = L.equal(a, b)
        return eq if isinstance(op, ast.Eq) else z3.Not(eq)
    if isinstance(op, (ast.In, ast.NotIn)):
        found = L.contains(a, b, st, out)
        return found if isinstance(op, ast.In) else z3.Not(found)
    return L.order(_CMP[type(op)], a, b, st, out)


# ----------------------------------------------------------------------------- calls


def _spread(e: ast.Call) -> ast.Call:
    """`f(**{"a": x})` as `f(a=x)`: a dict display with literal string keys spread as keywords."""
    if not any(k.arg is None for k in e.keywords):
        return e
    keywords = []
    for k in e.keywords:
        if k.arg is not None:
            keywords.append(k)
        elif isinstance(k.value, ast.Dict) and all(isinstance(x, ast.Constant) and isinstance(x.value, str)
                                                   for x in k.value.keys):
            keywords += [ast.keyword(arg=x.value, value=v) for x, v in zip(k.value.keys, k.value.values)]
        else:
            raise NotModelled("**kwargs in a call")
    names = [k.arg for k in keywords]
    if len(set(names)) != len(names):
        raise NotModelled("a keyword given twice")
    return ast.Call(func=e.func, args=e.args, keywords=keywords, lineno=e.lineno, col_offset=e.col_offset)


def _call(e: ast.Call, st: State, out: Outcome, frame: _Frame | None) -> PyVal:
    e = _spread(e)
    if any(isinstance(a, ast.Starred) for a in e.args):
        raise NotModelled("*args in a call")
    where = _where(e)
    if isinstance(e.func, ast.Name) and e.func.id not in st.env and \
            not (frame is not None and e.func.id in frame.locals) and e.func.id in _BUILTINS:
        # isinstance's second argument names classes: it is read from the source, not evaluated
        evaluated = e.args[:1] if e.func.id == "isinstance" else e.args
        args = [_expr(a, st, out, frame) for a in evaluated] + [NONE] * (len(e.args) - len(evaluated))
        kwargs = {k.arg: _expr(k.value, st, out, frame) for k in e.keywords}
        return _builtin(e.func.id, args, kwargs, e, st, out, frame)
    if isinstance(e.func, ast.Attribute):
        recv = _expr(e.func.value, st, out, frame)
        args = [_expr(a, st, out, frame) for a in e.args]
        kwargs = {k.arg: _expr(k.value, st, out, frame) for k in e.keywords}  # type: ignore[misc]
        if recv.kind == "module":
            return _module_call(f"{recv.extra}.{e.func.attr}", args, kwargs, st, out, where)
        made = L.method(recv, e.func.attr, args, kwargs, st, out, where)
        if made.kind == "opaque" or recv.kind == "opaque":
            # a method the model does not read may change its receiver, or objects it shares state with
            st.env.update(forget_opaque_states(st.env, out, made))
        return made
    callee = _expr(e.func, st, out, frame)
    args = [_expr(a, st, out, frame) for a in e.args]
    kwargs = {k.arg: _expr(k.value, st, out, frame) for k in e.keywords}  # type: ignore[misc]
    if callee.kind == "func":
        return _call_function(callee.extra, args, kwargs, st, out, frame)
    if callee.kind == "module":
        return _module_call(callee.extra, args, kwargs, st, out, where)
    if callee.kind == "opaque":
        made = opaque(f"call_{callee.extra}", (callee, *args, *kwargs.values()), st, out, *where)
        st.env.update(forget_opaque_states(st.env, out, made))
        return made
    raise NotModelled(f"call of a {callee.kind}")


def _call_function(fn: Function, args: list[PyVal], kwargs: dict[str, PyVal], st: State, out: Outcome,
                   caller: _Frame | None) -> PyVal:
    """A helper or lambda run inline on the caller's path: its value is the value of its returns."""
    depth = caller.depth + 1 if caller is not None else 1
    if depth > _MAX_CALL_DEPTH:
        raise NotModelled(f"calls nested more than {_MAX_CALL_DEPTH} deep (recursion?)")
    a = fn.node.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        raise NotModelled(f"{fn.name}: a signature with *args, **kwargs or keyword-only parameters")
    params = [p.arg for p in a.args]
    if len(args) > len(params) or set(kwargs) - set(params) or set(kwargs) & set(params[:len(args)]):
        out.fail_when(st.live, T)  # TypeError: wrong arguments
        return NONE
    bound = dict(zip(params, args)) | kwargs
    for p, d in zip(params[len(params) - len(fn.defaults):], fn.defaults):
        bound.setdefault(p, d)
    if len(bound) != len(params):
        out.fail_when(st.live, T)  # TypeError: missing arguments
        return NONE
    # free names: a nested function reads its enclosing function's variables as they are now
    outer = st.env if caller is not None and fn.nested_in == caller.number else fn.globals
    env = {**fn.globals, **{k: v for k, v in outer.items()}, **bound}
    inner = out.frame()
    frame = _Frame(fn.node, fn.globals, out.fresh() + 1, _local_names(fn.node), depth)
    end = _run(_body_of(fn.node), State(env, st.live), inner, frame)
    return ite_of(inner.returns, NONE if not z3.is_false(z3.simplify(end.live)) else
                  (inner.returns[-1][1] if inner.returns else NONE))


def _builtin(name: str, args: list[PyVal], kwargs: dict[str, PyVal], e: ast.Call, st: State, out: Outcome,
             frame: _Frame | None) -> PyVal:
    where = _where(e)
    if kwargs and name not in ("round", "print", "sorted", "max", "min", "sum"):
        raise NotModelled(f"{name}() with keyword arguments")
    if name == "abs" and len(args) == 1:
        if args[0].kind == "opaque":
            return opaque("abs", (args[0],), st, out, *where)
        L.require_number(args[0], st, out)
        x = as_int(args[0])
        return PyVal(x.kind, z3.If(x.value >= 0, x.value, -x.value), F, int_or_float=args[0].int_or_float)
    if name in ("min", "max") and not kwargs:
        items = list(args[0].items) if len(args) == 1 and args[0].kind == "seq" else args
        if not items:
            out.fail_when(st.live, T, "ValueError")  # an empty sequence
            return NONE
        if any(a.kind == "bool" for a in items):
            # min/max return an operand: a bool stays a bool (max(True, 0) is True), which
            # Spark rejects for an integer column, while the model would give the int 1
            raise NotModelled(f"{name}() of a bool")
        acc = items[0]
        for nxt in items[1:]:
            if {acc.kind, nxt.kind} <= {"str"} or {acc.kind, nxt.kind} <= {"date"}:
                out.fail_when(st.live, z3.Or(acc.none, nxt.none))
                pick = (nxt.value < acc.value) if name == "min" else (nxt.value > acc.value)
                acc = PyVal(acc.kind, z3.If(pick, nxt.value, acc.value), F)
                continue
            for v in (acc, nxt):
                L.require_number(v, st, out)
            mixed = acc.int_or_float or nxt.int_or_float or acc.kind != nxt.kind
            x, y = same_number_kind(acc, nxt)
            # min keeps the first of equal values, max too; values are numbers so ties are equal
            pick = (y.value < x.value) if name == "min" else (y.value > x.value)
            acc = PyVal(x.kind, z3.If(pick, y.value, x.value), F, int_or_float=mixed)
        return acc
    if name == "len" and len(args) == 1:
        v = args[0]
        if v.kind in ("seq", "dict"):
            return const(len(v.items))
        if v.kind == "str":
            out.fail_when(st.live, v.none)
            return PyVal("int", z3.Length(v.value), F)
        if v.kind == "split":  # the count of pieces, a function of the text and the separator
            return PyVal("int", L.pieces_count(v.value, v.extra), F)
        if v.kind == "opaque":
            return opaque("len", (v,), st, out, *where, kind="int")
        if v.kind in ("int", "float", "bool", "date", "timedelta", "none"):
            out.fail_when(st.live, T)  # object of type ... has no len()
            return NONE
        raise NotModelled(f"len() of a {v.kind}")
    if name == "float" and len(args) == 1:
        v = args[0]
        if v.kind in ("int", "float", "bool"):
            out.fail_when(st.live, v.none)
            return as_float(as_int(PyVal(v.kind, v.value, F)))
        # float('nan') and float('inf') are floats the model (reals) does not have
        if v.kind == "str":
            out.fail_when(st.live, v.none)
            return opaque("float", (v,), st, out, *where, raises="ValueError")
        return opaque("float", (v,), st, out, *where)
    if name == "int" and len(args) == 1:
        v = args[0]
        if v.kind in ("int", "bool"):
            out.fail_when(st.live, v.none)
            return as_int(PyVal(v.kind, v.value, F))
        if v.kind == "float":
            out.fail_when(st.live, v.none)
            return PyVal("int", z3.If(v.value >= 0, z3.ToInt(v.value), -z3.ToInt(-v.value)), F)
        if v.kind == "str":
            # int(' 12 '), int('1_000'), int('١٢'): Python's own syntax; a ValueError where it is not
            out.fail_when(st.live, v.none)
            fails = z3.Function("py_int_of_str_fails", z3.StringSort(), z3.BoolSort())(v.value)
            out.fail_when(st.live, fails, "ValueError")
            return PyVal("int", z3.Function("py_int_of_str", z3.StringSort(), z3.IntSort())(v.value), F)
        return opaque("int", (v,), st, out, *where, kind="int")
    if name == "str" and len(args) == 1:
        return L.to_str(args[0], st, out, where)
    if name == "bool" and len(args) == 1:
        return PyVal("bool", _truth(args[0], st, out), F)
    if name == "round":
        if kwargs or len(args) != 1:
            return opaque("round", (*args, *kwargs.values()), st, out, *where)
        made = L.round_call(args, st, out, where)
        return made if made is not None else opaque("round", tuple(args), st, out, *where)
    if name == "isinstance" and len(args) == 2:
        classes = e.args[1].elts if isinstance(e.args[1], ast.Tuple) else [e.args[1]]
        names = []
        for c in classes:
            if isinstance(c, ast.Name) and (c.id in _TYPE_NAMES or c.id in ("date",)):
                names.append(c.id)
            elif isinstance(c, ast.Attribute) and c.attr in ("date",):
                names.append(c.attr)
            elif isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "type" \
                    and len(c.args) == 1 and isinstance(c.args[0], ast.Constant) and c.args[0].value is None:
                names.append("NoneType")
            else:
                raise NotModelled("isinstance against a class the model does not know")
        return L.isinstance_of(args[0], names, st, out)
    if name in ("sum", "any", "all") and len(args) == 1 and args[0].kind == "seq" and not kwargs:
        items = args[0].items
        if name == "any":
            return PyVal("bool", z3.Or(*[_truth(x, st, out) for x in items]) if items else F, F)
        if name == "all":
            return PyVal("bool", z3.And(*[_truth(x, st, out) for x in items]) if items else T, F)
        acc = const(0)
        for x in items:
            acc = L.binop("+", acc, x, st, out, where)
        return acc
    if name in ("tuple", "list") and len(args) == 1 and args[0].kind == "seq":
        return seq(args[0].items)
    if name == "print":
        return NONE  # writes to the worker's log; its arguments were evaluated
    raise NotModelled(f"call of {name}()")


def _module_call(dotted: str, args: list[PyVal], kwargs: dict[str, PyVal], st: State, out: Outcome,
                 where: tuple[str, int]) -> PyVal:
    """A function or class of a module the source imported."""
    _module(dotted)  # refuses nondeterministic ones
    head, _, name = dotted.rpartition(".")
    if head == "math" and not kwargs:
        made = L.math_call(name, args, st, out, where)
        if made is not None:
            return made
    if head == "re" and name in ("match", "search", "fullmatch", "sub"):
        return L.re_call(name, args, kwargs, st, out, where)
    if dotted == "datetime.date":
        return L.date_of(args, kwargs, st, out)
    if dotted == "datetime.timedelta":
        return L.timedelta(args, kwargs, st, out)
    if dotted == "datetime.date.fromisoformat" and len(args) == 1 and args[0].kind == "str":
        out.fail_when(st.live, args[0].none)
        return opaque("date_fromisoformat", (args[0],), st, out, *where, kind="date", raises="ValueError")
    if dotted in ("pyspark.sql.Row", "pyspark.sql.types.Row") and not args:
        return seq(tuple(kwargs.values()), tuple(kwargs))
    # a function the model does not read: a black box of its arguments (it may change objects)
    made = opaque(f"call_{dotted}", (*args, *kwargs.values()), st, out, *where)
    if any(a.kind == "opaque" for a in (*args, *kwargs.values())):
        st.env.update(forget_opaque_states(st.env, out, made))
    return made


__all__ += ["ite", "replace"]
