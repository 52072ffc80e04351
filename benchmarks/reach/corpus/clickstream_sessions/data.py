"""A web site's event log (web_events.csv): user id, event time as text, page.

Users visit in bursts (events a few minutes apart) separated by hours or days, so most
users have several sessions; a few very active users have most of the events; checkouts
come at the end of some sessions, after product and cart pages; event times never tie
within a user.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

PAGES = ["/home", "/search", "/product", "/product", "/cart", "/account", "/help"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    users = max(n // 25, 5)
    activity = rng.pareto(1.5, users) + 0.3
    records = []
    per_user = np.maximum(1, np.round(activity / activity.sum() * n)).astype(int)
    for u, count in enumerate(per_user):
        t = pd.Timestamp("2024-05-01") + pd.Timedelta(minutes=int(rng.integers(0, 600)))
        for _ in range(count):
            gap = rng.choice([rng.integers(1, 20), rng.integers(31, 3000)], p=[0.8, 0.2])
            t = t + pd.Timedelta(minutes=int(gap), seconds=int(rng.integers(0, 60)))
            page = "/checkout" if rng.random() < 0.07 else str(rng.choice(PAGES))
            records.append((f"u{u:04d}", t.strftime("%Y-%m-%d %H:%M:%S"), page))
    frame = pd.DataFrame(records, columns=["user_id", "event_time", "page"])
    return {"web_events": frame.sample(frac=1.0, random_state=int(rng.integers(1 << 31))).reset_index(drop=True)}
