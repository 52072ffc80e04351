"""The pandas API on Spark's own columns in the IR.

A pandas-on-Spark frame is a Spark DataFrame with a row-order column added
(`__natural_order__ = monotonically_increasing_id()`) every time the frame is built. The
column is nondeterministic, so a Project that makes it stops every filter. Most pipelines
never read it: only order-sensitive steps do (`shift`, `cumsum`, `iloc`, `head` after a
sort ...), and the frame hands it on to nobody (`to_pandas()` and `spark.frame()` leave it
out). A column nothing reads can be left out of the plan without changing what the plan
computes, as Spark's own column pruning does; then the projection it sat in is deterministic
and a filter can move through it. A column some step reads stays, and with it the refusal.
"""

from __future__ import annotations

from dataclasses import replace

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P

ROW_ORDER = "__natural_order__"


def is_row_order(col: X.Col, e: X.Expr) -> bool:
    """The column the pandas API on Spark numbers a frame's rows with, as it makes it."""
    return col.name == ROW_ORDER and isinstance(e, X.Func) and e.name == "monotonically_increasing_id" \
        and not e.args


def without_unread_row_order(plan: P.Plan) -> P.Plan:
    """`plan` without the row-order columns that no expression reads and that the plan's
    output does not hold; the plan itself when there are none.

    >>> order = X.Func("monotonically_increasing_id", (), "long", deterministic=False)
    >>> a, n = X.Col("a", 1), X.Col(ROW_ORDER, 2)
    >>> made = P.Project(P.Source("t", (a,)), ((a, a), (n, order)))
    >>> [c.name for c in without_unread_row_order(P.Project(made, ((a, a),))).child.output]
    ['a']
    >>> [c.name for c in without_unread_row_order(made).output]  # the output holds it: it stays
    ['a', '__natural_order__']
    """
    made = {c for node in P.nodes(plan) if isinstance(node, P.Project)
            for c, e in node.outputs if is_row_order(c, e)}
    if not made:
        return plan
    unread = made - set(plan.output) - _read(plan, made)
    return _drop(plan, frozenset(unread)) if unread else plan


def _read(plan: P.Plan, cols: set[X.Col]) -> set[X.Col]:
    """Those of `cols` that an expression of the plan reads, a Project handing one on
    unchanged (`(c, c)`) aside: what it hands on is read only if its reader reads it."""
    found: set[X.Col] = set()
    for node in P.nodes(plan):
        if isinstance(node, P.Project):
            exprs = [e for c, e in node.outputs if e != c]
        else:
            exprs = P.expressions(node)
        for e in exprs:
            found |= X.columns(e) & cols
        if not isinstance(node, _READS_BY_EXPRESSION):
            # another step may read a column by position or as part of a whole row (a union's
            # branches, distinct, a grouped map's body): whatever it takes in counts as read
            found |= {c for child in node.children for c in child.output} & cols
    return found


# steps that read their input only through their expressions, handing the other columns on
_READS_BY_EXPRESSION = (P.Project, P.Filter, P.Source, P.InnerJoin, P.OuterJoin, P.SemiJoin, P.TopK, P.Reorder,
                        P.Aggregate)


def _drop(plan: P.Plan, unread: frozenset[X.Col]) -> P.Plan:
    """`plan` with every Project's output of an `unread` column left out (iteratively: a
    notebook's plan may be thousands of steps deep)."""
    order = list(P.nodes(plan))
    done: dict[int, P.Plan] = {}
    for node in reversed(order):  # children before parents
        kids = tuple(done[id(k)] for k in node.children)
        new = P.with_children(node, kids)
        if isinstance(new, P.Project) and any(c in unread for c, _ in new.outputs):
            new = replace(new, outputs=tuple((c, e) for c, e in new.outputs if c not in unread))
        done[id(node)] = new
    return done[id(plan)]

