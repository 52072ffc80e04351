"""National Bridge Inventory records and an elevation lookup by coordinates.

bridges: one row per structure; coordinates on a coarse grid (several bridges share one),
culverts marked by a culvert rating (their superstructure rating is "N"), a structure kind
code missing for some records, superstructure ratings (0-9, as text) that depend on the kind,
year built from 1850, length skewed towards short spans.
elevations: one row per looked-up coordinate, some looked up twice (duplicates), some below
sea level, a few with no elevation.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 50)
    grid = max(n // 3, 10)
    cell = rng.integers(0, grid, n)
    lat = np.round(30 + (cell % 97) * 0.1, 4)
    lon = np.round(-120 + (cell // 97) * 0.1, 4)
    culvert = rng.random(n) < 0.25
    culvert_cond = np.where(culvert, rng.integers(3, 10, n).astype(str), "N")
    kinds = rng.choice([1, 2, 3, 4, 5, 7], n, p=[0.2, 0.15, 0.3, 0.15, 0.1, 0.1])
    typical = pd.Series(kinds).map({1: 7.0, 2: 6.5, 3: 5.0, 4: 6.5, 5: 5.5, 7: 4.5}).to_numpy()  # by material
    rating = np.clip(np.round(rng.normal(typical, 1.3)), 0, 9).astype(int).astype(str)
    superstructure = np.where(culvert, "N", rating)
    kind = pd.array(kinds, dtype="Int64")
    kind[rng.random(n) < 0.05] = pd.NA
    bridges = pd.DataFrame({
        "STRUCTURE_NUMBER_008": [f"{i:015d}" for i in range(n)],
        "STATE_CODE_001": pd.array(rng.integers(1, 57, n), dtype="Int64"),
        "LAT_016": lat,
        "LONG_017": lon,
        "YEAR_BUILT_027": pd.array(rng.integers(1850, 2021, n), dtype="Int64"),
        "STRUCTURE_KIND_043A": kind,
        "STRUCTURE_LEN_MT_049": np.round(rng.lognormal(3.0, 1.2, n), 1),
        "CULVERT_COND_062": culvert_cond,
        "SUPERSTRUCTURE_COND_059": superstructure,
    })
    looked_up = np.unique(rng.integers(0, grid, int(grid * 0.9)))
    looked_up = np.concatenate([looked_up, rng.choice(looked_up, len(looked_up) // 20)])  # asked twice
    m = len(looked_up)
    elevation = np.round(rng.normal(300, 400, m), 1)
    elevation[rng.random(m) < 0.02] = np.nan
    elevations = pd.DataFrame({
        "Unnamed: 0": np.arange(m, dtype="int64"),
        "LAT_016": np.round(30 + (looked_up % 97) * 0.1, 4),
        "LONG_017": np.round(-120 + (looked_up // 97) * 0.1, 4),
        "elevation": elevation,
    })
    return {"bridges": bridges, "elevations": elevations}
