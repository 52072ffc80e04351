"""An ESPN fantasy football league's box scores: one row per rostered player, team and
matchup week.

Ten teams, up to 13 weeks; a roster has starters (QB, RB x2, WR x2, TE, D/ST, FLEX) and
bench slots (slotId 20); points skewed, some zero, a few negative; wonMatchup is the team's
result, repeated on each of its rows, but the league's export has it missing (NULL) on some
bench rows and wrong (false) on a few rows of a won week (a stat correction).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SLOTS = [(0, "QB"), (2, "RB"), (2, "RB"), (4, "WR"), (4, "WR"), (6, "TE"), (16, "D/ST"), (23, "RB"),
         (20, "WR"), (20, "RB"), (20, "QB"), (20, "TE"), (20, "WR"), (20, "D/ST")]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    teams = [f"Team {i}" for i in range(1, 11)]
    weeks = max(n // (len(teams) * len(SLOTS)), 1)
    records = []
    for week in range(1, weeks + 1):
        order = rng.permutation(teams)
        for a, b in zip(order[::2], order[1::2]):
            a_wins = rng.random() < 0.5
            for team, won in ((a, a_wins), (b, not a_wins)):
                for slot, position in SLOTS:
                    mark = bool(won)
                    if won and rng.random() < 0.03:
                        mark = False  # stat correction
                    records.append((team, week, slot, position, round(float(rng.gamma(2.0, 5.0) - 1.0), 2),
                                    None if slot == 20 and rng.random() < 0.1 else mark))
    frame = pd.DataFrame(records, columns=["teamName", "matchupPeriodId", "slotId", "position", "appliedStatTotal",
                                           "wonMatchup"])
    frame["wonMatchup"] = frame["wonMatchup"].astype("boolean")
    frame["playerName"] = [f"Player {i}" for i in range(len(frame))]
    return {"boxscores": frame}
