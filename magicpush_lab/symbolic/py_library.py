"""What everyday Python does to values, symbolically: operators, `str` methods, `datetime`
dates, `math`, `re` and the built-in functions a UDF body calls.

Each function takes evaluated `PyVal`s (py_values.py) and returns one, recording in the run's
`Outcome` when the operation raises and which exception it raises (so that `try`/`except` can
catch it). What has an exact Z3 model is modelled exactly: comparisons, arithmetic, string
slicing, `startswith`/`endswith`, `in`, `len`, `replace`, `find`, `split(sep)[i]`, string
concatenation and f-strings of strings and ints, a date's fields and weekday, date arithmetic
with `timedelta`, `strftime` with `%Y %m %d`, `math.floor`/`ceil`, `round(x)`, regular
expressions of a common subset (pyregex.py). The rest is a black box (`py_values.opaque`): an
uninterpreted function of its arguments that may raise, about which nothing else is assumed.

>>> import z3
>>> from magicpush_lab.symbolic.py_values import Outcome, State, T, const
>>> out = Outcome()
>>> v = method(const("a-b-c"), "split", [const("-")], {}, State({}, T), out, ("", 0))
>>> z3.simplify(subscript_split(v, const(1), State({}, T), out).value)
"b"
"""

from __future__ import annotations

import datetime as dt
import string

import z3

from magicpush_lab.symbolic import calendar as C
from magicpush_lab.symbolic import pyregex
from magicpush_lab.symbolic.py_values import (F, NONE, PYOBJ, T, Outcome, PyVal, State, as_float, as_int, box,
                                              const, opaque, same_number_kind, seq, truthy)
from magicpush_lab.symbolic.values import NotModelled, string_value

Where = tuple[str, int]  # the construct's source text and line, for notes on what was not read
MICROS_PER_DAY = 86_400_000_000
_MAX_TIMEDELTA_DAYS = 999_999_999


# ----------------------------------------------------------------------------- equality, order


def equal(a: PyVal, b: PyVal) -> z3.BoolRef:
    """`a == b` for values whose equality Python defines without user code."""
    if a.kind == "none" or b.kind == "none":
        return z3.And(a.none, b.none)
    if "opaque" in (a.kind, b.kind) or "seq" in (a.kind, b.kind) or "dict" in (a.kind, b.kind):
        raise NotModelled("== between collections or unknown objects")
    if a.kind in ("int", "float", "bool") and b.kind in ("int", "float", "bool"):
        a, b = same_number_kind(a, b)
    elif a.kind != b.kind or a.kind not in ("str", "date", "timedelta"):
        return z3.And(a.none, b.none)  # different Python types are never equal
    both = z3.And(z3.Not(a.none), z3.Not(b.none))
    return z3.Or(z3.And(a.none, b.none), z3.And(both, a.value == b.value))


_ORDER = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}


def order(op: str, a: PyVal, b: PyVal, st: State, out: Outcome) -> z3.BoolRef:
    """`a < b` and the like: TypeError on None and between unrelated types."""
    out.fail_when(st.live, z3.Or(a.none, b.none))
    numbers = {"int", "float", "bool"}
    if a.kind in numbers and b.kind in numbers:
        a, b = same_number_kind(a, b)
    elif a.kind != b.kind or a.kind not in ("str", "date", "timedelta"):
        out.fail_when(st.live, T)  # '<' not supported between these types
        return F
    # Z3 orders strings by code point, as Python does
    return _ORDER[op](a.value, b.value)


def contains(a: PyVal, b: PyVal, st: State, out: Outcome) -> z3.BoolRef:
    """`a in b`."""
    if b.kind == "seq":
        return z3.Or(*[equal(a, x) for x in b.items]) if b.items else F
    if b.kind == "dict":
        return z3.Or(*[equal(a, k) for k, _ in b.items]) if b.items else F
    if b.kind == "str":
        out.fail_when(st.live, b.none)
        if a.kind != "str":
            out.fail_when(st.live, T)  # 'in <string>' requires string as left operand
            return F
        out.fail_when(st.live, a.none)
        return z3.Contains(b.value, a.value)
    if b.kind == "split" and a.kind == "str":
        out.fail_when(st.live, a.none)
        f = z3.Function(f"py_in_split_{pyregex.literal_name(b.extra)}", z3.StringSort(), z3.StringSort(),
                        z3.BoolSort())
        return f(b.value, a.value)
    raise NotModelled(f"`in` over a {b.kind}")


# ----------------------------------------------------------------------------- arithmetic


def binop(op: str, a: PyVal, b: PyVal, st: State, out: Outcome, where: Where) -> PyVal:
    """`a <op> b` for op in + - * / // % ** and the bitwise operators."""
    if a.kind == "opaque" or b.kind == "opaque":
        return opaque(f"op_{_OP_NAMES[op]}", (a, b), st, out, where[0], where[1])
    if op == "+" and a.kind == "str" and b.kind == "str":
        out.fail_when(st.live, z3.Or(a.none, b.none))
        return PyVal("str", z3.Concat(a.value, b.value), F)
    if op == "+" and a.kind == "seq" and b.kind == "seq" and not a.extra and not b.extra:
        return seq(a.items + b.items)
    if op in ("*", "%") and "str" in (a.kind, b.kind):
        # str * int repeats, str % args formats: a str or an error, which the model does not read
        return opaque(f"str_op_{_OP_NAMES[op]}", (a, b), st, out, where[0], where[1], kind="str")
    if {a.kind, b.kind} & {"date", "timedelta"}:
        return _date_arith(op, a, b, st, out)
    if op in ("&", "|", "^", "<<", ">>") and a.kind in ("int", "bool") and b.kind in ("int", "bool"):
        out.fail_when(st.live, z3.Or(a.none, b.none))
        if op in ("<<", ">>"):
            out.fail_when(st.live, as_int(b).value < 0, "ValueError")  # negative shift count
        if a.kind == b.kind == "bool" and op in ("&", "|", "^"):
            x, y = a.value, b.value
            return PyVal("bool", {"&": z3.And(x, y), "|": z3.Or(x, y), "^": x != y}[op], F)
        f = z3.Function(f"py_int_{_OP_NAMES[op]}", z3.IntSort(), z3.IntSort(), z3.IntSort())
        return PyVal("int", f(as_int(a).value, as_int(b).value), F)
    require_number(a, st, out)
    require_number(b, st, out)
    if op == "**":
        return _power(a, b, st, out, where)
    mixed = a.int_or_float or b.int_or_float  # an operand that may be an int keeps that (unless /)
    a, b = same_number_kind(a, b)
    x, y = a.value, b.value
    if op in ("+", "-", "*"):
        value = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y}[op]()
        return PyVal(a.kind, value, F, int_or_float=mixed)
    if op == "/":
        out.fail_when(st.live, y == 0, "ZeroDivisionError")
        return PyVal("float", as_float(a).value / as_float(b).value, F)
    if op in ("//", "%"):
        out.fail_when(st.live, y == 0, "ZeroDivisionError")
        if a.kind == "int":
            # Python rounds toward -inf for either sign of the divisor
            q = z3.If(y > 0, x / y, (-x) / (-y))
            return PyVal("int", q if op == "//" else x - y * q, F)
        q = z3.ToReal(z3.ToInt(x / y))  # floor of the real quotient, as a float
        return PyVal("float", q if op == "//" else x - y * q, F, int_or_float=mixed)
    raise NotModelled(f"operator {op} on {a.kind}")


_OP_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow",
             "&": "and", "|": "or", "^": "xor", "<<": "lshift", ">>": "rshift"}


def _power(a: PyVal, b: PyVal, st: State, out: Outcome, where: Where) -> PyVal:
    k = b.value if b.kind in ("int", "bool") else None
    k = z3.simplify(as_int(b).value) if k is not None else None
    if k is not None and z3.is_int_value(k) and 0 <= k.as_long() <= 8:
        base = as_int(a)
        value = z3.IntVal(1) if base.kind == "int" else z3.RealVal(1)
        for _ in range(k.as_long()):
            value = value * base.value
        return PyVal(base.kind, value, F, int_or_float=a.int_or_float)
    # a negative base to a fractional power is a complex number in Python: not a float
    return opaque("op_pow", (a, b), st, out, where[0], where[1])


def require_number(v: PyVal, st: State, out: Outcome) -> None:
    if v.kind not in ("int", "float", "bool", "none"):
        if v.kind in ("str", "date", "timedelta", "seq", "dict"):
            out.fail_when(st.live, T)  # unsupported operand type(s)
            raise NotModelled(f"arithmetic on a {v.kind}")
        raise NotModelled(f"arithmetic on {v.kind}")
    out.fail_when(st.live, v.none)  # TypeError: unsupported operand type(s) ... 'NoneType'


def negate(v: PyVal, st: State, out: Outcome) -> PyVal:
    if v.kind == "timedelta":
        out.fail_when(st.live, v.none)
        return PyVal("timedelta", -v.value, F)
    require_number(v, st, out)
    mixed = v.int_or_float
    v = as_int(v)  # -True is -1
    return PyVal(v.kind, -v.value, F, int_or_float=mixed)


# ----------------------------------------------------------------------------- dates


def date_const(d: dt.date) -> PyVal:
    return PyVal("date", z3.IntVal(C.days(d)), F)


def _date_arith(op: str, a: PyVal, b: PyVal, st: State, out: Outcome) -> PyVal:
    out.fail_when(st.live, z3.Or(a.none, b.none))
    kinds = (a.kind, b.kind)
    if kinds == ("date", "timedelta") and op in ("+", "-") or kinds == ("timedelta", "date") and op == "+":
        d, td = (a, b) if a.kind == "date" else (b, a)
        shift = _days_of(td.value)
        made = d.value + shift if op == "+" else d.value - shift
        out.fail_when(st.live, z3.Not(C.in_range(made)), "OverflowError")  # date value out of range
        return PyVal("date", made, F)
    if kinds == ("date", "date") and op == "-":
        return PyVal("timedelta", (a.value - b.value) * MICROS_PER_DAY, F)
    if kinds == ("timedelta", "timedelta") and op in ("+", "-"):
        return _timedelta(a.value + b.value if op == "+" else a.value - b.value, st, out)
    if op == "*" and set(kinds) == {"timedelta", "int"}:
        td, n = (a, b) if a.kind == "timedelta" else (b, a)
        return _timedelta(td.value * n.value, st, out)
    out.fail_when(st.live, T)  # unsupported operand types
    raise NotModelled(f"{a.kind} {op} {b.kind}")


def _days_of(micros: z3.ArithRef) -> z3.ArithRef:
    """timedelta.days: the whole days, rounded toward -inf (the seconds part is never negative)."""
    return micros / MICROS_PER_DAY  # Z3's division floors for a positive divisor


def _timedelta(micros: z3.ArithRef, st: State, out: Outcome) -> PyVal:
    limit = _MAX_TIMEDELTA_DAYS * MICROS_PER_DAY
    out.fail_when(st.live, z3.Or(micros < -limit, micros >= limit + MICROS_PER_DAY), "OverflowError")
    return PyVal("timedelta", micros, F)


_TIMEDELTA_UNITS = {"weeks": 7 * MICROS_PER_DAY, "days": MICROS_PER_DAY, "hours": 3_600_000_000,
                    "minutes": 60_000_000, "seconds": 1_000_000, "milliseconds": 1000, "microseconds": 1}


def timedelta(args: list[PyVal], kwargs: dict[str, PyVal], st: State, out: Outcome) -> PyVal:
    """datetime.timedelta(...) of integer amounts (floats are rounded by Python: not read)."""
    order_ = ["days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks"]
    named = dict(zip(order_, args)) | kwargs
    if len(args) > len(order_) or set(named) - set(_TIMEDELTA_UNITS):
        raise NotModelled("timedelta with other arguments")
    total: z3.ArithRef = z3.IntVal(0)
    for unit, v in named.items():
        if v.kind not in ("int", "bool"):
            raise NotModelled(f"timedelta({unit}=...) of a {v.kind}")
        out.fail_when(st.live, v.none)
        total = total + as_int(v).value * _TIMEDELTA_UNITS[unit]
    return _timedelta(total, st, out)


def date_of(args: list[PyVal], kwargs: dict[str, PyVal], st: State, out: Outcome) -> PyVal:
    """datetime.date(y, m, d) of constants."""
    parts = args + [kwargs[k] for k in ("year", "month", "day") if k in kwargs]
    values = [z3.simplify(p.value) if p.kind == "int" else None for p in parts]
    if len(values) != 3 or not all(v is not None and z3.is_int_value(v) for v in values):
        raise NotModelled("date(...) of anything but three int literals")
    try:
        return date_const(dt.date(*(v.as_long() for v in values)))  # type: ignore[union-attr]
    except ValueError:
        out.fail_when(st.live, T, "ValueError")
        return NONE


def date_attribute(d: PyVal, name: str, st: State, out: Outcome) -> PyVal | None:
    fields = {"year": C.year, "month": C.month, "day": C.day}
    if name in fields:
        out.fail_when(st.live, d.none, "AttributeError")
        return PyVal("int", fields[name](d.value), F)
    return None


def timedelta_attribute(td: PyVal, name: str, st: State, out: Outcome) -> PyVal | None:
    out.fail_when(st.live, td.none, "AttributeError")
    days = _days_of(td.value)
    rest = td.value - days * MICROS_PER_DAY
    if name == "days":
        return PyVal("int", days, F)
    if name == "seconds":
        return PyVal("int", rest / 1_000_000, F)
    if name == "microseconds":
        return PyVal("int", rest % 1_000_000, F)
    return None


def date_method(d: PyVal, name: str, args: list[PyVal], st: State, out: Outcome) -> PyVal | None:
    if name in ("weekday", "isoweekday", "toordinal", "isoformat", "__str__") and not args:
        out.fail_when(st.live, d.none, "AttributeError")
        if name == "weekday":
            return PyVal("int", C.weekday(d.value), F)
        if name == "isoweekday":
            return PyVal("int", C.weekday(d.value) + 1, F)
        if name == "toordinal":
            return PyVal("int", d.value + C.days(dt.date(1, 1, 1)) * -1 + 1, F)
        return PyVal("str", iso(d.value), F)
    if name == "strftime" and len(args) == 1 and args[0].kind == "str":
        fmt = z3.simplify(args[0].value)
        if not z3.is_string_value(fmt):
            return None
        out.fail_when(st.live, d.none, "AttributeError")
        text = strftime(d.value, fmt.as_string())
        return PyVal("str", text, F) if text is not None else None
    return None


def _pad(n: z3.ArithRef, width: int) -> z3.SeqRef:
    """A non-negative int in decimal, zero-padded to `width` digits (wider numbers unpadded)."""
    digits = z3.IntToStr(n)
    out = digits
    for w in range(width - 1, 0, -1):
        out = z3.If(n < 10 ** w, z3.Concat(string_value("0" * (width - w)), digits), out)
    return out


def iso(days: z3.ArithRef) -> z3.SeqRef:
    """date.isoformat(): the year always in four digits."""
    return z3.Concat(_pad(C.year(days), 4), string_value("-"), _pad(C.month(days), 2), string_value("-"),
                     _pad(C.day(days), 2))


def strftime(days: z3.ArithRef, fmt: str) -> z3.SeqRef | None:
    """date.strftime for `%Y %m %d %%` and literal text; None for other directives (their text
    depends on the locale or the platform). `%Y` of a year before 1000 is the platform's choice:
    that part is a black box there."""
    parts: list[z3.SeqRef] = []
    i = 0
    while i < len(fmt):
        if fmt[i] != "%":
            j = fmt.find("%", i)
            j = len(fmt) if j < 0 else j
            parts.append(string_value(fmt[i:j]))
            i = j
            continue
        code = fmt[i + 1:i + 2]
        if code == "Y":
            year = C.year(days)
            unknown = z3.Function("py_strftime_Y_before_1000", z3.IntSort(), z3.StringSort())(year)
            parts.append(z3.If(year >= 1000, z3.IntToStr(year), unknown))
        elif code == "m":
            parts.append(_pad(C.month(days), 2))
        elif code == "d":
            parts.append(_pad(C.day(days), 2))
        elif code == "%":
            parts.append(string_value("%"))
        else:
            return None
        i += 2
    if not parts:
        return string_value("")
    return z3.Concat(*parts) if len(parts) > 1 else parts[0]


# ----------------------------------------------------------------------------- strings


def to_str(v: PyVal, st: State, out: Outcome, where: Where) -> PyVal:
    """str(v), and what an f-string's `{v}` gives."""
    if v.kind == "none":
        return const("None")
    if v.kind == "str":
        text = v.value
    elif v.kind == "int":
        text = z3.If(v.value >= 0, z3.IntToStr(v.value), z3.Concat(string_value("-"), z3.IntToStr(-v.value)))
    elif v.kind == "bool":
        text = z3.If(v.value, string_value("True"), string_value("False"))
    elif v.kind == "date":
        text = iso(v.value)
    elif v.kind in ("float", "opaque", "timedelta", "seq", "match"):
        # Python guarantees a str; which one (a float's shortest repr, say) is not modelled
        made = opaque(f"str_of_{v.kind}", (v,), st, out, where[0], where[1], kind="str")
        return made
    else:
        raise NotModelled(f"str() of a {v.kind}")
    return PyVal("str", z3.If(v.none, string_value("None"), text), F)


def fstring(parts: list[PyVal | tuple[PyVal, str, str]], st: State, out: Outcome, where: Where) -> PyVal:
    """An f-string or str.format: literal parts, and (value, conversion, spec) fields."""
    pieces = []
    for p in parts:
        if isinstance(p, PyVal):
            pieces.append(p.value)
            continue
        v, conversion, spec = p
        if conversion in ("", "s") and not spec:
            pieces.append(to_str(v, st, out, where).value)
        else:  # a format spec or repr: Python's formatting, not modelled
            made = opaque(f"format_{conversion}_{spec}", (v,), st, out, where[0], where[1], kind="str")
            pieces.append(made.value)
    if not pieces:
        return const("")
    return PyVal("str", z3.Concat(*pieces) if len(pieces) > 1 else pieces[0], F)


def format_call(template: str, args: list[PyVal], kwargs: dict[str, PyVal], st: State, out: Outcome,
                where: Where) -> PyVal:
    """'...{}...'.format(...) with automatic or numbered fields and keyword fields."""
    parts: list[PyVal | tuple[PyVal, str, str]] = []
    auto = 0
    for literal, name, spec, conversion in string.Formatter().parse(template):
        if literal:
            parts.append(const(literal))
        if name is None:
            continue
        if name == "":
            if auto >= len(args):
                raise NotModelled("format() with fewer arguments than fields")
            value, auto = args[auto], auto + 1
        elif name.isdigit() and int(name) < len(args):
            value = args[int(name)]
        elif name in kwargs:
            value = kwargs[name]
        else:
            raise NotModelled(f"format field {{{name}}}")
        parts.append((value, conversion or "", spec or ""))
    return fstring(parts, st, out, where)


_SAME_KIND_METHODS = ("upper", "lower", "strip", "lstrip", "rstrip", "title", "capitalize", "casefold", "swapcase")
_PREDICATES = ("isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower", "isnumeric", "isdecimal",
               "istitle", "isascii")


def str_method(s: PyVal, name: str, args: list[PyVal], kwargs: dict[str, PyVal], st: State, out: Outcome,
               where: Where) -> PyVal | None:
    """A method of a str; None when the model does not know it (the caller makes it a black box)."""
    out.fail_when(st.live, s.none, "AttributeError")  # 'NoneType' object has no attribute ...
    s = PyVal("str", s.value, F)
    if kwargs and name != "format":
        return None
    if name in ("startswith", "endswith") and len(args) == 1:
        options = args[0].items if args[0].kind == "seq" and not args[0].extra else (args[0],)
        # a tuple is tried in order: a match stops before an item that is not a str raises
        found: z3.BoolRef = F
        for o in options:
            if o.kind != "str" or z3.is_true(z3.simplify(o.none)):
                out.fail_when(st.live, z3.Not(found))  # must be str or a tuple of str
                return PyVal("bool", found, F)
            out.fail_when(st.live, z3.And(z3.Not(found), o.none))
            fn = z3.PrefixOf if name == "startswith" else z3.SuffixOf
            found = z3.Or(found, fn(o.value, s.value))
        return PyVal("bool", found, F)
    if name in _SAME_KIND_METHODS and not args:
        # Unicode case mapping and white space: Python's own tables, not Spark's upper or trim; an
        # uninterpreted function, so a note names it as a black box
        out.unmodelled.append(where)
        return PyVal("str", z3.Function(f"py_str_{name}", z3.StringSort(), z3.StringSort())(s.value), F)
    if name in _PREDICATES and not args:
        out.unmodelled.append(where)
        return PyVal("bool", z3.Function(f"py_str_{name}", z3.StringSort(), z3.BoolSort())(s.value), F)
    if name == "replace" and len(args) == 2 and all(a.kind == "str" for a in args):
        old = z3.simplify(args[0].value)
        out.fail_when(st.live, z3.Or(args[0].none, args[1].none))
        if z3.is_string_value(old) and old.as_string():
            return PyVal("str", replace_all(s.value, args[0].value, args[1].value), F)
        return None  # '' as the old text inserts between characters
    if name == "find" and len(args) == 1 and args[0].kind == "str":
        out.fail_when(st.live, args[0].none)
        return PyVal("int", z3.IndexOf(s.value, args[0].value, 0), F)
    if name == "index" and len(args) == 1 and args[0].kind == "str":
        out.fail_when(st.live, args[0].none)
        at = z3.IndexOf(s.value, args[0].value, 0)
        out.fail_when(st.live, at < 0, "ValueError")  # substring not found
        return PyVal("int", at, F)
    if name == "split" and len(args) == 1 and args[0].kind == "str":
        sep = z3.simplify(args[0].value)
        out.fail_when(st.live, args[0].none)
        if z3.is_string_value(sep) and sep.as_string():
            return PyVal("split", s.value, F, extra=sep.as_string())
        out.fail_when(st.live, z3.Length(args[0].value) == 0, "ValueError")  # empty separator
        return None
    if name == "format":
        template = z3.simplify(s.value)
        if z3.is_string_value(template):
            return format_call(template.as_string(), args, kwargs, st, out, where)
        return None
    if name == "join" and len(args) == 1 and args[0].kind == "seq":
        items = args[0].items
        for x in items:
            if x.kind != "str":
                out.fail_when(st.live, T)  # sequence item: expected str instance
                return const("")
            out.fail_when(st.live, x.none)
        if not items:
            return const("")
        pieces = [items[0].value]
        for x in items[1:]:
            pieces += [s.value, x.value]
        return PyVal("str", z3.Concat(*pieces) if len(pieces) > 1 else pieces[0], F)
    return None


def replace_all(s: z3.SeqRef, old: z3.SeqRef, new: z3.SeqRef) -> z3.SeqRef:
    """str.replace(old, new): every occurrence, left to right (Z3's str.replace_all)."""
    return z3.SeqRef(z3.Z3_mk_seq_replace_all(s.ctx_ref(), s.as_ast(), old.as_ast(), new.as_ast()), s.ctx)


def pieces_count(text: z3.SeqRef, sep: str) -> z3.ArithRef:
    """How many pieces `text.split(sep)` gives, for a non-empty constant `sep`: an
    uninterpreted function of the text, one per separator. Spark's `size(split(s, p, -1))`,
    `p` a pattern that matches `sep` literally, is the same count (empty pieces kept, leading
    and trailing ones too, one piece for the empty text: Java's split with a negative limit),
    so both sides name this one term (spark_functions.size_of_split).

    >>> a, b = pieces_count(z3.String("t"), " "), pieces_count(z3.String("t"), ",")
    >>> z3.eq(a, pieces_count(z3.String("t"), " ")), z3.eq(a, b)
    (True, False)
    """
    count = z3.Function(f"py_split_count_{pyregex.literal_name(sep)}", z3.StringSort(), z3.IntSort())
    return count(text)


def subscript_split(parts: PyVal, index: PyVal, st: State, out: Outcome) -> PyVal:
    """s.split(sep)[i] for a constant i >= 0 or -1: the text between the i-th and (i+1)-th
    separator; IndexError when there are not that many parts."""
    k = z3.simplify(as_int(index).value) if index.kind in ("int", "bool") else None
    if k is None or not z3.is_int_value(k) or k.as_long() < -1:
        raise NotModelled("split(...)[i] with an index other than a literal")
    s, sep = parts.value, string_value(parts.extra)
    width = len(parts.extra)
    if k.as_long() == -1:
        last = z3.LastIndexOf(s, sep)
        start = z3.If(last >= 0, last + width, 0)
        return PyVal("str", z3.SubString(s, start, z3.Length(s) - start), F)
    start: z3.ArithRef = z3.IntVal(0)
    found = []
    for _ in range(k.as_long()):
        at = z3.IndexOf(s, sep, start)
        found.append(at >= 0)
        start = at + width
    out.fail_when(st.live, z3.Not(z3.And(*found)) if found else F, "IndexError")
    at = z3.IndexOf(s, sep, start)
    end = z3.If(at >= 0, at, z3.Length(s))
    return PyVal("str", z3.SubString(s, start, end - start), F)


def method(recv: PyVal, name: str, args: list[PyVal], kwargs: dict[str, PyVal], st: State, out: Outcome,
           where: Where) -> PyVal:
    """`recv.name(*args, **kwargs)`; a method the model does not know is a black box of the
    receiver and the arguments (the caller forgets what it knew of objects it may change)."""
    made: PyVal | None = None
    if recv.kind == "str":
        made = str_method(recv, name, args, kwargs, st, out, where)
    elif recv.kind == "date" and not kwargs:
        made = date_method(recv, name, args, st, out)
    elif recv.kind == "dict" and name == "get" and len(args) in (1, 2) and not kwargs:
        made = lookup(recv, args[0], args[1] if len(args) == 2 else NONE)
    elif recv.kind == "dict" and name in ("keys", "values", "items") and not args and not kwargs:
        made = seq(tuple(k if name == "keys" else v if name == "values" else seq((k, v)) for k, v in recv.items))
    elif recv.kind == "seq" and recv.extra and name == "asDict" and not args and not kwargs:
        made = PyVal("dict", None, F, items=tuple(zip(map(const, recv.extra), recv.items)))
    elif recv.kind == "match":
        made = match_method(recv, name, args, st, out)
    elif recv.kind == "timedelta" and name == "total_seconds" and not args and not kwargs:
        out.fail_when(st.live, recv.none, "AttributeError")
        made = PyVal("float", z3.ToReal(recv.value) / 1_000_000, F)
    if made is not None:
        return made
    if recv.kind in ("seq", "dict"):
        raise NotModelled(f"method {name}() of a {'collection' if recv.kind == 'seq' else 'dict'}")
    if recv.kind == "none":
        out.fail_when(st.live, T, "AttributeError")
        return NONE
    kind = "str" if recv.kind == "str" and name in ("zfill", "ljust", "rjust", "center", "expandtabs") \
        else "int" if recv.kind == "str" and name in ("count", "rfind") else "opaque"
    return opaque(f"{recv.kind}_{name}", (recv, *args, *kwargs.values()), st, out, where[0], where[1], kind)


def lookup(d: PyVal, key: PyVal, missing: PyVal) -> PyVal:
    """d[key] as a chain of tests, the first equal key winning (keys are distinct)."""
    from magicpush_lab.symbolic.py_values import ite

    result = missing
    for k, v in reversed(d.items):
        result = ite(equal(key, k), v, result)
    return result


def has_key(d: PyVal, key: PyVal) -> z3.BoolRef:
    return z3.Or(*[equal(key, k) for k, _ in d.items]) if d.items else F


# ----------------------------------------------------------------------------- regular expressions


def re_call(name: str, args: list[PyVal], kwargs: dict[str, PyVal], st: State, out: Outcome,
            where: Where) -> PyVal:
    """re.match / search / fullmatch / sub with a literal pattern."""
    if kwargs or len(args) < 2 or args[0].kind != "str":
        raise NotModelled(f"re.{name} in this form")
    pattern = z3.simplify(args[0].value)
    if not z3.is_string_value(pattern):
        raise NotModelled(f"re.{name} with a pattern that is not a literal")
    text = pattern.as_string()
    if name in ("match", "search", "fullmatch") and len(args) == 2:
        s = args[1]
        if s.kind != "str":
            out.fail_when(st.live, T)  # expected string or bytes-like object
            return NONE
        out.fail_when(st.live, s.none)
        matched = pyregex.matches(name, text, s.value)
        if matched is None:  # a pattern outside the modelled subset: an unknown test of the text
            f = z3.Function(f"py_re_{name}_{pyregex.literal_name(text)}", z3.StringSort(), z3.BoolSort())
            out.unmodelled.append(where)
            matched = f(s.value)
        return PyVal("match", matched, z3.Not(matched), extra=(name, text, s.value))
    if name == "sub" and len(args) == 3 and args[1].kind == "str" and args[2].kind == "str":
        out.fail_when(st.live, z3.Or(args[1].none, args[2].none))
        literal = pyregex.literal_text(text)
        repl = z3.simplify(args[1].value)
        if literal and z3.is_string_value(repl) and "\\" not in repl.as_string():
            return PyVal("str", replace_all(args[2].value, string_value(literal), repl), F)
        return opaque(f"re_sub_{text}", (args[1], args[2]), st, out, where[0], where[1], kind="str")
    raise NotModelled(f"re.{name} in this form")


def match_method(m: PyVal, name: str, args: list[PyVal], st: State, out: Outcome) -> PyVal | None:
    """A match object's group(k), and `m[k]`: a black box of the text (None when the group did
    not take part; always a text for a group every match has)."""
    out.fail_when(st.live, m.none, "AttributeError")  # re.match(...) gave None
    if name == "group" and len(args) <= 1:
        k = z3.simplify(as_int(args[0]).value) if args else z3.IntVal(0)
        if not z3.is_int_value(k):
            return None
        how, pattern, text = m.extra
        tag = f"{how}_{pyregex.literal_name(pattern)}_{k.as_long()}"
        value = pyregex.group_value(how, pattern, k.as_long(), text)  # the term regexp_extract shares
        if pyregex.group_always_present(pattern, k.as_long()):
            return PyVal("str", value, F)
        none = z3.Function(f"py_re_group_none_{tag}", z3.StringSort(), z3.BoolSort())(text)
        out.fail_when(st.live, z3.Function(f"py_re_group_raises_{tag}", z3.StringSort(), z3.BoolSort())(text),
                      "IndexError")
        return PyVal("str", value, none if k.as_long() else F)
    return None


# ----------------------------------------------------------------------------- math and built-ins


def math_call(name: str, args: list[PyVal], st: State, out: Outcome, where: Where) -> PyVal | None:
    if len(args) != 1:
        return None
    x = args[0]
    if x.kind not in ("int", "float", "bool"):
        return None
    require_number(x, st, out)
    x = as_int(x)
    if name in ("floor", "ceil", "trunc"):
        if x.kind == "int":
            return PyVal("int", x.value, F)
        v = x.value
        value = {"floor": z3.ToInt(v), "ceil": -z3.ToInt(-v), "trunc": z3.If(v >= 0, z3.ToInt(v), -z3.ToInt(-v))}
        return PyVal("int", value[name], F)
    if name == "fabs":
        v = as_float(x).value
        return PyVal("float", z3.If(v >= 0, v, -v), F)
    if name in ("isnan", "isinf", "isfinite"):
        # an int is never NaN; a double argument of the UDF is NaN only where the engine keeps the
        # row anyway (symbolic/nan.py); a computed float may be NaN or infinite: not known
        if x.kind == "int" or x.extra == "param":
            return const(name == "isfinite")
        out.unmodelled.append(where)
        return PyVal("bool", z3.Function(f"py_math_{name}", z3.RealSort(), z3.BoolSort())(x.value), F)
    if name in ("sqrt", "log", "log10", "log2", "exp", "sin", "cos", "tan", "atan", "tanh"):
        v = as_float(x).value
        domain = {"sqrt": v < 0, "log": v <= 0, "log10": v <= 0, "log2": v <= 0}.get(name)
        if domain is not None:
            out.fail_when(st.live, domain, "ValueError")  # math domain error
        elif name == "exp":
            out.fail_when(st.live, z3.Function("py_math_exp_overflows", z3.RealSort(), z3.BoolSort())(v),
                          "OverflowError")
        # a finite float where it does not raise; which one is not modelled
        out.unmodelled.append(where)
        return PyVal("float", z3.Function(f"py_math_{name}", z3.RealSort(), z3.RealSort())(v), F)
    return None


def round_call(args: list[PyVal], st: State, out: Outcome, where: Where) -> PyVal | None:
    if len(args) != 1 or args[0].kind not in ("int", "float", "bool"):
        return None
    require_number(args[0], st, out)
    x = as_int(args[0])
    if x.kind == "int":
        return PyVal("int", x.value, F)
    v = x.value
    low = z3.ToInt(v)
    frac = v - z3.ToReal(low)
    half = z3.RealVal("1/2")
    # ties to even, exactly on the double's value
    up = z3.Or(frac > half, z3.And(frac == half, low % 2 == 1))
    return PyVal("int", z3.If(up, low + 1, low), F)


def isinstance_of(v: PyVal, classes: list[str], st: State, out: Outcome) -> PyVal:
    python_type = {"int": ("int",), "bool": ("bool", "int"), "float": ("float",), "str": ("str",),
                   "date": ("date",), "timedelta": ("timedelta",), "seq": ("tuple", "list"), "dict": ("dict",)}
    if v.kind == "opaque":
        tags = "_".join(sorted(classes))
        return PyVal("bool", z3.Function(f"py_isinstance_{tags}", PYOBJ, z3.BoolSort())(box(v)), F)
    if v.kind == "seq" and ({"tuple", "list"} & set(classes)) and not ({"tuple", "list"} <= set(classes)):
        raise NotModelled("isinstance of a tuple against list or tuple")
    yes = any(c in python_type.get(v.kind, ()) for c in classes)
    none_too = "NoneType" in classes
    return PyVal("bool", z3.Or(z3.And(z3.Not(v.none), z3.BoolVal(yes)), z3.And(v.none, z3.BoolVal(none_too))), F)


def truth_with_errors(v: PyVal, st: State, out: Outcome) -> z3.BoolRef:
    """`bool(v)`: an unknown object's __bool__ may raise."""
    if v.kind == "opaque":
        raises = z3.Function("py_truth_raises", PYOBJ, z3.BoolSort())(v.value)
        out.fail_when(st.live, z3.And(z3.Not(v.none), raises), "?")
    if v.kind == "split":
        return T  # a list from split() is never empty
    return truthy(v)


