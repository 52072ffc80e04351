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

import time
from dataclasses import dataclass, field

#: seconds of search and proof when the user names no budget (CLI, %magicpush, the routes, settings)
DEFAULT_SECONDS = 10.0


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
        """A Z3 time limit: what is left, at most `cap_ms`, at least 1 ms (Z3 reads 0 as "no limit")."""
        return min(int(cap_ms), max(1, self.left_ms()))

    def deadline(self, cap_seconds: float) -> float:
        """A `time.monotonic()` deadline for a step given at most `cap_seconds` of what is left."""
        return time.monotonic() + min(cap_seconds, self.left_ms() / 1000)

    def restart(self) -> None:
        """Count from now: work that waited in a queue has not spent the user's time on search."""
        self.started = time.monotonic()

    def cancel(self) -> None:
        """Spend what is left now (the client went away): every check still running or to come
        gets the minimum time limit, fails, and nothing more is pushed."""
        self.seconds = 0.0
