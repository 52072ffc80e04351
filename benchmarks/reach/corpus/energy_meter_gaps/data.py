"""15-minute energy readings of a few household meters over three days: meter id, the
interval's start as text, energy in Wh.

Meters miss some intervals (no row, so the grid fills them with 0), report 0 Wh in some
(standby, or a meter that stopped), and start and stop at different times (the grid spans
the first to the last reading of any meter); consumption is higher in the evenings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    meters = [f"M{i:03d}" for i in range(5)]
    slots = pd.date_range("2021-03-01", periods=max(rows // len(meters), 20) + 40, freq="15min")
    records = []
    for m_index, meter in enumerate(meters):
        start, stop = int(rng.integers(0, 20)), len(slots) - int(rng.integers(0, 20))
        for t in slots[start:stop]:
            if rng.random() < 0.06:
                continue  # no reading
            evening = 1.8 if 17 <= t.hour <= 22 else 1.0
            energy = 0.0 if rng.random() < 0.05 else round(float(rng.gamma(2, 40) * evening), 2)
            records.append((meter, t.strftime("%Y-%m-%d %H:%M:%S"), energy))
    return {"meter_data": pd.DataFrame(records, columns=["meter_id", "interval_date_time", "energy_wh"])}
