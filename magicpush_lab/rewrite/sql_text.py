"""A proved filter written into the SQL text of a `spark.sql(...)` call.

Where a temp view's DataFrame also feeds other code (another query reads the view), the filter
cannot go on that DataFrame; it goes where this query reads the view, inside its SQL text. The
statement is parsed with sqlglot (Spark dialect) to find that read; the text is then changed
only there, so the rest of the user's SQL stays as written:

- a query block that reads the view alone, with no WHERE, gets one right after the view's name
  (and its alias);
- any other read of the view becomes a derived table over it, under the name the query used:
  `FROM (SELECT * FROM orders WHERE amount > 950) AS orders`.

Either form filters the view's rows before anything else of that query block runs, which is
what the proof is about. The predicate is written as Spark SQL by `predicate_sql`, which knows
only forms whose SQL meaning is the IR's (types of literals written out, no Python UDF); anything
else is NoSqlForm, and the filter is not placed.

>>> from magicpush_lab.ir import expr as X
>>> p = X.Cmp(">", X.Col("amount", 1, "double"), X.Lit(950.0, "double"))
>>> filtered_sql("SELECT id, amount FROM orders", "orders", predicate_sql(p))
'SELECT id, amount FROM orders WHERE `amount` > 950.0D'
>>> filtered_sql("SELECT o.id FROM orders o JOIN c ON o.id = c.id", "orders", "`amount` > 1")
'SELECT o.id FROM (SELECT * FROM orders WHERE `amount` > 1) o JOIN c ON o.id = c.id'
>>> filtered_sql("SELECT * FROM db.t WHERE x = 1", "spark_catalog.db.t", "`y` < 2")
'SELECT * FROM (SELECT * FROM db.t WHERE `y` < 2) AS t WHERE x = 1'
"""

from __future__ import annotations

import datetime
import math
from typing import Any

from magicpush_lab.ir import expr as X


class NoSqlForm(ValueError):
    """The predicate, or the place for it in the statement, has no SQL form written here."""


# --------------------------------------------------------------------- the predicate as SQL

_CMP = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "<=>": "<=>"}
_ARITH = frozenset({"+", "-", "*", "/", "%"})
_SQL_TYPES = {"boolean": "BOOLEAN", "byte": "TINYINT", "short": "SMALLINT", "int": "INT", "long": "BIGINT",
              "float": "FLOAT", "double": "DOUBLE", "string": "STRING", "date": "DATE"}
# Spark SQL's typed integer literals: 7Y a byte, 7S a short, 7 an int, 7L a long
_INTEGER_SUFFIX = {"byte": "Y", "short": "S", "int": "", "long": "L"}
# functions whose Spark SQL name and arguments are the PySpark function's (the IR's name)
_FUNCTIONS = frozenset({"lower", "upper", "length", "abs", "startswith", "endswith", "contains", "trim", "ltrim",
                        "rtrim", "year", "month", "dayofmonth", "isnan", "coalesce", "greatest", "least"})


def predicate_sql(e: X.Expr) -> str:
    """Spark SQL text of a predicate: every literal with its type, every operation in brackets.

    >>> predicate_sql(X.And((X.IsNotNull(X.Col("r", 1, "string")), X.In(X.Col("r", 1, "string"),
    ...     (X.Lit("EU", "string"), X.Lit("it's", "string"))))))
    "(`r` IS NOT NULL) AND (`r` IN ('EU', 'it\\\\'s'))"
    """
    return _sql(e, top=True)


def _sql(e: X.Expr, top: bool = False) -> str:
    def wrap(text: str) -> str:
        return text if top else f"({text})"

    if isinstance(e, X.Col):
        return "`" + e.name.replace("`", "``") + "`"
    if isinstance(e, X.Lit):
        return _literal(e)
    if isinstance(e, X.Cmp) and e.op in _CMP:
        return wrap(f"{_sql(e.left)} {_CMP[e.op]} {_sql(e.right)}")
    if isinstance(e, X.Arith) and e.op in _ARITH:
        return wrap(f"{_sql(e.left)} {e.op} {_sql(e.right)}")
    if isinstance(e, X.Neg):
        return f"(- {_sql(e.arg)})"
    if isinstance(e, (X.And, X.Or)) and e.args:
        word = " AND " if isinstance(e, X.And) else " OR "
        return wrap(word.join(_sql(a) for a in e.args))
    if isinstance(e, X.Not):
        return wrap(f"NOT {_sql(e.arg)}")
    if isinstance(e, X.IsNull):
        return wrap(f"{_sql(e.arg)} IS NULL")
    if isinstance(e, X.IsNotNull):
        return wrap(f"{_sql(e.arg)} IS NOT NULL")
    if isinstance(e, X.In) and e.values:
        return wrap(f"{_sql(e.arg)} IN ({', '.join(_sql(v) for v in e.values)})")
    if isinstance(e, X.Cast) and e.dtype == "double" and isinstance(e.arg, X.Lit) and e.arg.value is not None \
            and e.arg.dtype in ("byte", "short", "int", "long"):
        return _literal(X.Lit(float(e.arg.value), "double"))  # the same double, written as one
    if isinstance(e, X.Cast) and e.dtype in _SQL_TYPES:
        return f"CAST({_sql(e.arg, top=True)} AS {_SQL_TYPES[e.dtype]})"
    if isinstance(e, X.Case) and e.branches:
        whens = " ".join(f"WHEN {_sql(c, top=True)} THEN {_sql(v, top=True)}" for c, v in e.branches)
        return f"(CASE {whens} ELSE {_sql(e.default, top=True)} END)"
    if isinstance(e, X.Coalesce) and e.args:
        return f"coalesce({', '.join(_sql(a, top=True) for a in e.args)})"
    if isinstance(e, X.Func) and e.name in _FUNCTIONS and not e.params and e.deterministic:
        return f"{e.name}({', '.join(_sql(a, top=True) for a in e.args)})"
    raise NoSqlForm(f"{type(e).__name__} {getattr(e, 'name', getattr(e, 'op', ''))}".strip())


def _literal(lit: X.Lit) -> str:
    v, t = lit.value, lit.dtype
    if t not in _SQL_TYPES:
        raise NoSqlForm(f"a literal of type {t}")
    if v is None:
        return f"CAST(NULL AS {_SQL_TYPES[t]})"
    if t == "boolean" and isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if t == "string" and isinstance(v, str):
        # Spark's parser reads backslash escapes in string literals (its default)
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if t == "date" and isinstance(v, (datetime.date, str)):
        return f"DATE '{datetime.date.fromisoformat(str(v)).isoformat()}'"
    if t in ("float", "double") and isinstance(v, (int, float)) and not isinstance(v, bool):
        if math.isnan(v) or math.isinf(v):
            return f"CAST('{'NaN' if math.isnan(v) else ('Infinity' if v > 0 else '-Infinity')}' AS {_SQL_TYPES[t]})"
        return f"{float(v)!r}D" if t == "double" else f"CAST({float(v)!r} AS FLOAT)"
    if t in ("byte", "short", "int", "long") and isinstance(v, int) and not isinstance(v, bool):
        return f"{v}{_INTEGER_SUFFIX[t]}"
    raise NoSqlForm(f"the literal {v!r} of type {t}")


# --------------------------------------------------------------------- the statement

def view_read(root: Any, source_key: Any) -> str | None:
    """The temp view name under which the plan `root` (a `spark.sql` call's analyzed plan, as
    PlanNodes) reads the DataFrame whose plan is `source_key`; None unless it reads it exactly
    once, through one view (a CTE read twice is two reads in the plan)."""
    names: list[str] = []
    stack = [root]
    while stack:
        n = stack.pop()
        if n.cls == "View" and n.kids and n.kids[0].key == source_key:
            desc = n.field("desc") or {}
            ident = desc.get("identifier") if isinstance(desc, dict) else None
            table = ident.get("table") if isinstance(ident, dict) else None
            names.append(table if isinstance(table, str) else "")
            continue
        if n.key == source_key:
            names.append("")  # read without a view's name
            continue
        stack.extend(n.kids)
    return names[0] or None if len(names) == 1 else None


def filtered_sql(sql: str, view: str, predicate: str) -> str:
    """`sql` with the rows it reads from `view` filtered by the SQL `predicate` first.

    Refused (NoSqlForm) unless the statement is one query that reads `view` exactly once."""
    import sqlglot
    from sqlglot import exp

    try:
        statements = sqlglot.parse(sql, dialect="spark")
    except sqlglot.errors.ParseError as err:
        raise NoSqlForm(f"the SQL text does not parse: {str(err).splitlines()[0]}") from None
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        raise NoSqlForm("the SQL text is not one query")
    tree = statements[0]
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    reads = [t for t in tree.find_all(exp.Table) if _names(t, view) and t.name.lower() not in ctes]
    if len(reads) != 1:
        raise NoSqlForm(f"the query reads {view} {len(reads)} times" if reads else f"the query does not read {view}")
    table = reads[0]
    if any(table.args.get(k) for k in ("sample", "joins", "laterals", "pivots", "hints", "version", "when")):
        raise NoSqlForm(f"the read of {view} has a sample, hint or pivot of its own")
    name_end = _end(table.this)
    alias = table.args.get("alias")
    block = table.parent
    select = block.parent if isinstance(block, exp.From) else None
    if isinstance(select, exp.Select) and not select.args.get("joins") and not select.args.get("where") \
            and not select.args.get("laterals"):
        end = _end(alias.this) if alias is not None else name_end
        return sql[:end + 1] + f" WHERE {predicate}" + sql[end + 1:]
    # a qualified name starts at its first part (`sales.orders`); the derived table is named
    # by its last, as the query's columns name it (`orders.amount`)
    start = min(_start(part) for part in (table.args.get("catalog"), table.args.get("db"), table.this) if part)
    derived = f"(SELECT * FROM {sql[start:name_end + 1]} WHERE {predicate})"
    named = "" if alias is not None else f" AS {sql[_start(table.this):name_end + 1]}"
    return sql[:start] + derived + named + sql[name_end + 1:]


def _names(table: Any, name: str) -> bool:
    """Whether the SQL's table reference `table` can name `name` (a temp view's name, or a
    catalog table's qualified name: a reference may leave out its catalog and database).

    >>> import sqlglot
    >>> t = sqlglot.parse_one("SELECT * FROM sales.orders", dialect="spark").find(sqlglot.exp.Table)
    >>> _names(t, "spark_catalog.sales.orders"), _names(t, "sales.orders"), _names(t, "orders")
    (True, True, False)
    >>> _names(t, "spark_catalog.web.orders")
    False
    """
    parts = [p.lower() for p in name.split(".")]
    written = [p.lower() for p in (table.catalog, table.db, table.name)]
    return written[2] == parts[-1] and all(w == "" or (len(parts) >= 3 - i and parts[i - 3] == w)
                                           for i, w in enumerate(written[:2]))


def _start(identifier: Any) -> int:
    meta = getattr(identifier, "meta", None) or {}
    if "start" not in meta:
        raise NoSqlForm("the view's place in the SQL text was not found")
    return int(meta["start"])  # a quoted name's span includes its backticks


def _end(identifier: Any) -> int:
    meta = getattr(identifier, "meta", None) or {}
    if "end" not in meta:
        raise NoSqlForm("the view's place in the SQL text was not found")
    return int(meta["end"])
