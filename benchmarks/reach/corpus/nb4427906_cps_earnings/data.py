"""Current Population Survey extract: one row per respondent with age, gender, race,
ethnicity, employment status, usual hours worked per week and weekly earnings.

People not working have no hours and no earnings (missing); hours cluster at 40 with part
time and long hours around it; a few fields are missing for people who did not answer.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    status = rng.choice(["Working", "Not in labor force", "Unemployed", "With a job, not at work"], n,
                        p=[0.6, 0.3, 0.05, 0.05])
    working = status == "Working"
    hours = np.where(rng.random(n) < 0.55, 40.0, np.round(rng.normal(38, 12, n).clip(1, 99)))
    hours = np.where(working, hours, np.nan)
    earnings = np.where(working, np.round(hours * rng.lognormal(3.0, 0.5, n), 2), np.nan)
    gender = rng.choice(["Female", "Male"], n).astype(object)
    gender[rng.random(n) < 0.01] = None
    frame = pd.DataFrame({
        "age": np.where(rng.random(n) < 0.01, np.nan, rng.integers(16, 86, n).astype(float)),
        "gender": gender,
        "race": rng.choice(["WhiteOnly", "BlackOnly", "AsianOnly", "Other"], n, p=[0.77, 0.13, 0.06, 0.04]),
        "ethnicity": rng.choice(["Non-Hispanic", "Hispanic"], n, p=[0.83, 0.17]),
        "employment_status": status,
        "hours_worked_per_week": hours,
        "earnings_per_week": earnings,
    })
    return {"cps_earnings": frame}
