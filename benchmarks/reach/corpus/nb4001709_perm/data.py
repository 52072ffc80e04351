"""The US Department of Labor's PERM visa decisions (the columns this notebook keeps, and
the two it filters by).

Citizenship skewed to India, China, South Korea, Canada; wage offers mostly per year, some
per hour, week or month; the employer's state written as a two-letter code in later years
and as the full upper-case name in earlier ones, missing (NULL) for some; employer size,
postal code and decision time sometimes missing; wages skewed, some below $50,000.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

STATES = [("CA", "CALIFORNIA"), ("NY", "NEW YORK"), ("NJ", "NEW JERSEY"), ("TX", "TEXAS"), ("GA", "GEORGIA"),
          ("IL", "ILLINOIS"), ("WA", "WASHINGTON"), ("VA", "VIRGINIA"), ("MA", "MASSACHUSETTS"), ("GU", "GUAM")]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    pick = rng.choice(len(STATES), n, p=[0.3, 0.14, 0.12, 0.1, 0.08, 0.07, 0.07, 0.05, 0.05, 0.02])
    written_out = rng.random(n) < 0.3
    state = np.array([STATES[i][1] if w else STATES[i][0] for i, w in zip(pick, written_out)], dtype=object)
    state[rng.random(n) < 0.03] = None
    unit = rng.choice(["Year", "Hour", "Week", "Month"], n, p=[0.85, 0.1, 0.02, 0.03])
    wage = np.round(np.where(unit == "Year", rng.lognormal(11.3, 0.4, n), rng.lognormal(3.5, 0.4, n)), 2)
    employees = pd.array(rng.integers(2, 100000, n), dtype="Int64")
    employees[rng.random(n) < 0.04] = pd.NA
    elapsed = pd.array(rng.integers(60, 900, n), dtype="Int64")
    elapsed[rng.random(n) < 0.02] = pd.NA
    frame = pd.DataFrame({
        "CASE_NUMBER": [f"A-{15000 + i:05d}-{rng.integers(10000, 99999)}" for i in range(n)],
        "CASE_STATUS": rng.choice(["Certified", "Certified-Expired", "Denied", "Withdrawn"], n, p=[0.6, 0.25, 0.08, 0.07]),
        "DECISION_ELAPSED_DAYS": elapsed,
        "EMPLOYER_POSTAL_CODE": [None if rng.random() < 0.02 else f"{rng.integers(10000, 99999)}" for _ in range(n)],
        "EMPLOYER_STATE": state, "EMPLOYER_NUM_EMPLOYEES": employees,
        "WAGE_OFFER_FROM_9089": wage, "WAGE_OFFER_UNIT_OF_PAY_9089": unit,
        "COUNTRY_OF_CITIZENSHIP": rng.choice(["INDIA", "CHINA", "SOUTH KOREA", "CANADA", "MEXICO"], n,
                                             p=[0.45, 0.15, 0.2, 0.1, 0.1]),
        "CLASS_OF_ADMISSION": rng.choice(["H-1B", "L-1", "F-1", "E-2", "Not in USA"], n, p=[0.6, 0.1, 0.1, 0.1, 0.1]),
        "FOREIGN_WORKER_INFO_EDUCATION": rng.choice(["Master's", "Bachelor's", "Doctorate", "None"], n),
        "CASE_RECEIVED_DATE_MONTH": pd.array(rng.integers(1, 13, n), dtype="Int64"),
    })
    return {"us_perm_visas": frame}
