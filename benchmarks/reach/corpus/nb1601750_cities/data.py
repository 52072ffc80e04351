"""The CDC 500 Cities data, wide: one row per place and value type (crude and age-adjusted
prevalence for cities, crude only for census tracts), a column per health measure; and the
places' location table.

Census tracts far outnumber cities; the big states hold most tracts (skew); a measure is
missing (NULL) for some tracts with a small population; the locations table has the US row
and the cities besides the tracts, and a few data rows refer to a place with no location row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

MEASURES = ["ACCESS2", "ARTHRITIS", "BINGE", "BPHIGH", "CANCER", "CHD", "CSMOKING", "DIABETES", "LPA",
            "OBESITY", "SLEEP", "STROKE"]
STATES = ["CA", "TX", "NY", "FL", "IL", "CT", "OH", "WA", "AZ", "MA"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    n_cities = max(n // 40, 4)
    city_state = rng.choice(STATES, n_cities, p=[0.25, 0.2, 0.1, 0.1, 0.08, 0.04, 0.07, 0.06, 0.05, 0.05])
    places = [("59", "US", "United States", "US", 320_000_000)]
    for c in range(n_cities):
        places.append((f"{c:03d}0000", "City", f"City {c}", city_state[c], int(rng.integers(50_000, 3_000_000))))
    n_tracts = n - 2 * n_cities - 2
    tract_city = rng.integers(0, n_cities, n_tracts)
    for t in range(n_tracts):
        c = tract_city[t]
        places.append((f"{c:03d}0000-{t:06d}", "Census Tract", f"City {c}", city_state[c], int(rng.integers(50, 9000))))
    locations = pd.DataFrame(places, columns=["uniqueid", "geographiclevel", "cityname", "stateabbr", "populationcount"])
    locations["geolocation"] = [f"({rng.uniform(25, 48):.4f}, {rng.uniform(-123, -70):.4f})" for _ in places]
    rows_out = []
    for uid, level, _city, _state, pop in places:
        for kind in (("CrdPrv", "AgeAdjPrv") if level != "Census Tract" else ("CrdPrv",)):
            rows_out.append((uid, kind, pop))
    for k in range(max(n // 100, 1)):  # no location row
        rows_out.append((f"999{k:04d}-000000", "CrdPrv", int(rng.integers(50, 9000))))
    data = pd.DataFrame(rows_out, columns=["uniqueid", "datavaluetypeid", "populationcount"])
    data.insert(0, "Unnamed: 0", np.arange(len(data), dtype="int64"))
    m = len(data)
    base = {"OBESITY": (30, 6), "SLEEP": (36, 5), "LPA": (26, 7), "CHD": (6, 2)}
    for measure in MEASURES:
        mean, sd = base.get(measure, (15, 5))
        values = np.round(np.clip(rng.normal(mean, sd, m), 0.5, 80), 1)
        values[(data["populationcount"].to_numpy() < 400) & (rng.random(m) < 0.5)] = np.nan
        data[measure] = values
    return {"cdc_500_cities": data, "cdc_500_locations": locations}
