"""Runs inside benchmarks/.venv-pycanon (pycanon pins old pandas/numpy): times
pycanon's checks on a CSV and prints one JSON object. Loading is not timed."""

import json
import sys
import time

import pandas as pd
from pycanon import anonymity

path, qi, sa, l_rec = sys.argv[1], sys.argv[2].split(","), sys.argv[3], int(sys.argv[4])
df = pd.read_csv(path)

checks = {
    "k_anonymity": lambda: anonymity.k_anonymity(df, qi),
    "distinct_l": lambda: anonymity.l_diversity(df, qi, [sa]),
    "entropy_l": lambda: anonymity.entropy_l_diversity(df, qi, [sa]),
    "alpha": lambda: anonymity.alpha_k_anonymity(df, qi, [sa])[0],
    "recursive_cl": lambda: anonymity.recursive_c_l_diversity(df, qi, [sa])[0],
    "t_closeness": lambda: anonymity.t_closeness(df, qi, [sa]),
}
out = {}
for name, fn in checks.items():
    t0 = time.perf_counter()
    value = fn()
    out[name] = {"seconds": time.perf_counter() - t0, "value": float(value) if value is not None else None}
print(json.dumps(out))
