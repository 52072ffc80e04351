"""CelebA's attribute list and evaluation partitions, keyed by image file name.

list_attr_celeba: one row per image, attributes as +1/-1 (young is +1 for about three in
four faces); a few images have no attribute row. list_eval_partition: every image with its
partition (0 train, 1 validation, 2 test, in file order as CelebA splits them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

ATTRIBUTES = ["5_o_Clock_Shadow", "Attractive", "Eyeglasses", "Male", "Smiling", "young"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 20)
    names = [f"{i:06d}.jpg" for i in np.sort(rng.choice(202_599, n, replace=False)) + 1]
    share = {"5_o_Clock_Shadow": 0.11, "Attractive": 0.51, "Eyeglasses": 0.07, "Male": 0.42, "Smiling": 0.48,
             "young": 0.77}
    attributes = pd.DataFrame({"file_name": names,
                               **{a: np.where(rng.random(n) < share[a], 1, -1).astype("int32") for a in ATTRIBUTES}})
    attributes = attributes.drop(index=rng.choice(n, max(n // 200, 1), replace=False))  # no attributes recorded
    number = np.array([int(f[:6]) for f in names])
    partition = np.where(number <= 162_770, 0, np.where(number <= 182_637, 1, 2)).astype("int32")
    return {"list_attr_celeba": attributes, "list_eval_partition": pd.DataFrame({"file_name": names,
                                                                                 "partition": partition})}
