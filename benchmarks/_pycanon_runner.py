"""Runs inside benchmarks/.venv-pycanon (pycanon pins its own pandas/numpy; it is
not a dependency of sqlanon). Times pycanon's checks on a CSV export and prints one
JSON object on the last line of stdout. Loading the CSV is not timed.

Usage: python _pycanon_runner.py CSV QI1,QI2,... SA REPEAT
Each check: best of REPEAT calls (the first call is timed too: there is no cache to
warm in pycanon, every call regroups the DataFrame).
"""

import json
import math
import sys
import time

import pandas as pd
import pycanon
from pycanon import anonymity

path, qi, sa, repeat = sys.argv[1], sys.argv[2].split(","), sys.argv[3], int(sys.argv[4])
df = pd.read_csv(path)


def _num(v):
    v = float(v)
    return None if math.isnan(v) else v


checks = {
    # name: (call, value extracted from the result)
    "k_anonymity": (lambda: anonymity.k_anonymity(df, qi), lambda r: _num(r)),
    "distinct_l": (lambda: anonymity.l_diversity(df, qi, [sa]), lambda r: _num(r)),
    "entropy_l": (lambda: anonymity.entropy_l_diversity(df, qi, [sa]), lambda r: _num(r)),
    "alpha": (lambda: anonymity.alpha_k_anonymity(df, qi, [sa]), lambda r: _num(r[0])),
    "recursive_cl": (lambda: anonymity.recursive_c_l_diversity(df, qi, [sa]), lambda r: [_num(r[0]), _num(r[1])]),
    "t_closeness": (lambda: anonymity.t_closeness(df, qi, [sa]), lambda r: _num(r)),
}
out = {"pycanon": getattr(pycanon, "__version__", None), "pandas": pd.__version__, "rows": len(df), "checks": {}}
for name, (fn, value) in checks.items():
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = fn()
        times.append(time.perf_counter() - t0)
    out["checks"][name] = {"seconds": min(times), "all_seconds": times, "value": value(res)}
    print(f"pycanon {name}: {min(times):.2f} s", file=sys.stderr, flush=True)
print(json.dumps(out))
