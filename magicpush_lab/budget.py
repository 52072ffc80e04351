"""The user's time budget for one optimization: every search step and every Z3 call draws on it.

One `Budget` is handed from the face that received the request (the sidebar's route, the CLI,
`%magicpush`) through the pipeline and the walk to candidate generation, the Algorithm 1
enumeration and the applyInPandas body walk. A Z3 call asks for a slice of what is left
(`slice_ms`), never more than its own cap; once the budget is spent, or cancelled because the
client went away, every call still to come gets the smallest limit Z3 takes, answers
"unknown", and unknown is never a proof: nothing more is pushed.

>>> b = Budget(0.5)
>>> 0 < b.slice_ms(2000) <= 500
True
>>> b.cancel(); b.spent, b.slice_ms(2000)
(True, 1)
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

#: seconds of search and proof when the user names no budget (CLI, %magicpush, the routes, settings)
DEFAULT_SECONDS = 10.0


def _step_scale() -> float:
    """How much longer than its cap each step may take: `MAGICPUSH_STEP_TIME_SCALE` (default 1).

    Each step's cap (a Z3 check, reading a formula back as SQL, one operator's candidate search)
    is wall-clock time, so on a loaded machine a step that fits its cap when idle may not, and
    the search settles for a weaker filter. A machine known to be shared (a busy cluster driver,
    a test run beside its own JVMs) raises every cap by this factor; the user's whole budget
    (`Budget.seconds`) is never raised.
    """
    raw = os.environ.get("MAGICPUSH_STEP_TIME_SCALE", "1")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"MAGICPUSH_STEP_TIME_SCALE must be a number >= 1, not {raw!r}") from None
    if not value >= 1:
        raise ValueError(f"MAGICPUSH_STEP_TIME_SCALE must be a number >= 1, not {raw!r}")
    return value


#: every step's cap is multiplied by this (read once, at import)
STEP_SCALE = _step_scale()


def scaled_cap_ms(cap_ms: float) -> int:
    """A step's cap in ms on this machine: `cap_ms` times STEP_SCALE."""
    return int(cap_ms * STEP_SCALE)


@dataclass
class Budget:
    seconds: float = DEFAULT_SECONDS
    started: float = field(default_factory=time.monotonic)
    candidates_tried: int = 0

    def left_ms(self) -> int:
        return max(0, int((self.seconds - (time.monotonic() - self.started)) * 1000))

    @property
    def spent(self) -> bool:
        return self.left_ms() == 0

    def slice_ms(self, cap_ms: int) -> int:
        """A Z3 time limit: what is left, at most `cap_ms`, at least 1 ms (Z3 reads 0 as "no limit").
        Unscaled: the limit is scaled where it is applied (symbolic/solver.limit_ms), once."""
        return min(int(cap_ms), max(1, self.left_ms()))

    def deadline(self, cap_seconds: float) -> float:
        """A `time.monotonic()` deadline for a step given at most `cap_seconds` of what is left."""
        return time.monotonic() + min(cap_seconds * STEP_SCALE, self.left_ms() / 1000)

    def restart(self) -> None:
        """Count from now: work that waited in a queue has not spent the user's time on search."""
        self.started = time.monotonic()

    def cancel(self) -> None:
        """Spend what is left now (the client went away): every check still running or to come
        gets the minimum time limit, fails, and nothing more is pushed."""
        self.seconds = 0.0
