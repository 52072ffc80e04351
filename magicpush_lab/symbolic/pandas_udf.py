"""Reading scalar pandas UDF bodies element by element.

A scalar pandas UDF (`@pandas_udf("long") def f(s: pd.Series) -> pd.Series`)
receives a batch of rows as series and returns a series of the same length.
When every operation of its body is element-wise, element `i` of the result
depends only on element `i` of the arguments, and the UDF is a function of one
row like any Python UDF. This module executes such a body symbolically for one
element and returns the same kind of result as `python_udf.interpret_call`: a
result cell and the condition under which the call raises.

What an element looks like inside pandas (checked on PySpark 4.3, pandas 2.x):

- a NULL arrives as a *missing* element: NaN in a float64 series (an integer
  column with a NULL in the batch becomes float64), None in an object series
  (strings, booleans with NULLs);
- arithmetic propagates missing elements; comparisons with a missing element
  are False (`!=` is True); `&` and `|` with a missing element are False;
- an integer column without NULLs in the batch arrives with its own width
  (int32 for `int`) and numpy arithmetic wraps at that width, while the same
  column with a NULL in the batch is float64, exact only up to 2**53.

The last point makes the value of `s * 2` depend on the batch when it can leave
the column type's range or 2**53; a pushed filter changes the batches. Such
elements are collected as the *unknown* condition. `unreadable_reason` refuses
a UDF for which that condition (or anything else the reader cannot tell) is
possible for the argument types; translation then marks the call
`batch_dependent`, which blocks pushdowns through it as nondeterminism does.

The return value is converted as Spark's Arrow serialiser does with its safe
check (the default): a missing element is NULL; an integer result outside the
declared type's range raises with the check and wraps without it, so it is
counted as unknown; a float result for an integer type is refused.

Anything that is not element-wise (`s.sum()`, `s.shift()`, `s.cumsum()`,
`rolling`, `s.iloc`, `len(s)`, sorting), a name the body closes over other than a
number or string constant the tracer recorded, `if` on a series, or any method not
listed below raises `NotModelled`.

>>> import z3
>>> from magicpush_lab.symbolic.values import Cell
>>> v = Cell(z3.Int("v"), z3.Bool("v_nn"))
>>> src = "def f(s):\\n    return s.clip(0, 1000) * 2 + 1"
>>> cell, error, unknown = interpret_call(src, (v,), "long", ("int",))
>>> z3.simplify(z3.substitute(cell.value, (z3.Int("v"), z3.IntVal(4))))
9
>>> unreadable_reason(src, ("int",), "long") is None
True
>>> unreadable_reason("def f(s):\\n    return s * 2 + 1", ("int",), "long")  # int32 wraps
"the body's integer arithmetic can overflow, and then its value depends on the batch"
>>> unreadable_reason("def f(s):\\n    return s - s.mean()", ("int",), "double")
'method mean() is not element-wise or not modelled'
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

import z3

from magicpush_lab.ir.types import FRACTIONAL, INTEGER_BITS, INTEGRAL
from magicpush_lab.symbolic.python_udf import parse_udf, udf_constants
from magicpush_lab.symbolic.values import Cell, NotModelled, default_value, string_value

T = z3.BoolVal(True)
F = z3.BoolVal(False)
# float64 holds every integer up to this magnitude exactly; beyond it, the float64 form of an
# integer column (a batch with a NULL) and its integer form (a batch without) part ways
_EXACT = 2 ** 53
_PANDAS = ("pd", "pandas")
_NUMPY = ("np", "numpy")


@dataclass(frozen=True)
class Elem:
    """One element of a series, array or scalar inside the body.

    kind: "int" | "float" | "bool" | "str"; missing: when the element is NaN/None;
    shape: "series" | "array" | "scalar"; bits: numpy width of an integer series (None for a
    Python scalar, which takes the width of what it meets).
    """

    kind: str
    value: z3.ExprRef
    missing: z3.BoolRef
    shape: str
    bits: int | None = None


@dataclass
class Reading:
    """What reading one body collects besides the values."""

    unknown: list[z3.BoolRef] = field(default_factory=list)
    # no operation read so far raises on an element (pandas gives NaN where Python raises);
    # kept so that both UDF readers hand the encoder the same (cell, error) pair
    errors: list[z3.BoolRef] = field(default_factory=list)

    def unknown_when(self, cond: z3.BoolRef) -> None:
        self.unknown.append(cond)


# ----------------------------------------------------------------------------- entry points


def interpret_call(source: str, args: tuple[Cell, ...], dtype: str,
                   arg_types: tuple[str, ...]) -> tuple[Cell, z3.BoolRef, z3.BoolRef]:
    """The UDF's result cell for one row, when it raises, and when its value is unknown."""
    fn = parse_udf(source)
    if isinstance(fn, ast.FunctionDef) and not all(map(_is_pandas_udf_decorator, fn.decorator_list)):
        # another decorator may change what the function computes
        raise NotModelled("a decorator other than pandas_udf")
    if isinstance(fn, ast.Lambda):
        params, body = [a.arg for a in fn.args.args], [ast.Return(fn.body)]
    else:
        params, body = [a.arg for a in fn.args.args], fn.body
    if len(params) != len(args) or fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs:
        raise NotModelled("pandas UDF signature does not match its call")
    cell, error, unknown = _read(source, params, body, args, dtype, arg_types)
    rounded = [_float64_form(a) if INTEGER_BITS.get(t, 0) > 53 else (a, T) for a, t in zip(args, arg_types)]
    if any(a is not b for (a, _), b in zip(rounded, args)):
        # in a batch with a NULL a long column is float64, which rounds a long beyond 2**53
        # before the body sees it: the element is unknown where some rounding changes the result
        cell2, error2, unknown2 = _read(source, params, body, tuple(c for c, _ in rounded), dtype, arg_types)
        differs = z3.Or(cell.notnull != cell2.notnull, z3.And(cell.notnull, cell.value != cell2.value),
                        error != error2, unknown2)
        unknown = z3.Or(unknown, z3.And(*[side for _, side in rounded], differs))
    return cell, error, unknown


def _read(source: str, params: list[str], body: list[ast.stmt], args: tuple[Cell, ...], dtype: str,
          arg_types: tuple[str, ...]) -> tuple[Cell, z3.BoolRef, z3.BoolRef]:
    env = _captured_env(source)
    env.update({p: _param(a, t) for p, a, t in zip(params, args, arg_types)})
    reading = Reading()
    result = _run(body, env, reading)
    cell = _to_column(result, dtype, reading)
    unknown = z3.Or(*reading.unknown) if reading.unknown else F
    error = z3.Or(*reading.errors) if reading.errors else F
    return cell, error, unknown


def _float64_form(a: Cell) -> tuple[Cell, z3.BoolRef]:
    """A long argument as float64 holds it: exact up to 2**53; beyond, some integer of the same
    sign and at least 2**53 in magnitude (rounding is monotone and 2**53 is a float64), at most
    2**63 (the rounding of 2**63 - 1). Returns the cell and what is known of the rounding."""
    r = z3.FreshInt("float64_form")
    exact = z3.And(a.value >= -_EXACT, a.value <= _EXACT)
    side = z3.Or(exact, z3.If(a.value > 0, z3.And(r >= _EXACT, r <= 2 ** 63),
                              z3.And(r <= -_EXACT, r >= -(2 ** 63))))
    return Cell(z3.If(exact, a.value, r), a.notnull), side


def unreadable_reason(source: str | None, arg_types: tuple[str, ...], dtype: str,
                      timeout_ms: int = 2000) -> str | None:
    """Why the body cannot be read as a function of one row, or None when it can.

    The body is read on free arguments within their types' ranges; a body whose value can be
    unknown there (it depends on the batch) is refused. A solver time-out refuses too.
    """
    from magicpush_lab.symbolic.values import fresh_cell
    from magicpush_lab.symbolic.solver import satisfiable

    if source is None:
        return "the UDF's source was not captured"
    try:
        cells = tuple(fresh_cell(f"arg{i}", t) for i, t in enumerate(arg_types))
        _, _, unknown = interpret_call(source, cells, dtype, arg_types)
    except (NotModelled, SyntaxError, z3.Z3Exception) as err:
        return str(err)
    ranges = [z3.Implies(c.notnull, z3.And(c.value >= -(2 ** (INTEGER_BITS[t] - 1)), c.value < 2 ** (INTEGER_BITS[t] - 1)))
              for c, t in zip(cells, arg_types) if t in INTEGER_BITS]
    possible = satisfiable(z3.And(unknown, *ranges), timeout_ms)
    if possible is False:
        return None
    if possible is None:
        return "could not show within the time limit that the body never overflows"
    return "the body's integer arithmetic can overflow, and then its value depends on the batch"


def _captured_env(source: str) -> dict[str, Elem]:
    """The notebook constants the tracer recorded in front of the function, as scalars; a
    constant of another kind (a dict, a list) stays unknown, and reading it is unsupported."""
    env = {}
    for name, value in udf_constants(source).items():
        try:
            env[name] = _const(value)
        except NotModelled:
            continue
    return env


def _is_pandas_udf_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "pandas_udf"


def _param(cell: Cell, dtype: str) -> Elem:
    missing = z3.Not(cell.notnull)
    if dtype in INTEGER_BITS:
        return Elem("int", cell.value, missing, "series", INTEGER_BITS[dtype])
    if dtype in FRACTIONAL:
        # NaN arrives as a missing element too; the model has no NaN, symbolic/nan.py keeps NaN rows
        return Elem("float", cell.value, missing, "series")
    if dtype == "string":
        return Elem("str", cell.value, missing, "series")
    if dtype == "boolean":
        return Elem("bool", cell.value, missing, "series")
    raise NotModelled(f"pandas UDF argument of type {dtype}")


def _to_column(e: Elem, dtype: str, reading: Reading) -> Cell:
    if e.shape != "series":
        # Spark checks the result is a pandas Series of the batch's length
        raise NotModelled(f"pandas UDF returns a {e.shape}, not a series")
    notnull = z3.Not(e.missing)
    if dtype in INTEGRAL:
        if e.kind != "int":
            raise NotModelled(f"pandas UDF returns {e.kind} elements for a {dtype} column")
        bits = INTEGER_BITS[dtype]
        # raises with Arrow's safe check (the default), wraps without it: either way not a value
        reading.unknown_when(z3.And(notnull, z3.Or(e.value < -(2 ** (bits - 1)), e.value >= 2 ** (bits - 1))))
        return Cell(e.value, notnull)
    if dtype in FRACTIONAL:
        if e.kind not in ("int", "float"):
            raise NotModelled(f"pandas UDF returns {e.kind} elements for a {dtype} column")
        return Cell(_real(e), notnull)
    want = {"string": "str", "boolean": "bool"}.get(dtype)
    if want is None or e.kind != want:
        raise NotModelled(f"pandas UDF returns {e.kind} elements for a {dtype} column")
    return Cell(e.value, notnull)


# ----------------------------------------------------------------------------- statements


def _run(body: list[ast.stmt], env: dict[str, Elem], reading: Reading) -> Elem:
    """Straight-line code only: `if` on a series raises in pandas, loops are not element-wise."""
    env = dict(env)
    for s in body:
        if isinstance(s, ast.Return) and s.value is not None:
            return _expr(s.value, env, reading)
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            env[s.targets[0].id] = _expr(s.value, env, reading)
        elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
            env[s.target.id] = _expr(s.value, env, reading)
        elif isinstance(s, (ast.Import, ast.ImportFrom, ast.Pass)) or (
                isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
            if isinstance(s, (ast.Import, ast.ImportFrom)) and not _plain_import(s):
                raise NotModelled("an import inside the UDF other than pandas or numpy")
        else:
            raise NotModelled(f"statement {type(s).__name__} at line {getattr(s, 'lineno', '?')}")
    raise NotModelled("the UDF does not end with a return")


def _plain_import(s: ast.Import | ast.ImportFrom) -> bool:
    return isinstance(s, ast.Import) and all(
        (a.name, a.asname) in (("pandas", None), ("pandas", "pd"), ("numpy", None), ("numpy", "np"))
        for a in s.names)


# ----------------------------------------------------------------------------- expressions


def _const(v: object) -> Elem:
    if isinstance(v, bool):
        return Elem("bool", z3.BoolVal(v), F, "scalar")
    if isinstance(v, int):
        if abs(v) >= _EXACT:
            # in the float64 form of a batch it would be rounded
            raise NotModelled("an integer literal beyond 2**53 in a pandas UDF")
        return Elem("int", z3.IntVal(v), F, "scalar")
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise NotModelled("NaN/inf constants in pandas UDFs are not modelled")
        return Elem("float", z3.RealVal(v), F, "scalar")
    if isinstance(v, str):
        return Elem("str", string_value(v), F, "scalar")
    raise NotModelled(f"constant {v!r} in a pandas UDF")


def _expr(e: ast.expr, env: dict[str, Elem], reading: Reading) -> Elem:
    if isinstance(e, ast.Constant):
        return _const(e.value)
    if isinstance(e, ast.Name):
        if e.id in env:
            return env[e.id]
        raise NotModelled(f"name {e.id!r} is not a parameter or a local of the UDF")
    if isinstance(e, ast.UnaryOp):
        v = _expr(e.operand, env, reading)
        if isinstance(e.op, ast.USub) and v.kind in ("int", "float"):
            return _checked(replace(v, value=-v.value), reading)
        if isinstance(e.op, ast.UAdd) and v.kind in ("int", "float"):
            return v
        if isinstance(e.op, ast.Invert) and v.kind == "bool":
            # ~ on a missing element (object dtype) raises TypeError; as a condition: refused
            reading.unknown_when(v.missing)
            return replace(v, value=z3.Not(v.value), missing=F)
        raise NotModelled(f"unary {type(e.op).__name__} on {v.kind}")
    if isinstance(e, ast.BinOp):
        return _binop(e.op, _expr(e.left, env, reading), _expr(e.right, env, reading), e.right, reading)
    if isinstance(e, ast.Compare):
        if len(e.ops) != 1:
            raise NotModelled("chained comparison of series (pandas raises)")
        return _compare(e.ops[0], _expr(e.left, env, reading), _expr(e.comparators[0], env, reading))
    if isinstance(e, ast.Call):
        return _call(e, env, reading)
    raise NotModelled(f"expression {type(e).__name__} in a pandas UDF")


def _shape(a: Elem, b: Elem) -> str:
    shapes = {a.shape, b.shape}
    return "series" if "series" in shapes else "array" if "array" in shapes else "scalar"


def _bits(a: Elem, b: Elem) -> int | None:
    known = [x.bits for x in (a, b) if x.bits is not None]
    return max(known) if known else None


def _checked(v: Elem, reading: Reading) -> Elem:
    """An integer result: unknown where it leaves its numpy width (wraps) or 2**53 (float64)."""
    if v.kind == "int" and v.shape == "scalar":
        # arithmetic on literals: the result is a literal too, and must stay exact in float64
        folded = z3.simplify(v.value)
        if not z3.is_int_value(folded) or abs(folded.as_long()) >= _EXACT:
            raise NotModelled("integer arithmetic on literals beyond 2**53")
        return v
    if v.kind != "int":
        return v
    bound = min(2 ** (v.bits - 1), _EXACT) if v.bits else _EXACT
    reading.unknown_when(z3.And(z3.Not(v.missing), z3.Or(v.value < -bound, v.value >= bound)))
    return v


def _adopt(a: Elem, b: Elem, reading: Reading) -> None:
    """A Python int meeting an integer series takes the series' width; outside it numpy raises."""
    for s, c in ((a, b), (b, a)):
        if s.kind == "int" and s.bits and c.kind == "int" and c.shape == "scalar" and c.bits is None:
            lo, hi = -(2 ** (s.bits - 1)), 2 ** (s.bits - 1)
            if not lo <= z3.simplify(c.value).as_long() < hi:
                reading.unknown_when(T)


def _real(v: Elem) -> z3.ExprRef:
    return z3.ToReal(v.value) if v.kind == "int" else v.value


def _number_pair(a: Elem, b: Elem) -> tuple[str, z3.ExprRef, z3.ExprRef]:
    if a.kind not in ("int", "float") or b.kind not in ("int", "float"):
        raise NotModelled(f"arithmetic on {a.kind} and {b.kind} in a pandas UDF")
    if a.kind == b.kind == "int":
        return "int", a.value, b.value
    return "float", _real(a), _real(b)


def _binop(op: ast.operator, a: Elem, b: Elem, right: ast.expr, reading: Reading) -> Elem:
    if isinstance(op, (ast.BitAnd, ast.BitOr)) and a.kind == "bool" and b.kind == "bool":
        # pandas: & and | with a missing element (object dtype) are False, even `None | True`
        both = z3.And(z3.Not(a.missing), z3.Not(b.missing))
        value = z3.And(a.value, b.value) if isinstance(op, ast.BitAnd) else z3.Or(a.value, b.value)
        return Elem("bool", z3.And(both, value), F, _shape(a, b))
    if isinstance(op, ast.Pow):
        # numpy squares with one multiplication (its fast path for `** 2`); other powers go
        # through the C library's pow, whose rounding the model does not know
        exponent = right.value if isinstance(right, ast.Constant) else None
        if type(exponent) is not int or exponent not in (1, 2):
            raise NotModelled("a power other than `** 2` or `** 1`")
        return a if exponent == 1 else _binop(ast.Mult(), a, a, right, reading)
    kind, x, y = _number_pair(a, b)
    missing = z3.Or(a.missing, b.missing)
    shape, bits = _shape(a, b), _bits(a, b)
    if kind == "int":
        _adopt(a, b, reading)
    if isinstance(op, (ast.Add, ast.Sub, ast.Mult)):
        value = x + y if isinstance(op, ast.Add) else x - y if isinstance(op, ast.Sub) else x * y
        return _checked(Elem(kind, value, missing, shape, bits), reading)
    divisor = _constant_divisor(right)
    if isinstance(op, ast.Div):
        # true division is float64 in both forms of an integer column
        return Elem("float", _real(a) / _real(b), missing, shape)
    if isinstance(op, (ast.FloorDiv, ast.Mod)) and kind == "int" and isinstance(divisor, int):
        # numpy floors like Python, in the integer and in the float64 form alike
        q = z3.If(y > 0, x / y, (-x) / (-y))
        value = q if isinstance(op, ast.FloorDiv) else x - y * q
        return _checked(Elem("int", value, missing, shape, bits), reading)
    raise NotModelled(f"operator {type(op).__name__} on {kind} elements")


def _constant_divisor(node: ast.expr) -> int | float:
    """Division only by a non-zero literal: by zero, pandas gives inf or NaN, which is not modelled."""
    v = node.value if isinstance(node, ast.Constant) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        v = node.operand.value
        v = -v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v == 0 or v != v:
        raise NotModelled("division by something other than a non-zero number literal")
    return v


def _compare(op: ast.cmpop, a: Elem, b: Elem) -> Elem:
    if a.kind in ("int", "float") and b.kind in ("int", "float"):
        kind, x, y = _number_pair(a, b)
    elif a.kind == b.kind and a.kind in ("str", "bool") and (a.kind == "str" or isinstance(op, (ast.Eq, ast.NotEq))):
        x, y = a.value, b.value
    else:
        raise NotModelled(f"comparison of {a.kind} with {b.kind} in a pandas UDF")
    fns = {ast.Eq: lambda: x == y, ast.NotEq: lambda: x != y, ast.Lt: lambda: x < y, ast.LtE: lambda: x <= y,
           ast.Gt: lambda: x > y, ast.GtE: lambda: x >= y}
    if type(op) not in fns:
        raise NotModelled(f"comparison {type(op).__name__} in a pandas UDF")
    some_missing = z3.Or(a.missing, b.missing)
    # a comparison with a missing element is False, except != which is True
    value = z3.Or(some_missing, fns[type(op)]()) if isinstance(op, ast.NotEq) else \
        z3.And(z3.Not(some_missing), fns[type(op)]())
    return Elem("bool", value, F, _shape(a, b))


def _condition(c: Elem, reading: Reading) -> z3.BoolRef:
    """A mask for where/mask/np.where: a missing mask element is not modelled."""
    if c.kind != "bool":
        raise NotModelled(f"a mask of {c.kind} elements")
    reading.unknown_when(c.missing)
    return c.value


def _choose(cond: z3.BoolRef, a: Elem, b: Elem, shape: str) -> Elem:
    """Element-wise `a if cond else b`, with pandas' result kind."""
    if a.kind == b.kind:
        kind, x, y = a.kind, a.value, b.value
    elif {a.kind, b.kind} <= {"int", "float"}:
        kind, x, y = "float", _real(a), _real(b)
    else:
        raise NotModelled(f"a choice between {a.kind} and {b.kind} elements")
    bits = _bits(a, b) if kind == "int" else None
    return Elem(kind, z3.If(cond, x, y), z3.If(cond, a.missing, b.missing), shape, bits)


def _missing_like(v: Elem) -> Elem:
    return Elem(v.kind, default_value(v.value.sort()), T, "scalar")


def _call(e: ast.Call, env: dict[str, Elem], reading: Reading) -> Elem:
    func = e.func
    kwargs = {k.arg: k.value for k in e.keywords}
    if None in kwargs:
        raise NotModelled("**kwargs in a call")
    # module functions: pd.Series(...), np.where(...), np.abs(...), abs(...)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id not in env:
        module, name = func.value.id, func.attr
        if module in _PANDAS and name == "Series" and len(e.args) == 1 and set(kwargs) <= {"index"}:
            if "index" in kwargs and not _is_index_of_param(kwargs["index"], env):
                raise NotModelled("pd.Series with an index other than an argument's")
            inner = _expr(e.args[0], env, reading)
            if inner.shape == "scalar":
                raise NotModelled("pd.Series of a scalar has one element, not one per row")
            return replace(inner, shape="series")
        if module in _NUMPY and name == "where" and len(e.args) == 3 and not kwargs:
            c, a, b = (_expr(x, env, reading) for x in e.args)
            return _choose(_condition(c, reading), a, b, "array")
        if module in _NUMPY and name in ("abs", "absolute") and len(e.args) == 1 and not kwargs:
            return _abs(_expr(e.args[0], env, reading), reading, "array")
        if module in _NUMPY and name in ("maximum", "minimum") and len(e.args) == 2 and not kwargs:
            a, b = (_expr(x, env, reading) for x in e.args)
            kind, x, y = _number_pair(a, b)
            pick = x >= y if name == "maximum" else x <= y
            # NaN propagates through np.maximum/np.minimum
            return Elem(kind, z3.If(pick, x, y), z3.Or(a.missing, b.missing), "array", _bits(a, b))
        raise NotModelled(f"call of {module}.{name}()")
    if isinstance(func, ast.Name) and func.id == "abs" and func.id not in env and len(e.args) == 1 and not kwargs:
        v = _expr(e.args[0], env, reading)
        return _abs(v, reading, v.shape)
    # .str accessor methods
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and func.value.attr == "str":
        return _str_method(func.attr, _expr(func.value.value, env, reading), e, kwargs, env, reading)
    if isinstance(func, ast.Attribute):
        recv = _expr(func.value, env, reading)
        if recv.shape == "scalar":
            raise NotModelled(f"method {func.attr}() on a scalar")
        return _series_method(func.attr, recv, e, kwargs, env, reading)
    raise NotModelled("call of a function that is not element-wise or not modelled")


def _is_index_of_param(node: ast.expr, env: dict[str, Elem]) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "index" and isinstance(node.value, ast.Name)
            and node.value.id in env and env[node.value.id].shape == "series")


def _abs(v: Elem, reading: Reading, shape: str) -> Elem:
    if v.kind not in ("int", "float"):
        raise NotModelled(f"abs of {v.kind}")
    return _checked(replace(v, value=z3.If(v.value >= 0, v.value, -v.value), shape=shape), reading)


def _literal(node: ast.expr) -> Elem:
    """A scalar literal argument (negative numbers included)."""
    if isinstance(node, ast.Constant):
        return _const(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
        return _const(-node.operand.value)
    raise NotModelled("a method argument that is not a literal")


def _series_method(name: str, s: Elem, e: ast.Call, kwargs: dict, env: dict[str, Elem], reading: Reading) -> Elem:
    args = e.args
    if name in ("where", "mask") and 1 <= len(args) <= 2 and not kwargs:
        cond = _condition(_expr(args[0], env, reading), reading)
        other = _expr(args[1], env, reading) if len(args) == 2 else _missing_like(s)
        keep = cond if name == "where" else z3.Not(cond)
        return _choose(keep, s, other, "series")
    if name == "fillna" and len(args) == 1 and not kwargs:
        fill = _literal(args[0])
        return replace(_choose(s.missing, fill, replace(s, missing=F), "series"), missing=F)
    if name == "clip" and len(args) + len(kwargs) <= 2 and set(kwargs) <= {"lower", "upper"} and s.kind != "str":
        bounds = dict(zip(("lower", "upper"), args)) | kwargs
        out = s
        for key, node in bounds.items():
            if isinstance(node, ast.Constant) and node.value is None:
                continue
            b = _literal(node)
            kind, x, y = _number_pair(out, b)
            value = z3.If(x < y, y, x) if key == "lower" else z3.If(x > y, y, x)
            out = Elem(kind, value, out.missing, "series", out.bits if kind == "int" else None)
        return out
    if name in ("isna", "isnull", "notna", "notnull") and not args and not kwargs:
        value = s.missing if name in ("isna", "isnull") else z3.Not(s.missing)
        return Elem("bool", value, F, "series")
    if name == "abs" and not args and not kwargs:
        return _abs(s, reading, "series")
    if name == "isin" and len(args) == 1 and not kwargs and isinstance(args[0], (ast.List, ast.Tuple, ast.Set)):
        items = [_literal(x) for x in args[0].elts]
        hits = [_compare(ast.Eq(), s, item).value for item in items]
        return Elem("bool", z3.Or(*hits) if hits else F, F, "series")
    if name == "between" and len(args) == 2 and not kwargs:
        lo, hi = _literal(args[0]), _literal(args[1])
        both = z3.And(_compare(ast.GtE(), s, lo).value, _compare(ast.LtE(), s, hi).value)
        return Elem("bool", both, F, "series")
    raise NotModelled(f"method {name}() is not element-wise or not modelled")


def _str_method(name: str, s: Elem, e: ast.Call, kwargs: dict, env: dict[str, Elem], reading: Reading) -> Elem:
    if s.kind != "str":
        raise NotModelled(f".str on {s.kind} elements")
    args = e.args
    if name in ("startswith", "endswith") and len(args) == 1 and set(kwargs) <= {"na"}:
        prefix = _literal(args[0])
        if prefix.kind != "str":
            raise NotModelled(f".str.{name} of a non-string")
        fn = z3.PrefixOf if name == "startswith" else z3.SuffixOf
        value = fn(prefix.value, s.value)
        if "na" in kwargs:
            na = _literal(kwargs["na"])
            if na.kind != "bool":
                raise NotModelled("na= other than True or False")
            # a missing element gives the na= value
            return Elem("bool", z3.If(s.missing, na.value, value), F, "series")
        # without na=, a missing element stays missing (None in an object series)
        return Elem("bool", value, s.missing, "series")
    if name == "len" and not args and not kwargs:
        # a Spark string is shorter than 2**31 bytes; saying so keeps the overflow checks decidable
        length = z3.Length(s.value)
        return Elem("int", z3.If(length < 2 ** 31, length, 0), s.missing, "series", 64)
    if name in ("lower", "upper", "strip") and not args and not kwargs:
        # the same uninterpreted functions the Python UDF reader uses for str.lower() and friends
        f = z3.Function(f"str_{name}", z3.StringSort(), z3.StringSort())
        return Elem("str", f(s.value), s.missing, "series")
    raise NotModelled(f".str.{name}() is not modelled")
