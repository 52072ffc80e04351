"""Time-limited Z3 checks. A time-out or an `unknown` answer is never a proof.

Every check is limited twice: by its own `timeout_ms`, and by the user's budget for the
optimization running in this thread (`bounded_by`), so no verifier, however many checks it
makes, runs past the budget: once it is spent each check gets the smallest limit and fails.

>>> import z3
>>> x = z3.Int("x")
>>> prove(z3.Implies(x > 5, x > 3)).proved
True
>>> r = prove(z3.Implies(x > 3, x > 5))
>>> r.proved, r.model is not None
(False, True)
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator

import z3

from magicpush_lab.budget import Budget, scaled_cap_ms
from magicpush_lab.symbolic import calendar

DEFAULT_TIMEOUT_MS = 2000

_BUDGET: ContextVar[Budget | None] = ContextVar("magicpush_budget", default=None)


# z3py frees terms from Python finalizers, and those run in whichever thread collects them (a
# Spark client's, the server's) while another thread may be inside Z3 (its calls release the
# GIL): Z3's own concurrency control for reference-count decrements makes that safe.
z3.Z3_enable_concurrent_dec_ref(z3.main_ctx().ref())

# Z3's context is not thread-safe: one thread uses it at a time. An optimization holds this for
# its whole run (z3_turn), and every check holds it too, so that a second thread (an optimizer
# thread still finishing a cancelled request, in tests) waits instead of corrupting the context.
_TURN = threading.RLock()
_HELD = threading.local()  # this thread's nesting depth in in_z3


@contextmanager
def z3_turn() -> Iterator[None]:
    """This thread's turn with Z3's context, for a block that builds terms and checks them
    (an optimization); other threads' checks wait until it ends. Re-entrant.

    >>> with z3_turn():
    ...     prove(z3.BoolVal(True)).proved
    True
    """
    with _TURN:
        yield


@contextmanager
def in_z3() -> Iterator[None]:
    """A solver call's turn with Z3's context, with Python's automatic garbage collection held
    off while it runs: a collection during a check once crashed a test worker (a segmentation
    fault inside `check`, while "Garbage-collecting"). Collection resumes when the outermost
    call ends; what it would have freed is freed then.

    >>> with in_z3():
    ...     gc.isenabled()
    False
    """
    with _TURN:
        depth = getattr(_HELD, "depth", 0)
        was_enabled = gc.isenabled() if depth == 0 else False
        if depth == 0:
            gc.disable()
        _HELD.depth = depth + 1
        try:
            yield
        finally:
            _HELD.depth = depth
            if depth == 0 and was_enabled:
                gc.enable()


@contextmanager
def bounded_by(budget: Budget) -> Iterator[None]:
    """Checks made in this thread (and context) draw on `budget` until the block ends."""
    token = _BUDGET.set(budget)
    try:
        yield
    finally:
        _BUDGET.reset(token)


def limit_ms(timeout_ms: int) -> int:
    """A check's time limit: its own times budget.STEP_SCALE, at most what is left of the
    current budget (>= 1 ms). Every limit handed to Z3 or turned into a deadline passes here
    once: `timeout_ms` is a cap or a `Budget.slice_ms` of one, never already scaled."""
    budget = _BUDGET.get()
    scaled = max(1, scaled_cap_ms(timeout_ms))
    return budget.slice_ms(scaled) if budget is not None else scaled


@dataclass(frozen=True)
class Proof:
    proved: bool
    model: z3.ModelRef | None = None  # a counterexample when the claim is false
    reason: str = ""


def prove(claim: z3.BoolRef, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Proof:
    """Is `claim` valid (true for every assignment)? Checked as unsat of its negation."""
    timeout_ms = limit_ms(timeout_ms)
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(z3.Not(calendar.expand(claim)))
    with in_z3():
        answer = solver.check()
    if answer == z3.unsat:
        return Proof(True)
    if answer == z3.sat:
        return Proof(False, solver.model(), "counterexample found")
    return Proof(False, None, f"solver gave no answer within {timeout_ms} ms ({solver.reason_unknown()})")


def satisfiable(formula: z3.BoolRef, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> bool | None:
    """True/False when Z3 decides, None on time-out."""
    solver = z3.Solver()
    solver.set("timeout", limit_ms(timeout_ms))
    solver.add(calendar.expand(formula))
    with in_z3():
        answer = solver.check()
    if answer == z3.sat:
        return True
    if answer == z3.unsat:
        return False
    return None
