"""Accounts by total and number of payments: `payments`, rows in groups of about 10 (`grp`), a row
number `seq` and the columns the fold reads, with NULLs in amount. Every
payment of one account in twenty is NULL, so that some accounts have no payment at all, the
accounts this variant's late filter drops.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "amount": rng.integers(0, 600, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    payments = grouped(rows, seed, 10, columns, nulls=("amount",))
    payments.loc[payments["grp"] % 20 == 7, "amount"] = pd.NA
    return {"payments": payments}
