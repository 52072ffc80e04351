"""The Kepler cumulative KOI table: one row per object of interest, its disposition
(CONFIRMED, FALSE POSITIVE, CANDIDATE), four false-positive flags and some forty
measured columns with their errors.

Planet radii (koi_prad, Earth radii) are heavy-tailed, equilibrium temperatures
(koi_teq, K) spread widely; about one row in twenty misses a measurement (NULL) in one of the
columns, so the dropna removes it; false positives are flagged.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

MEASURED = ["koi_period", "koi_time0bk", "koi_impact", "koi_duration", "koi_depth", "koi_prad", "koi_insol",
            "koi_steff", "koi_slogg", "koi_srad"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    disposition = rng.choice(["CONFIRMED", "FALSE POSITIVE", "CANDIDATE"], n, p=[0.3, 0.5, 0.2])
    frame = pd.DataFrame({"kepid": rng.integers(757000, 12936000, n).astype("int64"),
                          "kepoi_name": [f"K{i:05d}.01" for i in range(n)],
                          "koi_disposition": disposition})
    for flag in ["koi_fpflag_nt", "koi_fpflag_ss", "koi_fpflag_co", "koi_fpflag_ec"]:
        frame[flag] = np.where(disposition == "FALSE POSITIVE", rng.integers(0, 2, n), 0).astype("int64")
    values = {"koi_period": rng.lognormal(2.5, 1.3, n), "koi_time0bk": rng.uniform(120, 600, n),
              "koi_impact": rng.uniform(0, 1.2, n), "koi_duration": rng.lognormal(1.5, 0.6, n),
              "koi_depth": rng.lognormal(6, 1.5, n), "koi_prad": rng.lognormal(0.9, 1.0, n),
              "koi_insol": rng.lognormal(4, 2, n), "koi_steff": rng.normal(5700, 800, n),
              "koi_slogg": rng.normal(4.3, 0.4, n), "koi_srad": rng.lognormal(0, 0.4, n)}
    for name, value in values.items():
        frame[name] = np.round(value, 5)
        frame[f"{name}_err1"] = np.round(np.abs(value) * rng.uniform(0.01, 0.1, n), 5)
        frame[f"{name}_err2"] = -frame[f"{name}_err1"]
    frame["koi_teq"] = np.round(rng.lognormal(6.6, 0.5, n)).astype(float)
    frame["koi_model_snr"] = np.round(rng.lognormal(3, 1.2, n), 1)
    frame["koi_tce_plnt_num"] = rng.integers(1, 5, n).astype(float)
    frame["ra"] = np.round(rng.uniform(280, 302, n), 6)
    frame["dec"] = np.round(rng.uniform(36, 52, n), 6)
    frame["koi_kepmag"] = np.round(rng.normal(14.3, 1.3, n), 3)
    nullable = [c for c in frame.columns if c.startswith(("koi_period", "koi_prad", "koi_teq", "koi_steff",
                                                          "koi_impact", "koi_kepmag"))]
    for i in np.flatnonzero(rng.random(n) < 0.06):
        frame.loc[i, rng.choice(nullable)] = np.nan
    return {"cumulative": frame}
