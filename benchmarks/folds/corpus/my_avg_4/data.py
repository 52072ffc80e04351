"""Accounts by total and number of payments: `payments`, rows in groups of about 10 (`grp`), a row
number `seq` and the columns the fold reads, with NULLs in amount. One account in eight makes
only small payments (under 40), so that some accounts have a total from 140 to 200, the accounts
this variant's late filter asks for.
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
    small = payments["grp"] % 8 == 3
    payments.loc[small, "amount"] = payments.loc[small, "amount"] % 40
    return {"payments": payments}
