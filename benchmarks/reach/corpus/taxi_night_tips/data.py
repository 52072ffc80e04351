"""NYC TLC yellow taxi trip records and the taxi zone lookup.

Trips: pickups concentrated in a few Manhattan zones (skew), fewer at night; passenger
counts sometimes missing (NULL) or 0; some zero-distance and negative-duration records;
tips mostly on card payments. Zones: the 265 zone lookup rows, with the two "Unknown"
locations (264, 265) having no zone name.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

BOROUGHS = (["Manhattan"] * 69 + ["Brooklyn"] * 61 + ["Queens"] * 69 + ["Bronx"] * 43 + ["Staten Island"] * 20
            + ["EWR"])


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 50)
    ids = np.arange(1, 266)
    borough = (BOROUGHS + ["Unknown", "Unknown"])[:263] + ["Unknown", "Unknown"]
    zones = pd.DataFrame({"LocationID": ids.astype("int64"), "Borough": borough,
                          "Zone": [f"Zone {i}" for i in ids[:263]] + [None, None],
                          "service_zone": ["Yellow Zone" if b == "Manhattan" else "Boro Zone" for b in borough]})
    popular = rng.choice(np.arange(1, 70), 12, replace=False)
    weights = np.ones(265)
    weights[popular - 1] = 60.0
    weights[[131, 137]] = 40.0  # the airports in Queens
    location = rng.choice(ids, n, p=weights / weights.sum())
    hour_weights = np.array([3, 2, 1.5, 1, 1, 1.5, 3, 5, 6, 6, 5, 5, 5, 5, 5, 6, 6, 7, 8, 8, 7, 6, 5, 4])
    hour = rng.choice(24, n, p=hour_weights / hour_weights.sum())
    start = (pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 31, n), "D")
             + pd.to_timedelta(hour, "h") + pd.to_timedelta(rng.integers(0, 3600, n), "s"))
    seconds = rng.gamma(2.0, 450, n).astype(int)
    seconds[rng.random(n) < 0.01] *= -1  # clocks set wrong
    distance = np.round(seconds / 3600 * rng.uniform(5, 25, n), 2).clip(0)
    distance[rng.random(n) < 0.02] = 0.0
    passengers = rng.choice([0.0, 1.0, 2.0, 3.0, 5.0], n, p=[0.02, 0.7, 0.15, 0.08, 0.05])
    passengers[rng.random(n) < 0.03] = np.nan
    fare = np.round(3 + distance * 2.5 + rng.uniform(0, 2, n), 2)
    card = rng.random(n) < 0.75
    tip = np.where(card, np.round(fare * rng.choice([0.0, 0.15, 0.2, 0.25, 0.3], n), 2), 0.0)
    trips = pd.DataFrame({
        "VendorID": rng.choice([1, 2], n).astype("int64"),
        "tpep_pickup_datetime": start, "tpep_dropoff_datetime": start + pd.to_timedelta(seconds, "s"),
        "passenger_count": passengers, "trip_distance": distance,
        "PULocationID": location.astype("int64"), "DOLocationID": rng.choice(ids, n).astype("int64"),
        "payment_type": np.where(card, 1, 2).astype("int64"),
        "fare_amount": fare, "tip_amount": tip, "total_amount": np.round(fare + tip + 1.0, 2),
    })
    return {"yellow_tripdata": trips, "taxi_zone_lookup": zones}
