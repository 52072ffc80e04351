"""COVID-19 hospital capacity inputs: ventilators per state, hospital profiles, state
statistics.

ventilators: one row per state or territory by full name (the 56 of the abbreviation map),
ventilator counts skewed with the states' size, 0 for two
territories that reported none. hospital_beds: one row per facility with its
state code and beds; big states hold most facilities (skew); outpatient facilities have 0
beds and some profiles no bed count (NULL); a few facilities are in territories with no
ventilator figure. state_stats: population and area per state code, and a national total
row with no state code.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

STATES = ['Alabama', 'Alaska', 'Arizona', 'Arkansas', 'California', 'Colorado', 'Connecticut', 'Delaware',
          'District of Columbia', 'Florida', 'Georgia', 'Hawaii', 'Idaho', 'Illinois', 'Indiana', 'Iowa', 'Kansas',
          'Kentucky', 'Louisiana', 'Maine', 'Maryland', 'Massachusetts', 'Michigan', 'Minnesota', 'Mississippi',
          'Missouri', 'Montana', 'Nebraska', 'Nevada', 'New Hampshire', 'New Jersey', 'New Mexico', 'New York',
          'North Carolina', 'North Dakota', 'Northern Mariana Islands', 'Ohio', 'Oklahoma', 'Oregon', 'Palau',
          'Pennsylvania', 'Puerto Rico', 'Rhode Island', 'South Carolina', 'South Dakota', 'Tennessee', 'Texas',
          'Utah', 'Vermont', 'Virgin Islands', 'Virginia', 'Washington', 'West Virginia', 'Wisconsin', 'Wyoming',
          'Guam']
CODES = ['AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'DC', 'FL', 'GA', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS', 'KY',
         'LA', 'ME', 'MD', 'MA', 'MI', 'MN', 'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC', 'ND', 'MP',
         'OH', 'OK', 'OR', 'PW', 'PA', 'PR', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VI', 'VA', 'WA', 'WV', 'WI',
         'WY', 'GM']


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    size = rng.lognormal(0, 1.0, len(STATES))
    ventilators = pd.DataFrame({"State": STATES,
                                "Ventilators": np.round(size / size.sum() * 160000).astype("int64")})
    ventilators.loc[ventilators["State"].isin(["Palau", "Northern Mariana Islands"]), "Ventilators"] = 0  # none reported
    codes = np.array(CODES + ["AS"])  # American Samoa: no ventilator figure
    p = np.append(size, size.min())
    state = rng.choice(codes, n, p=p / p.sum())
    beds = pd.array(np.round(rng.lognormal(4.3, 1.1, n)).astype("int64"), dtype="Int64")
    beds[rng.random(n) < 0.08] = 0
    beds[rng.random(n) < 0.04] = pd.NA
    hospitals = pd.DataFrame({"Hospital": [f"Hospital {i}" for i in range(n)], "State": state, "Beds": beds,
                              "Type": rng.choice(["Short Term Acute Care", "Critical Access", "Psychiatric",
                                                  "Outpatient"], n, p=[0.5, 0.25, 0.1, 0.15])})
    stats = pd.DataFrame({"State": CODES + [None],
                          "Population": np.append(np.round(size / size.sum() * 3.3e8), 3.3e8).astype("int64"),
                          "Area": np.append(np.round(rng.uniform(100, 600000, len(CODES))), 3.8e6)})
    return {"ventilators": ventilators, "hospital_beds": hospitals, "state_stats": stats}
