"""San Francisco's eviction notices (DataSF): one row per notice, its file date
(1997-2023), address fields, nineteen reason flags (true/false, a notice can give
several reasons, a few flags are missing), district and neighborhood.

Reasons are skewed: breach and owner move-in are the most common, owner move-ins peaking
around 2000 and 2015, breaches rising later; notices after 2018 exist (the notebook stops
at 2018).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

REASONS = ["Non Payment", "Breach", "Nuisance", "Illegal Use", "Failure to Sign Renewal", "Access Denial",
           "Unapproved Subtenant", "Owner Move In", "Demolition", "Capital Improvement", "Substantial Rehab",
           "Ellis Act WithDrawal", "Condo Conversion", "Roommate Same Unit", "Other Cause", "Late Payments",
           "Lead Remediation", "Development", "Good Samaritan Ends"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    year = rng.integers(1997, 2024, n)
    file_date = (pd.to_datetime(year.astype(str) + "-01-01")
                 + pd.to_timedelta(rng.integers(0, 365, n), "D"))
    omi = 0.10 + 0.25 * np.exp(-((year - 2000) ** 2) / 8) + 0.25 * np.exp(-((year - 2015) ** 2) / 6)
    breach = 0.12 + 0.01 * (year - 1997)
    frame = pd.DataFrame({"Eviction ID": [f"M{i:06d}" for i in range(n)],
                          "Address": [f"{rng.integers(1, 4000)} Block Of Street {i % 90}" for i in range(n)],
                          "City": "San Francisco", "State": "CA",
                          "Eviction Notice Source Zipcode": rng.choice(["94110", "94109", "94117", "94112"], n),
                          "File Date": file_date})
    base = {"Owner Move In": omi, "Breach": breach, "Nuisance": np.full(n, 0.12), "Non Payment": np.full(n, 0.08)}
    for reason in REASONS:
        flag = pd.array(rng.random(n) < base.get(reason, np.full(n, 0.03)), dtype="boolean")
        flag[rng.random(n) < 0.01] = pd.NA
        frame[reason] = flag
    frame["Constraints Date"] = None
    frame["Supervisor District"] = rng.integers(1, 12, n).astype("int64")
    frame["Neighborhoods - Analysis Boundaries"] = rng.choice(["Mission", "Tenderloin", "Sunset/Parkside"], n)
    frame["Location"] = None
    return {"eviction_notices": frame}
