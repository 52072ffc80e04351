"""What a verification returns: proved or not, how, and a counterexample when not.

Every verifier opens the same way, and the opening lives here: one `Verdicts` names the
kind, category and base case all its verdicts carry; a nondeterministic call is refused by
name (`nondeterministic`); the claim is built in Z3 under `Modelling`, which stops at what
the symbolic model cannot express and gives the refusal's reason ("cannot model: ...").
Each verifier's Z3 calls keep their own time limits (symbolic/solver.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import TracebackType

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.symbolic.values import NotModelled
from magicpush_lab.verify.counterexample import Tables

EQUIVALENT = "equivalent"
SUPERSET = "superset"
#: how a reason starts when the symbolic model lacks part of the check (a NaN literal, say)
UNMODELLED = "cannot model: "
#: what building a claim raises where the model lacks part of it: the encoder's own refusal,
#: or Z3's when terms the encoder made do not fit together
MODELLING_ERRORS: tuple[type[Exception], ...] = (NotModelled, z3.Z3Exception)


def unmodelled(err: Exception) -> str:
    """The reason for a check the model could not express."""
    return f"{UNMODELLED}{err}"


def nondeterministic(*exprs: X.Expr) -> str:
    """The reason to refuse a check over `exprs` that calls something nondeterministic, or "":
    its value differs between the original and the rewritten run.

    >>> nondeterministic(X.Func("rand", (), "double", deterministic=False))
    'rand() is nondeterministic'
    >>> nondeterministic(X.Col("a", 1, "int"))
    ''
    """
    node = X.first_nondeterministic(*exprs)
    return "" if node is None else f"{node} is nondeterministic"


@dataclass(frozen=True)
class Verdict:
    """Outcome of checking one candidate G for one operator.

    counterexample: input tables (name -> rows as {column: value}) on which the
    two sides differ, taken from the solver's model; empty when proved.
    may_hide_errors: the original can raise on a row the rewrite filters out first.
    """

    proved: bool
    kind: str  # EQUIVALENT | SUPERSET
    category: str
    base_case_rows: int
    reason: str = ""
    counterexample: Tables = field(default_factory=dict)
    may_hide_errors: bool = False


@dataclass(frozen=True)
class Verdicts:
    """The verdicts one verification gives: each carries the same kind, category and base
    case, so a verifier names them once and then says only why.

    >>> verdicts = Verdicts(SUPERSET, "TOPK", 2)
    >>> no = verdicts.refuse("no predicate for the input")
    >>> no.proved, no.kind, no.category, no.base_case_rows, no.reason
    (False, 'superset', 'TOPK', 2, 'no predicate for the input')
    >>> verdicts.proved(may_hide_errors=True) == Verdict(True, SUPERSET, "TOPK", 2, "proved", {}, True)
    True
    """

    kind: str
    category: str
    base_case_rows: int

    def refuse(self, reason: str, example: Tables | None = None) -> Verdict:
        """Not proved, and why; `example`: input tables on which the two pipelines differ."""
        return Verdict(False, self.kind, self.category, self.base_case_rows, reason, example or {})

    def proved(self, reason: str = "proved", may_hide_errors: bool = False) -> Verdict:
        return Verdict(True, self.kind, self.category, self.base_case_rows, reason, {}, may_hide_errors)


class Modelling:
    """A block building a claim in Z3, stopped by the first part the symbolic model cannot
    express. The error is kept rather than raised: right after the block the verifier
    returns its refusal (`reason`) and never reads what the block left half built.

    >>> with Modelling() as modelling:
    ...     raise NotModelled("NaN and infinite literals are not modelled")
    >>> modelling.failed, modelling.reason
    (True, 'cannot model: NaN and infinite literals are not modelled')
    >>> with Modelling() as modelling:
    ...     claim = z3.BoolVal(True)
    >>> modelling.failed
    False

    `errors` replaces MODELLING_ERRORS where a block can fail otherwise (a UDF's source that
    does not parse); any other error goes on up, as it would without the block.
    """

    def __init__(self, *errors: type[Exception]) -> None:
        self.errors = errors or MODELLING_ERRORS
        self.error: Exception | None = None

    def __enter__(self) -> Modelling:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> bool:
        if isinstance(error, self.errors):
            self.error = error
            return True  # kept: the caller refuses with it
        return False

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def reason(self) -> str:
        """The refusal's reason: "cannot model: " and what the model lacked."""
        return unmodelled(self.error) if self.error is not None else ""
