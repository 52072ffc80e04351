"""A register of London businesses and a postcode lookup.

businesses: name, category (skewed: many retail and restaurants), postcode, missing (NULL)
for some records. postcodes: one row per postcode and lookup release; a postcode appears
twice when it was re-issued, and after the 2019 boundary review a few border postcodes
carry another district in the newer row; some business postcodes are not in the lookup.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

DISTRICTS = ["Camden", "Islington", "Westminster", "Hackney", "Tower Hamlets", "Southwark", "Lambeth"]
CATEGORIES = ["Restaurant", "Retail", "Pub", "Cafe", "Office", "Takeaway", "Salon"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    n_codes = max(n // 4, 20)
    codes = [f"{a}{rng.integers(1, 20)} {rng.integers(1, 10)}{chr(65 + rng.integers(0, 26))}{chr(65 + rng.integers(0, 26))}"
             for a in rng.choice(["NW", "N", "WC", "E", "SE", "SW", "W"], n_codes)]
    codes = list(dict.fromkeys(codes))
    district = rng.choice(DISTRICTS, len(codes), p=[0.22, 0.15, 0.15, 0.13, 0.12, 0.12, 0.11])
    lookup = pd.DataFrame({"postcode": codes, "district": district,
                           "latitude": np.round(rng.uniform(51.45, 51.56, len(codes)), 5),
                           "longitude": np.round(rng.uniform(-0.2, 0.02, len(codes)), 5),
                           "release": "2018"})
    reissued = lookup.iloc[rng.choice(len(codes), len(codes) // 8, replace=False)].copy()
    reissued["release"] = "2019"
    moved = rng.random(len(reissued)) < 0.4
    reissued.loc[moved, "district"] = rng.choice(DISTRICTS, int(moved.sum()))
    postcodes = pd.concat([lookup, reissued], ignore_index=True)
    unknown = [f"ZZ{i} 9ZZ" for i in range(max(n // 50, 1))]
    business_code = np.array(codes + unknown, dtype=object)[rng.integers(0, len(codes) + len(unknown), n)]
    business_code[rng.random(n) < 0.04] = None
    businesses = pd.DataFrame({
        "Business Name": [f"Business {i}" for i in range(n)],
        "Business Category": rng.choice(CATEGORIES, n, p=[0.25, 0.25, 0.12, 0.12, 0.1, 0.1, 0.06]),
        "Postcode": business_code,
        "Employees": pd.array(rng.integers(1, 60, n), dtype="Int64"),
    })
    return {"businesses": businesses, "postcodes": postcodes}
