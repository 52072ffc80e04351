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


_IN_Z3 = [0]  # solver calls running now, in any thread
_IN_Z3_LOCK = threading.Lock()


@contextmanager
def in_z3() -> Iterator[None]:
    """Hold off Python's automatic garbage collection while a solver call runs. Z3 is not
    thread-safe and z3py frees its terms from Python finalizers; its calls release the GIL, so
    a collection started by another thread (a Spark client's, the server's) could free terms of
    the context a check is using, at the same moment: a test worker crashed so (a segmentation
    fault inside `check`, while "Garbage-collecting"). Collection resumes when the last running
    call ends; what it would have freed is freed then.

    >>> with in_z3():
    ...     gc.isenabled()
    False
    """
    with _IN_Z3_LOCK:
        if _IN_Z3[0] == 0:
            _IN_Z3.append(gc.isenabled())
            gc.disable()
        _IN_Z3[0] += 1
    try:
        yield
    finally:
        with _IN_Z3_LOCK:
            _IN_Z3[0] -= 1
            if _IN_Z3[0] == 0 and _IN_Z3.pop():
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
