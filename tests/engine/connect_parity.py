"""A pipeline case's Spark Connect copy, checked where Connect can differ: the reading.

The engine after translation is the same code on both kinds of session, and Spark runs the
original and rewritten pipelines the same way on both. What only a Connect run can show is
whether the Connect reader (capture/connect_plan/) gives the IR the classic reader gives. So by
default a case's Connect copy translates its pipeline on the Connect session and compares the
IR with its classic run's, column ids aside: when they are the same, the walk and the output
bags the classic run checked are this IR's too, and the copy ends there, passed. When the
readings differ (a barrier only Connect meets, a cast it writes otherwise, an expression it
resolves another way) the copy goes on and runs the whole case on Connect.

`python -m pytest tests/engine --connect-matrix=full` runs every Connect copy to its end, output
bags on the Connect server included: the command to run before resolving an issue that touches
translation or the Connect reader (README, "Testing").
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P

#: a classic run's IR shapes, by case (the test's id without its session): filled by the
#: classic copy, read by the Connect copy, which pytest runs after it in the same process
CLASSIC_SHAPES: dict[str, list[object]] = {}
#: the Connect copies in this run: how many ended on equal readings, and how many read otherwise
READINGS = {"same": 0, "differ": 0}


class ReadsAsClassic(Exception):
    """Raised by a Connect copy whose reading equals its classic run's: the case passed
    (tests/engine/conftest.py turns it into a pass)."""


def shape(plan: Any) -> object:
    """`plan` as nested tuples, each column's id replaced by the order of its first appearance:
    two readings of one pipeline compare equal when only Spark's exprIds differ.

    >>> a, b = X.Col("a", 7, "int"), X.Col("a", 9, "int")
    >>> shape(X.Cmp(">", a, X.Lit(1, "int"))) == shape(X.Cmp(">", b, X.Lit(1, "int")))
    True
    >>> shape(X.Cmp(">", a, X.Lit(1, "int"))) == shape(X.Cmp(">", a, X.Lit(2, "int")))
    False
    """
    ids: dict[int, int] = {}

    def walk(value: Any) -> object:
        if isinstance(value, X.Col):
            return ("Col", value.name, ids.setdefault(value.id, len(ids)), value.dtype)
        if isinstance(value, P.Source):
            # the name is what Spark calls the relation ("rdd" classic, "local data" on Connect for
            # one createDataFrame): a label for notes, which the walk never reads
            return ("Source", walk(value.output), value.origin)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return (type(value).__name__,) + tuple((f.name, walk(getattr(value, f.name)))
                                                  for f in dataclasses.fields(value))
        if isinstance(value, (tuple, list)):
            return tuple(walk(v) for v in value)
        if isinstance(value, dict):
            return tuple(sorted((repr(k), walk(v)) for k, v in value.items()))
        return value

    return walk(plan)


def case_key(nodeid: str) -> tuple[str, str] | None:
    """(the case without its session, the session) for an engine test's node id, or None.

    >>> case_key("tests/engine/test_x.py::test_case[on_connect-a filter on v]")
    ('tests/engine/test_x.py::test_case[a filter on v]', 'connect')
    >>> case_key("tests/engine/test_x.py::test_key[on_classic]")
    ('tests/engine/test_x.py::test_key', 'classic')
    """
    for kind in ("classic", "connect"):
        for marker, plain in ((f"[on_{kind}-", "["), (f"-on_{kind}]", "]"), (f"[on_{kind}]", "")):
            if marker in nodeid:
                return nodeid.replace(marker, plain), kind
    return None


def _current() -> tuple[str, str] | None:
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    return case_key(test) if test else None


#: set by tests/engine/conftest.py: True when every Connect copy runs to its end
FULL_MATRIX = {"on": False}
#: the Connect copies that must run to their end whatever their reading (CONNECT_GAPS' cases:
#: an expected failure that passed by its reading would read as a fix)
RUN_TO_THE_END: set[str] = set()


def read(plan: Any) -> Any:
    """Note the IR a case's pipeline was read into; on a Connect copy whose readings so far equal
    the classic run's, and that has no further reading to make, end the case (ReadsAsClassic).
    Returns `plan` for the caller to go on with."""
    current = _current()
    if current is None:
        return plan
    key, kind = current
    if kind == "classic":
        CLASSIC_SHAPES.setdefault(key, []).append(shape(plan))
        return plan
    seen = CONNECT_SHAPES.setdefault(key, [])
    seen.append(shape(plan))
    classic = CLASSIC_SHAPES.get(key)
    if FULL_MATRIX["on"] or key in RUN_TO_THE_END or classic is None:
        return plan
    if seen != classic[:len(seen)]:
        READINGS["differ"] += 1
        RUN_TO_THE_END.add(key)
        return plan
    if len(seen) == len(classic):
        READINGS["same"] += 1
        raise ReadsAsClassic(key)
    return plan


CONNECT_SHAPES: dict[str, list[object]] = {}
