"""CDNOW's purchase log (the public CDNOW_master.txt): one row per purchase, columns as read
from the whitespace-separated file: user id, date as a yyyymmdd number, number of CDs and
amount paid.

Every customer made a first purchase in the first quarter of 1997; most never came back,
some bought again over the following eighteen months (to June 1998), a few many times; a
customer can buy twice on one day (two rows); a few purchases have an amount of 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

START = pd.Timestamp("1997-01-01")
END = pd.Timestamp("1998-06-30")


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n_users = max(rows // 3, 20)
    first = START + pd.to_timedelta(rng.integers(0, 90, n_users), "D")
    repeats = np.where(rng.random(n_users) < 0.5, 0, rng.geometric(0.25, n_users))
    users, days = [], []
    for user, (start, k) in enumerate(zip(first, repeats), start=1):
        users.append(user)
        days.append(start)
        span = (END - start).days
        for offset in np.sort(rng.integers(0, span + 1, k)):
            users.append(user)
            days.append(start + pd.Timedelta(days=int(offset)))
    m = len(users)
    quantity = rng.geometric(0.5, m)
    price = np.round(quantity * rng.uniform(9, 16, m), 2)
    price[rng.random(m) < 0.003] = 0.0
    frame = pd.DataFrame({"user": np.array(users, dtype="int64"),
                          "date": np.array([int(d.strftime("%Y%m%d")) for d in days], dtype="int64"),
                          "quantity": quantity.astype("int64"), "price": price})
    return {"cdnow": frame}
