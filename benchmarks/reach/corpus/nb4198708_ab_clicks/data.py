"""An app's A/B test logs: exposures of a recommendation slot and clicks on it.

ab_exposure_log: one row per exposure (transaction), with the app, date, test name, test
arm and user; visitors who were not logged in have no user id (NULL); arms are unequal in
size (the control gets most traffic) and one arm was stopped early. ab_click_log: one row
per click, carrying the clicked exposure's transaction id (missing, NULL, for clicks the
tracker could not attribute), sometimes twice (a double tap), with its own date.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    arms = np.array(["control", "case_a", "case_b", "case_c"])
    arm = rng.choice(4, n, p=[0.55, 0.2, 0.2, 0.05])
    rate = np.array([0.12, 0.16, 0.10, 0.3])[arm]
    dates = pd.date_range("2019-03-01", periods=14, freq="D").strftime("%Y-%m-%d").to_numpy()
    user = pd.array(rng.integers(1000, 1000 + n // 3, n), dtype="Int64")
    user[rng.random(n) < 0.06] = pd.NA
    exposure = pd.DataFrame({"transaction_id": [f"t{i:07d}" for i in range(n)], "app_name": "shop",
                             "log_date": rng.choice(dates, n), "test_name": "rec_slot", "test_case": arms[arm],
                             "user_id": user})
    clicked = np.flatnonzero(rng.random(n) < rate)
    twice = clicked[rng.random(len(clicked)) < 0.05]
    rows_clicked = np.concatenate([clicked, twice])
    clicks = exposure.iloc[rows_clicked].copy().reset_index(drop=True)
    lost = rng.random(len(clicks)) < 0.05
    clicks["transaction_id"] = clicks["transaction_id"].where(~lost, None)
    return {"ab_exposure_log": exposure, "ab_click_log": clicks}
