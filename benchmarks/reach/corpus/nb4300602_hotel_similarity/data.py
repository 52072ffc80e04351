"""Distances from one hotel (hotel 21) to the hotels of a booking data set, in a
standardised feature space (stars, price, review score, location).

Most distances lie between 0.3 and 3, a few hotels are close (under 0.5); hotel 21 is at
distance 0 from itself; some rows have no hotel id (NULL, unmatched listings); hotels
occur once per room type, so an id repeats.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    hotel = pd.array(rng.integers(1, max(n // 3, 30), n), dtype="Int64")
    hotel[rng.random(n) < 0.03] = pd.NA
    distance = np.round(rng.gamma(3.0, 0.45, n), 6)
    distance[np.asarray(pd.Series(hotel).eq(21).fillna(False), dtype=bool)] = 0.0
    return {"hotel_distances": pd.DataFrame({
        "hotel_id": hotel,
        "hotel_name": [None if pd.isna(h) else f"Hotel {h}" for h in hotel],
        "room_type": rng.choice(["single", "double", "suite"], n, p=[0.3, 0.55, 0.15]),
        "distance": distance,
    })}
