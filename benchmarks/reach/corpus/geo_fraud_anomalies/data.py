"""Card transactions with the merchant's location, as the project's generator writes them
(TransactionID, UserID, Amount, Timestamp, MerchantName, City, Latitude, Longitude,
IsFraud), with customers who come back: each customer shops mostly in a home city, now and
then in another city, sometimes twice within half an hour.

About 2% of the transactions are fraud: larger amounts, often in a city far from the
customer's, close in time to a genuine purchase (a cloned card used elsewhere, then the
customer shopping at home again).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

CITIES = {"Toronto": (43.65, -79.38), "Vancouver": (49.28, -123.12), "Montreal": (45.50, -73.57),
          "Calgary": (51.05, -114.07), "New York": (40.71, -74.00)}
MERCHANTS = ["CoffeeShop", "ElectronicsStore", "GroceryMart", "OnlineRetailer", "GasStation"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    names = list(CITIES)
    n_users = max(n // 8, 5)
    user_ids = rng.choice(np.arange(10000, 100000), n_users, replace=False)
    home = rng.choice(names, n_users)
    records = []
    while len(records) < n:
        u = int(rng.integers(n_users))
        t = pd.Timestamp("2025-01-01") + pd.Timedelta(seconds=int(rng.integers(0, 364 * 86400)))
        city = home[u] if rng.random() < 0.8 else rng.choice(names)
        records.append((user_ids[u], t, city, 0))
        if rng.random() < 0.15:  # a second purchase soon after, at home or (rarely) elsewhere
            later = t + pd.Timedelta(seconds=int(rng.integers(60, 3000)))
            records.append((user_ids[u], later, city if rng.random() < 0.7 else rng.choice(names), 0))
        if rng.random() < 0.03:  # the card used far away, then the customer again at home
            far = rng.choice([c for c in names if c != home[u]])
            stolen = t + pd.Timedelta(seconds=int(rng.integers(120, 900)))
            records.append((user_ids[u], stolen, far, 1))
            records.append((user_ids[u], stolen + pd.Timedelta(seconds=int(rng.integers(120, 900))), home[u], 0))
    records = records[:n]
    users = np.array([r[0] for r in records], dtype="int64")
    city = np.array([r[2] for r in records])
    fraud = np.array([r[3] for r in records], dtype="int64")
    lat = np.array([CITIES[c][0] for c in city]) + rng.uniform(-0.1, 0.1, n)
    lon = np.array([CITIES[c][1] for c in city]) + rng.uniform(-0.1, 0.1, n)
    frame = pd.DataFrame({
        "TransactionID": [f"{rng.integers(0, 16**12):012x}-tx" for _ in range(n)],
        "UserID": users,
        "Amount": np.round(np.where(fraud == 1, rng.uniform(300, 2000, n), rng.uniform(5, 500, n)), 2),
        "Timestamp": pd.to_datetime([r[1] for r in records]).tz_localize("UTC"),  # a TIMESTAMP, as inferSchema reads it
        "MerchantName": rng.choice(MERCHANTS, n),
        "City": city,
        "Latitude": lat.round(6), "Longitude": lon.round(6),
        "IsFraud": fraud,
    })
    frame = frame.drop_duplicates(subset=["UserID", "Timestamp"])  # one purchase per customer and second
    return {"transactions": frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)}
