"""A shop's clickstream in the Kaggle eCommerce events layout (event_time, event_type,
product_id, category_id, category_code, brand, price, user_id, user_session), read as text
the way the CSV is.

Mostly views, fewer carts and removals, few purchases; sessions of one user hold several
events; category codes are dotted paths, missing (NULL) for most products and, in one
export, written as the text "NULL"; a few events lost their session id or user (NULL);
prices as text; categories convert very differently (gloves much better than furniture).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

CATEGORIES = ["apparel.glove", "stationery.cartrige", "appliances.environment.vacuum",
              "appliances.environment.air_conditioner", "appliances.personal.massager",
              "appliances.personal.hair_cutter", "furniture.bathroom.bath", "furniture.living_room.cabinet",
              "accessories.cosmetic_bag", None, "NULL"]
CAT_P = np.array([0.06, 0.05, 0.08, 0.02, 0.03, 0.03, 0.05, 0.05, 0.03, 0.58, 0.02])
BUY_RATE = {"apparel.glove": 0.6, "stationery.cartrige": 0.4, "appliances.environment.vacuum": 0.2,
            "appliances.environment.air_conditioner": 0.15, "appliances.personal.massager": 0.08,
            "appliances.personal.hair_cutter": 0.03}


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    records = []
    session = 0
    while len(records) < n:
        session += 1
        user = int(rng.integers(400000000, 400000000 + n // 6))
        sid = f"{session:08x}-sess"
        t = pd.Timestamp("2019-10-01") + pd.Timedelta(seconds=int(rng.integers(0, 150 * 86400)))
        for _ in range(int(rng.integers(1, 8))):
            category = CATEGORIES[int(rng.choice(len(CATEGORIES), p=CAT_P))]
            product = int(rng.integers(5000000, 5900000))
            price = f"{rng.gamma(2.0, 8.0):.2f}"
            rate = BUY_RATE.get(category, 0.1)
            events = ["view"]
            if rng.random() < rate * 1.5:
                events.append("cart")
                if rng.random() < 0.15:
                    events.append("remove_from_cart")
                elif rng.random() < rate:
                    events.append("purchase")
            for event in events:
                t = t + pd.Timedelta(seconds=int(rng.integers(5, 600)))
                records.append((t.strftime("%Y-%m-%d %H:%M:%S"), event, product, int(rng.integers(1, 30)), category,
                                rng.choice(["runail", "irisk", "grattol", "masura", None]), price, user, sid))
    frame = pd.DataFrame(records[:n], columns=["event_time", "event_type", "product_id", "category_id",
                                               "category_code", "brand", "price", "user_id", "user_session"])
    frame["product_id"] = frame["product_id"].astype("int64")
    frame["category_id"] = frame["category_id"].astype("int64")
    frame["user_id"] = pd.array(frame["user_id"], dtype="Int64")
    frame.loc[rng.random(len(frame)) < 0.01, "user_session"] = None
    frame.loc[rng.random(len(frame)) < 0.005, "user_id"] = pd.NA
    return {"events": frame}
