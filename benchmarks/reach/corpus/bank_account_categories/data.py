"""UPI payment records of a bank's accounts, categorised (category_level1 a broad class,
category_level2 a finer one), with the payer account's details repeated on each row.

A few hundred accounts, most savings, some current; payments skewed (many small, a few
large); the payee's account type varies from payment to payment, so an account has several
detail rows; salary credits and rent are made from savings accounts only, so those
categories occur only there; some payments record no amount (NULL).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

LEVEL2 = {"Shopping": ["Groceries", "Electronics", "Clothing"], "Bills": ["Electricity", "Mobile", "Rent"],
          "Transfers": ["Family", "Salary"], "Food": ["Restaurants", "Delivery"]}


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    n_accounts = max(n // 8, 10)
    account_type = rng.choice(["Savings", "Current"], n_accounts, p=[0.75, 0.25])
    account = rng.integers(0, n_accounts, n)
    level1 = rng.choice(list(LEVEL2), n, p=[0.35, 0.25, 0.2, 0.2])
    level2 = np.array([rng.choice(LEVEL2[c]) for c in level1], dtype=object)
    savings_only = np.isin(level2, ["Salary", "Rent"])
    current = account_type[account] == "Current"
    level2 = np.where(savings_only & current, "Family", level2)
    level2 = np.where(level1 == "Bills", np.where(savings_only & current, "Mobile", level2), level2)
    amount = np.round(rng.lognormal(7.0, 1.3, n) * np.where(current, 3.0, 1.0), 2)
    amount = pd.array(amount, dtype="Float64")
    amount[rng.random(n) < 0.02] = pd.NA
    frame = pd.DataFrame({
        "account_number": [f"ACC{a:06d}" for a in account],
        "account_holder_name": [f"Holder {a}" for a in account],
        "account_ifsc": [f"SBIN{a % 50:07d}" for a in account],
        "account_type": account_type[account],
        "payee_account_type": rng.choice(["Savings", "Current"], n, p=[0.6, 0.4]),
        "payer_account_type": account_type[account],
        "category_level1": level1, "category_level2": level2, "payer_amount": amount,
    })
    return {"transactions": frame}
