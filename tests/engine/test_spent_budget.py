"""A spent budget costs nothing more: no candidate enumeration is set up and no check is built.

A row of thousands of columns made the enumeration's set-up (one-row conditions of every
column) and each check's encoding run for seconds after the budget had run out, so a 1 s
budget took 7.8 s on 10,000 columns (now 2.2 s: the first check's encoding, linear in the
columns). Pinned here by what runs, not by time.
"""

from __future__ import annotations

import pytest

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown import push_down
from magicpush_lab.pushdown.operators import check
from magicpush_lab.search import combine
from magicpush_lab.symbolic.solver import bounded_by
from magicpush_lab.verify.verdict import EQUIVALENT

WIDTH = 300


def wide_pipeline() -> P.Filter:
    cols = tuple(X.Col(f"c{i}", i + 1, "int") for i in range(WIDTH))
    outs = tuple((X.Col(f"d{i}", WIDTH + i + 1, "int"), X.Arith("+", c, X.Lit(1, "int"), "int"))
                 for i, c in enumerate(cols))
    return P.Filter(P.Project(P.Source("t", cols, origin=0), outs, origin=1),
                    X.Cmp(">", outs[0][0], X.Lit(5, "int")), origin=2)


@pytest.fixture
def enumerations(monkeypatch):
    """How many candidate enumerations the walk set up."""
    done: list[int] = []
    search_init = combine._CoverSearch.__init__

    def counted(self, *args, **kwargs):
        done.append(1)
        return search_init(self, *args, **kwargs)

    monkeypatch.setattr(combine._CoverSearch, "__init__", counted)
    return done


class SpentAtTheFirstCandidate(Budget):
    """A budget that runs out as the walk tries its first candidate."""

    def left_ms(self) -> int:
        return 0 if self.candidates_tried >= 1 else super().left_ms()


def test_a_budget_spent_at_the_first_candidate_sets_up_no_enumeration(enumerations):
    walk = push_down(wide_pipeline(), SpentAtTheFirstCandidate(60.0))
    assert walk.pushed == []
    assert "time budget used up" in [r.reason for r in walk.refusals]
    assert enumerations == []


def test_a_spent_budget_builds_no_check():
    late = wide_pipeline()
    budget = Budget(60.0)
    budget.cancel()
    with bounded_by(budget):
        pushed = X.Cmp(">", late.child.outputs[0][1], X.Lit(5, "int"))  # (c0 + 1) > 5 on the source
        verdict = check(late.child, late.condition, (pushed,), EQUIVALENT)
    assert not verdict.proved and verdict.reason == "time budget used up"


def test_with_budget_left_the_wide_row_pushes_without_an_enumeration(enumerations):
    walk = push_down(wide_pipeline(), Budget(60.0))
    assert [(str(p.predicate), p.kind) for p in walk.pushed] == [("(c0 + 1) > 5", EQUIVALENT)]
    assert enumerations == []
