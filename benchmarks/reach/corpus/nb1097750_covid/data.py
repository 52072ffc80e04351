"""A statistics portal's export of cumulative U.S. COVID-19 cases by day.

Two text columns as the export names them: the day ("Jan 22") and the cumulative count
with thousands separators ("1,234"). Some rows have no count: blank lines and the
source notes at the end of the sheet. The series grows roughly exponentially, then slower.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

DAY = "Cumulative cases of COVID-19 in the U.S. from January 22 to May 8, 2020, by day"


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 30)
    days = pd.date_range("2020-01-22", periods=n, freq="D")
    growth = np.minimum(0.35, 2.0 / np.sqrt(np.arange(1, n + 1)))
    cumulative = np.cumsum(np.maximum(1, np.round(np.exp(np.cumsum(growth * rng.uniform(0.2, 1.0, n))) % 40000)))
    counts: list[str | None] = [f"{int(c):,}" for c in cumulative]
    for i in rng.choice(n, max(n // 40, 1), replace=False):
        counts[i] = None  # blank line in the export
    labels = [d.strftime("%b %d %Y") for d in days]
    notes = [("Source: statistics portal", None), ("Additional information", None)]
    frame = pd.DataFrame({DAY: labels + [label for label, _ in notes],
                          "Unnamed: 1": counts + [count for _, count in notes]})
    return {"covid_cases": frame}
