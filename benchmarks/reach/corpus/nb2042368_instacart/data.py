"""Instacart's orders and the products of the train set's orders.

orders: each user's orders numbered, all "prior" but the last, which is "train" for most
users and "test" for the others; days_since_prior_order missing (NULL) for a first order.
order_products__train: one row per product in a train order, add_to_cart_order 1..k; basket
sizes skewed (most small, some over twenty); a product id of 0 stands for a cart line whose
product was withdrawn from the catalogue; popular products (bananas) recur.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    users = max(n // 10, 5)
    order_rows = []
    order_id = 1
    train_orders = []
    for user in range(1, users + 1):
        count = int(rng.integers(4, 12))
        last_set = "train" if rng.random() < 0.7 else "test"
        for k in range(1, count + 1):
            ev = "prior" if k < count else last_set
            order_rows.append((order_id, user, ev, k, int(rng.integers(0, 7)), int(rng.integers(6, 23)),
                               None if k == 1 else float(rng.integers(1, 31))))
            if ev == "train":
                train_orders.append(order_id)
            order_id += 1
    orders = pd.DataFrame(order_rows, columns=["order_id", "user_id", "eval_set", "order_number", "order_dow",
                                               "order_hour_of_day", "days_since_prior_order"])
    popular = np.array([24852, 13176, 21137, 21903, 47209, 47766, 47626, 16797, 26209, 27845])
    lines = []
    while len(lines) < n:
        oid = int(rng.choice(train_orders))
        size = int(min(rng.geometric(0.11), 40))
        products = np.where(rng.random(size) < 0.3, rng.choice(popular, size), rng.integers(1, 49689, size))
        products[rng.random(size) < 0.03] = 0  # withdrawn product
        for pos, product in enumerate(products, start=1):
            lines.append((oid, int(product), pos, int(rng.random() < 0.6)))
    train = pd.DataFrame(lines[:n], columns=["order_id", "product_id", "add_to_cart_order", "reordered"])
    train = train.drop_duplicates(["order_id", "add_to_cart_order"])
    return {"orders": orders, "order_products__train": train}
