"""Sources read by several branches of one pipeline (paper, Section 5.1, Figure 7(3)).

A walk reaches every read of a source on its own (a self-join, `a.union(b)` with `a` and `b`
made from one DataFrame), each with the predicate its branch needs. One filter at the source
must keep the rows of every branch, so it is the disjunction of their predicates, TRUE (no
filter) when a read got none; each branch then gets its own predicate back where it reads the
source. Here the reads are merged into one `Pushed` whose `branches` hold one entry per read;
where each edit can go is decided in rewrite/placement.py, which knows the user's code.

Pure functions over the IR; `Pushed` records are only copied with `dataclasses.replace`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown.records import Pushed
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET


@dataclass(frozen=True)
class Read:
    """One read of a source in the plan tree: the leaf, and the operator (trace event) above it."""

    source: P.Source
    consumer: int | None
    via_input: int


def reads_of(root: P.Plan, origin: int, consumer: int | None = None, via_input: int = 0) -> list[Read]:
    """Every read of the source made by event `origin` under `root`, in pre-order (left input
    first). The consumer is the nearest operator above the leaf that has a trace event, as the
    walk counts it.

    >>> s = P.Source("t", (X.Col("v", 1, "int"),), 0)
    >>> [(r.consumer, r.via_input) for r in reads_of(P.Union((s, P.Filter(s, X.TRUE, 5)), s.output, 7), 0)]
    [(7, 0), (5, 0)]
    """
    found: list[Read] = []

    def visit(node: P.Plan, above: int | None, via: int) -> None:
        if isinstance(node, P.Source):
            if node.origin == origin:
                found.append(Read(node, above, via))
            return
        here = node.origin if getattr(node, "origin", None) is not None else above
        for i, child in enumerate(node.children):
            visit(child, here, i)

    visit(root, consumer, via_input)
    return found


def merge_shared_sources(root: P.Plan, pushed: Sequence[Pushed], consumer: int | None = None,
                         via_input: int = 0) -> list[Pushed]:
    """`pushed` with the entries of a source read more than once under `root` merged into one:
    predicate the disjunction of the reads' predicates (their columns renamed to the first
    read's), TRUE when some read got none; `branches` one entry per read, TRUE for a read that
    got nothing. Equivalent only when every predicate that arrived is. Sources read once are
    left as they are."""
    out: list[Pushed] = []
    done: set[int] = set()
    for p in pushed:
        origin = p.source.origin
        if origin is None:
            out.append(p)
            continue
        if origin in done:
            continue
        reads = reads_of(root, origin, consumer, via_input)
        if len(reads) < 2:
            out.append(p)
            continue
        done.add(origin)
        group = [q for q in pushed if q.source.origin == origin]
        out.append(_merged(reads, group))
    return out


def _merged(reads: list[Read], group: list[Pushed]) -> Pushed:
    first = group[0]
    branches = []
    for read in reads:
        mine = [q for q in group if q.source is read.source]
        if not mine:
            branches.append(replace(first, source=read.source, predicate=X.TRUE, steps=(), kind=EQUIVALENT,
                                    consumer=read.consumer, via_input=read.via_input, may_hide_errors=False,
                                    transferred=False, branches=()))
            continue
        # two predicates for one read (a transferred one besides its own) are each proved alone
        # as a superset pushdown: both applied, the late filter stays
        kind = mine[0].kind if len(mine) == 1 else SUPERSET
        branches.append(replace(mine[0], predicate=X.and_(*(q.predicate for q in mine)), kind=kind,
                                steps=tuple(s for q in mine for s in q.steps),
                                may_hide_errors=any(q.may_hide_errors for q in mine),
                                transferred=all(q.transferred for q in mine), alternatives=()))
    to_first = [dict(zip(b.source.output, reads[0].source.output)) for b in branches]
    predicate = X.or_(*(X.substitute(b.predicate, m) for b, m in zip(branches, to_first)))
    arrived = [b for b in branches if b.predicate != X.TRUE]
    steps: list = []
    for b in arrived:
        steps += [s for s in b.steps if s not in steps]
    return replace(first, source=reads[0].source, predicate=predicate, steps=tuple(steps),
                   kind=EQUIVALENT if all(b.kind == EQUIVALENT for b in arrived) else SUPERSET,
                   consumer=None, via_input=0, may_hide_errors=any(b.may_hide_errors for b in arrived),
                   transferred=all(b.transferred for b in arrived), branches=tuple(branches),
                   alternatives=())  # alternatives were ranked for one read's predicate, not the OR


def union_input_missed(root: P.Plan, pushed: Sequence[Pushed]) -> bool:
    """A union the walk went through has an input no predicate reached (its walk stopped at an
    operator it could not prove): that input keeps every row, so the late filter must stay.

    >>> s, t = P.Source("s", (X.Col("v", 1, "int"),), 0), P.Source("t", (X.Col("v", 2, "int"),), 1)
    >>> u = P.Union((s, P.Other((t,), t.output, "no analysis")), s.output, 7)
    >>> class Got: source = s; branches = (); transferred = False
    >>> union_input_missed(u, [Got()])
    True
    """
    # a transferred predicate is a superset of its own: it reaches a source, it does not stand
    # for the late filter there
    reached = {id(leaf) for p in pushed if not p.transferred for leaf in _leaves(p)}

    def any_reached(node: P.Plan) -> bool:
        return any(id(n) in reached for n in P.nodes(node))

    return any(isinstance(n, P.Union) and any_reached(n) and not all(any_reached(c) for c in n.children)
               for n in P.nodes(root))


def _leaves(p: Pushed) -> list[P.Source]:
    if p.branches:
        return [b.source for b in p.branches if b.predicate != X.TRUE]
    return [p.source]
