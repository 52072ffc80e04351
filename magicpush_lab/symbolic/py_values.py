"""Symbolic Python values, the state of a symbolic run, and what a run records.

A `PyVal` is one Python value as the UDF interpreter (python_udf.py) sees it: its Python type
(`kind`), a Z3 term for it, and when it is None. Collections the UDF reads from the notebook, or
builds as tuples and lists, keep their items; functions and modules are values too. A value of a
type the model does not know (what an unmodelled call returns) is *opaque*: a term of the
uninterpreted sort `PyObj`, a black box of what it was made from (`opaque`). Nothing is assumed of
an opaque value beyond what Python guarantees: the same call on the same values gives the same
value (every Python UDF is deterministic to Spark, unless the user says otherwise), `str(x)` is a
string, `len(x)` an int; whether it is None, true, or raises is unknown.

>>> v = const(3)
>>> v.kind, z3.simplify(truthy(v))
('int', True)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import z3

from magicpush_lab.symbolic.values import NotModelled, default_value, string_value

T = z3.BoolVal(True)
F = z3.BoolVal(False)
PYOBJ = z3.DeclareSort("PyObj")

# the exception classes a run records, with their bases (what an `except` clause catches)
EXCEPTION_BASES = {
    "TypeError": ("Exception",), "ValueError": ("Exception",), "AttributeError": ("Exception",),
    "ZeroDivisionError": ("ArithmeticError", "Exception"), "OverflowError": ("ArithmeticError", "Exception"),
    "KeyError": ("LookupError", "Exception"), "IndexError": ("LookupError", "Exception"),
}
#: an error whose class is not known (raised inside an unmodelled call)
UNKNOWN_ERROR = "?"


@dataclass(frozen=True)
class PyVal:
    """A symbolic Python value: `kind` is its Python type; `none` says when it is None."""

    kind: str  # int float bool str none seq dict date timedelta opaque match split func module
    value: z3.ExprRef | None
    none: z3.BoolRef
    # a collection: its elements ("seq", a Row's fields in order) or (key, value) pairs ("dict")
    items: tuple = field(default=(), kw_only=True)
    # a "float" that may be a Python int at run time (`1 if c else 2.5`, `max(1, x)`): the model
    # reads it as a real either way, but a pickled UDF converts an int and a float differently
    int_or_float: bool = field(default=False, kw_only=True)
    # what the value is beyond its term: a Row's field names, a function's definition, a module's
    # dotted name, the separator of a split, whether a float is a parameter as Spark passed it
    extra: Any = field(default=None, kw_only=True, compare=False)


NONE = PyVal("none", None, T)


def const(v: object) -> PyVal:
    """A Python constant (a literal of the source, an item of a recorded collection)."""
    if v is None:
        return NONE
    if isinstance(v, bool):
        return PyVal("bool", z3.BoolVal(v), F)
    if isinstance(v, int):
        return PyVal("int", z3.IntVal(v), F)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise NotModelled("NaN/inf constants in UDFs are not modelled")
        return PyVal("float", z3.RealVal(v), F)
    if isinstance(v, str):
        return PyVal("str", string_value(v), F)
    if isinstance(v, (tuple, list, set, frozenset)):
        return seq(tuple(const(x) for x in v))
    raise NotModelled(f"constant of type {type(v).__name__}")


def seq(items: tuple, names: tuple[str, ...] | None = None) -> PyVal:
    """A tuple, list or set of known length (a Row when its fields have `names`)."""
    return PyVal("seq", None, F, items=tuple(items), extra=names)


_MAX_ITEMS = 256


def captured(v: object) -> PyVal:
    """A constant the UDF reads from the notebook: a scalar, or a small list, tuple, set or dict
    of scalars. A set is kept in its iteration order, which is the order the UDF sees."""
    if isinstance(v, (list, tuple, set, frozenset)):
        if len(v) > _MAX_ITEMS:
            raise NotModelled(f"a captured collection of more than {_MAX_ITEMS} items")
        if any(isinstance(x, (list, tuple, set, frozenset, dict)) for x in v):
            raise NotModelled("a captured collection of collections")
        return seq(tuple(const(x) for x in v))
    if isinstance(v, dict):
        if len(v) > _MAX_ITEMS:
            raise NotModelled(f"a captured dict of more than {_MAX_ITEMS} items")
        if any(isinstance(x, (list, tuple, set, frozenset, dict)) for x in (*v, *v.values())):
            raise NotModelled("a captured dict of collections")
        return PyVal("dict", None, F, items=tuple((const(k), const(x)) for k, x in v.items()))
    return const(v)


@dataclass
class State:
    env: dict[str, PyVal]
    live: z3.BoolRef


@dataclass
class Outcome:
    """What a run found: its returns (path condition, value), and the conditions under which it
    raises, in the order the code would raise them, with the exception's class where known."""

    returns: list[tuple[z3.BoolRef, PyVal]] = field(default_factory=list)
    errors: list[z3.BoolRef] = field(default_factory=list)
    errors_before_return: list[int] = field(default_factory=list)
    kinds: dict[int, str] = field(default_factory=dict)  # error index -> exception class
    # constructs read as black boxes: (source text, line in the function's source)
    unmodelled: list[tuple[str, int]] = field(default_factory=list)
    _counter: Any = field(default_factory=lambda: itertools.count(), repr=False)

    def fail_when(self, live: z3.BoolRef, cond: z3.BoolRef, kind: str = "TypeError") -> None:
        self.kinds[len(self.errors)] = kind
        self.errors.append(z3.And(live, cond))

    def add_return(self, live: z3.BoolRef, value: PyVal) -> None:
        """Record a return, and how many errors were recorded before it: only those can
        have been raised on the path that reaches it (used by the row-iteration model)."""
        self.returns.append((live, value))
        self.errors_before_return.append(len(self.errors))

    def fresh(self) -> int:
        """A number unique within this run, the same in every run of the same source."""
        return next(self._counter)

    def frame(self) -> "Outcome":
        """An Outcome for a called function: its own returns, the caller's errors."""
        return Outcome(errors=self.errors, kinds=self.kinds, unmodelled=self.unmodelled, _counter=self._counter)


# ----------------------------------------------------------------------------- truth and numbers


def truthy(v: PyVal) -> z3.BoolRef:
    """Python's truth value (the caller records what raises, for opaque values)."""
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
    if v.kind == "timedelta":
        return z3.And(z3.Not(v.none), v.value != 0)
    if v.kind in ("date", "match", "func", "module"):
        return z3.Not(v.none)  # objects without __bool__ or __len__ are true
    if v.kind == "opaque":
        return z3.And(z3.Not(v.none), z3.Function("py_truthy", PYOBJ, z3.BoolSort())(v.value))
    raise NotModelled(f"truth value of {v.kind}")


def as_int(v: PyVal) -> PyVal:
    if v.kind == "bool":  # bool is an int subclass in Python
        return PyVal("int", z3.If(v.value, z3.IntVal(1), z3.IntVal(0)), v.none)
    if v.kind == "none":
        raise NotModelled("arithmetic on a value that is always None")
    return v


def as_float(v: PyVal) -> PyVal:
    if v.kind == "int":
        return PyVal("float", z3.ToReal(v.value), v.none)
    return v


def same_number_kind(a: PyVal, b: PyVal) -> tuple[PyVal, PyVal]:
    """Python's numeric tower for a binary operation: bool is int, and int meets float as float."""
    a, b = as_int(a), as_int(b)
    if a.kind != b.kind:
        a, b = as_float(a), as_float(b)
    return a, b


_SORTS = {"int": z3.IntSort(), "float": z3.RealSort(), "str": z3.StringSort(), "bool": z3.BoolSort(),
          "date": z3.IntSort(), "timedelta": z3.IntSort(), "opaque": PYOBJ, "match": z3.BoolSort()}


def sort_of_kind(kind: str) -> z3.SortRef:
    if kind not in _SORTS:
        raise NotModelled(f"a {kind} value that differs between paths")
    return _SORTS[kind]


# ----------------------------------------------------------------------------- opaque values


_BOX = {"int": "box_int", "float": "box_float", "str": "box_str", "bool": "box_bool", "date": "box_date",
        "timedelta": "box_timedelta", "match": "box_match"}


def box(v: PyVal) -> z3.ExprRef:
    """A value as a `PyObj` term: each Python type by an injection of its own, None one object."""
    none_obj = z3.Const("py_None", PYOBJ)
    if v.kind == "none":
        return none_obj
    if v.kind == "opaque":
        return z3.If(v.none, none_obj, v.value)
    if v.kind == "seq" and not v.extra:
        parts = [box(x) for x in v.items]
        made = z3.Function(f"box_tuple{len(parts)}", *([PYOBJ] * len(parts)), PYOBJ)
        return made(*parts) if parts else z3.Const("py_empty_tuple", PYOBJ)
    if v.kind not in _BOX:
        # a captured list or dict handed to unknown code could be changed by it, for every
        # later row too; a function or module is not a value the model can name
        raise NotModelled(f"a {v.kind} passed to code the model does not read")
    inject = z3.Function(_BOX[v.kind], _SORTS[v.kind], PYOBJ)
    return z3.If(v.none, none_obj, inject(v.value if v.value is not None else default_value(_SORTS[v.kind])))


def opaque(name: str, args: tuple[PyVal, ...], st: State, out: Outcome, what: str = "",
           line: int = 0, kind: str = "opaque", raises: str = UNKNOWN_ERROR) -> PyVal:
    """The value of a call the model does not read: an uninterpreted function `name` of the
    arguments, which may raise (an unknown condition of the same arguments). `kind` is the
    value's type when Python guarantees it (`len` gives an int), "opaque" otherwise."""
    boxed = [box(a) for a in args]
    domain = [PYOBJ] * len(boxed)
    safe = "".join(ch if ch.isalnum() else "_" for ch in name)
    fails = z3.Function(f"py_raises_{safe}_{len(boxed)}", *domain, z3.BoolSort()) if boxed else \
        z3.Bool(f"py_raises_{safe}")
    out.fail_when(st.live, fails(*boxed) if boxed else fails, raises)
    if what and not any(a.kind == "opaque" for a in args):
        out.unmodelled.append((what, line))  # where the unknown starts, not what is made of it
    sort = _SORTS.get(kind, PYOBJ)
    fn = z3.Function(f"py_{safe}_{len(boxed)}_{kind}", *domain, sort) if boxed else None
    term = fn(*boxed) if fn is not None else z3.Const(f"py_{safe}_{kind}", sort)
    if kind == "opaque":
        return PyVal("opaque", term, z3.Function("py_is_none", PYOBJ, z3.BoolSort())(term), extra=what)
    return PyVal(kind, term, F)


def unknown_state(v: PyVal, out: Outcome, cause: z3.ExprRef) -> PyVal:
    """An opaque value after code the model does not read may have changed it (a method called on
    it, or on anything else: objects can share state): a new unknown object, made from the old
    one and the call (`cause`, the call's own black box, which holds its arguments)."""
    if v.kind == "opaque":
        term = z3.Function(f"py_state_{out.fresh()}", PYOBJ, PYOBJ, PYOBJ)(v.value, cause)
        return PyVal("opaque", term, z3.Function("py_is_none", PYOBJ, z3.BoolSort())(term), extra=v.extra)
    if v.kind == "seq" and any(x.kind in ("opaque", "seq") for x in v.items):
        return replace(v, items=tuple(unknown_state(x, out, cause) for x in v.items))
    return v


def forget_opaque_states(env: dict[str, PyVal], out: Outcome, call: PyVal) -> dict[str, PyVal]:
    """`env` after `call`, a call the model does not read."""
    cause = box(call) if call.kind != "none" else z3.Const("py_None", PYOBJ)
    return {k: unknown_state(v, out, cause) for k, v in env.items()}


# ----------------------------------------------------------------------------- merging


def ite(c: z3.BoolRef, a: PyVal, b: PyVal) -> PyVal:
    """The value that is `a` where `c` holds and `b` elsewhere."""
    if a is b:
        return a
    if a.kind == "none" and b.kind == "none":
        return NONE
    if a.kind in ("func", "module") or b.kind in ("func", "module"):
        if a.kind == b.kind and a.extra is b.extra:
            return a
        raise NotModelled("a function that differs between paths")
    if a.kind == "seq" and b.kind == "seq":
        if len(a.items) != len(b.items) or a.extra != b.extra:
            raise NotModelled("collections of different shapes on different paths")
        return replace(a, items=tuple(ite(c, x, y) for x, y in zip(a.items, b.items)))
    if a.kind == "dict" or b.kind == "dict" or a.kind == "seq" or b.kind == "seq":
        if a.kind == b.kind and a.items == b.items:
            return a
        raise NotModelled("a collection that differs between paths")
    if a.kind == "split" or b.kind == "split":
        if a.kind == b.kind and a.extra == b.extra:
            return replace(a, value=z3.If(c, a.value, b.value), none=z3.If(c, a.none, b.none))
        raise NotModelled("a split that differs between paths")
    kinds = {a.kind, b.kind} - {"none"}
    mixed = kinds == {"int", "float"}
    if len(kinds) > 1:
        if mixed:
            a, b = as_float(a), as_float(b)
        else:
            # two Python types: the one the model can name for both is an object
            a, b = to_opaque(a), to_opaque(b)
        kinds = {a.kind, b.kind} - {"none"}
    kind = kinds.pop()
    sort = sort_of_kind(kind)
    av = a.value if a.value is not None else default_value(sort)
    bv = b.value if b.value is not None else default_value(sort)
    return PyVal(kind, z3.If(c, av, bv), z3.If(c, a.none, b.none),
                 int_or_float=mixed or a.int_or_float or b.int_or_float,
                 extra=a.extra if a.extra == b.extra else None)


def to_opaque(v: PyVal) -> PyVal:
    if v.kind in ("opaque", "none"):
        return v
    term = box(v)
    return PyVal("opaque", term, v.none)


def ite_of(paths: list[tuple[z3.BoolRef, PyVal]], otherwise: PyVal) -> PyVal:
    """The value of the first path whose condition holds (conditions are exclusive)."""
    result = otherwise
    for cond, v in reversed(paths):
        result = ite(cond, v, result)
    return result


def mapped(fn: Callable[[PyVal], PyVal], items: tuple) -> tuple:
    return tuple(fn(x) for x in items)
