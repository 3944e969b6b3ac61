"""Digests of every table a release history writes, to show that a refactoring
keeps published tables identical (issue 14): 5-release histories over 5,000
Adult rows (sqlanon.histories.history) for m-invariance (anatomy and generalized
output, the window and the rowid-sort step 8, eligibility 'random'),
dynamic-anatomy, static anatomy and the naive publisher; per table the row
count and the md5 of its sorted rows (the ledger without made_at, seconds and
fingerprint; __secret left out; __chains as a set of rows). Then the same
configurations on 12 random histories (seeded pools of 300 persons with a
numeric and two categorical QI and 3-9 SA values, 4 releases each).

    python benchmarks/table_digests.py before.json   # then change the code
    python benchmarks/table_digests.py after.json && cmp before.json after.json

"""
from __future__ import annotations

import hashlib
import json
import sys

import numpy as np
import pandas as pd
import sqlanon
import sqlanon.naive as naive
from sqlanon import publisher
from sqlanon.datasets import load_adult
from sqlanon.histories import history

QI = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]
SA = "occupation"
CONFIGS = [  # name, Publisher keywords, step 8's ROWID_SORT_MIN_ROWS
    ("minv_anat", dict(model="m-invariance", m=3, output="anatomy"), None),
    ("minv_gen", dict(model="m-invariance", m=4, output="generalized"), None),
    ("minv_rowid", dict(model="m-invariance", m=3, output="generalized"), 0),
    ("minv_random", dict(model="m-invariance", m=3, eligibility="random"), None),
    ("dyn", dict(model="dynamic-anatomy", l=3), None),
    ("static", dict(model="anatomy", l=3), None),
]


def digests(con) -> dict:
    out = {}
    names = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'sqlanon%' "
                                       "ORDER BY 1").fetchall()]
    for t in names:
        if t.endswith("__secret"):
            continue
        cols = [r[0] for r in con.execute(f'DESCRIBE "{t}"').fetchall()]
        if t.endswith("__ledger"):
            cols = [c for c in cols if c not in ("made_at", "seconds", "fingerprint")]
        rows = con.execute(f"SELECT {', '.join(chr(34) + c + chr(34) for c in cols)} FROM \"{t}\"").fetchall()
        rs = sorted(repr(r) for r in rows)
        if t.endswith("__chains"):
            rs = sorted(set(rs))
        out[t] = [len(rows), hashlib.md5("\n".join(rs).encode()).hexdigest()]
    return out


def random_pool(seed: int) -> pd.DataFrame:
    """300 persons: id, age (numeric), two categorical QI, SA with 3-9 values."""
    rng = np.random.default_rng(1000 + seed)
    n = 300
    return pd.DataFrame({
        "id": np.arange(n) * 3 + seed,
        "age": rng.integers(17, 80, n),
        "city": [f"c{v}" for v in rng.integers(0, 1 + seed % 6, n)],
        "job": [f"j{v}" for v in rng.integers(0, 12, n)],
        "disease": [f"d{v}" for v in rng.integers(0, 3 + seed % 7, n)],
    })


def run_configs(result: dict, prefix: str, snapshots, qi, sa) -> None:
    default_min_rows = publisher.ROWID_SORT_MIN_ROWS
    for name, kw, min_rows in CONFIGS:
        publisher.ROWID_SORT_MIN_ROWS = default_min_rows if min_rows is None else min_rows
        con = sqlanon.connect()
        res = []
        for snap in snapshots:
            con.register("snapdf", snap)
            con.execute("CREATE OR REPLACE TABLE src AS SELECT * FROM snapdf")
            con.unregister("snapdf")
            try:
                r = sqlanon.Publisher(con, "p", source="src", id="id", qi=qi, sa=sa, seed=7, **kw).release()
                res.append((r.release, r.published, r.groups, r.counterfeits, r.held, round(r.ncp, 9), r.exposed))
            except sqlanon.SqlanonError as e:
                res.append(("refused", str(e)[:80]))
        result[prefix + name] = {"results": res, "tables": digests(con)}
        con.close()
    publisher.ROWID_SORT_MIN_ROWS = default_min_rows


def main() -> None:
    con = sqlanon.connect()
    load_adult(con, "adult", part="data", complete=True)
    pool = con.execute("SELECT * FROM adult ORDER BY id LIMIT 5000").df()
    con.close()
    result = {}
    run_configs(result, "", history(pool, "id", SA, releases=5, start=3500, seed=3), QI, SA)
    for k in range(12):
        snaps = history(random_pool(k), "id", "disease", releases=4, start=200, seed=k)
        run_configs(result, f"random{k}_", snaps, ["age", "city", "job"], "disease")
    con = sqlanon.connect()
    con.register("pool_df", pool)
    con.execute("CREATE TABLE pool AS SELECT * FROM pool_df")
    naive.history(con, "nv", "pool", 4, qi=QI[:3], sa=SA, l=3, seed=2)
    result["naive"] = {"tables": digests(con)}
    with open(sys.argv[1], "w") as f:
        json.dump(result, f, indent=1, default=str)


if __name__ == "__main__":
    main()
