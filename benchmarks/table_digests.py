"""Digests of every table a release history writes, to show that a refactoring
keeps published tables identical (issue 14): 5-release histories over 5,000
Adult rows (sqlanon.histories.history) for m-invariance (anatomy and generalized
output, the window and the rowid-sort step 8, eligibility 'random'),
dynamic-anatomy, static anatomy, sliced-bucket (m = 2, 3, 4; tau and the Cach
varied) and the naive publisher; per table the row
count and the md5 of its sorted rows (the ledger without made_at, seconds and
fingerprint and the provenance columns; __secret left out; __chains as a set of
rows; private tables keyed by their former main-schema names). Then 12 random
histories (random pools: 2-3 QI of integer and text types, 4-9 SA values,
200-900 persons, 4 releases, random churn rates) under every config above.
The release contract's tables (qit, st, published, membership) are digested
per release as their macros return them (``sqlanon_published_qit(P, r)``, ...,
key ``<table>@<r>``), not as stored, so a change of their storage shape
(issue 34: intervals instead of per-release rows) keeps the digests.

    python benchmarks/table_digests.py before.json   # then change the code
    python benchmarks/table_digests.py after.json && cmp before.json after.json

"""
from __future__ import annotations

import hashlib
import json
import re
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
    ("sliced3", dict(model="sliced-bucket", m=3, output="anatomy"), None),
    ("sliced4", dict(model="sliced-bucket", m=4, tau=2, cach=1), None),
    ("sliced2_nocach", dict(model="sliced-bucket", m=2, cach=0), None),
]

try:  # the m-invariance model's module (sqlanon/models/), or the publisher before the model registry
    from sqlanon.models import m_invariance as _MIN_ROWS_HOME
except ImportError:
    _MIN_ROWS_HOME = publisher
# (gone since step 8 has one path per engine: the setting is then ignored)
DEFAULT_MIN_ROWS = getattr(_MIN_ROWS_HOME, "ROWID_SORT_MIN_ROWS", None)


CONTRACT = {"qit": "sqlanon_published_qit", "st": "sqlanon_published_st", "published": "sqlanon_published",
            "membership": "sqlanon_membership"}


def _contract(con, schema: str, name: str):
    """(project, macro) when the table is one of the release contract's, else None."""
    for suffix, macro in CONTRACT.items():
        m = re.fullmatch(rf"(?:sqlanon_)?(.+?)_{suffix}", name)
        if m and (schema == "sqlanon_private") == (suffix == "membership"):
            return m.group(1), macro
    return None


def digests(con) -> dict:
    out = {}
    # published tables (main) and private ones (schema sqlanon_private, keyed by
    # the names they had in main before: sqlanon_<P>_membership, sqlanon_<P>__x)
    names = con.execute("SELECT CASE WHEN schema_name = 'main' THEN table_name ELSE 'sqlanon_' || table_name END, "
                        "schema_name, table_name FROM duckdb_tables() WHERE (schema_name = 'main' AND table_name "
                        "LIKE 'sqlanon%') OR schema_name = 'sqlanon_private' ORDER BY 1").fetchall()
    for t, schema, name in names:
        if t.endswith("__secret") or t in ("sqlanon__persons", "sqlanon__persons_key"):
            continue  # keyed by a random key (the shared persons' digests: sql/_shared/)
        rel = f'"{schema}"."{name}"'
        contract = _contract(con, schema, name)
        if contract:
            project, macro = contract
            for (r,) in con.execute(f'SELECT release FROM "sqlanon_private"."{project}__ledger" ORDER BY 1').fetchall():
                rows = con.execute(f"SELECT * FROM {macro}(?, ?)", [project, r]).fetchall()
                out[f"{t}@{r}"] = [len(rows), hashlib.md5("\n".join(sorted(repr(x) for x in rows)).encode()).hexdigest()]
            continue
        cols = [r[0] for r in con.execute(f"DESCRIBE {rel}").fetchall()]
        if t.endswith("__ledger"):  # timing, the keyed fingerprint and provenance (package version, template hashes)
            cols = [c for c in cols if c not in ("made_at", "seconds", "fingerprint", "sqlanon_version",
                                                 "template_sha256", "template_overrides", "shared_persons")]
        rows = con.execute(f"SELECT {', '.join(chr(34) + c + chr(34) for c in cols)} FROM {rel}").fetchall()
        rs = sorted(repr(r) for r in rows)
        if t.endswith("__chains"):
            rs = sorted(set(rs))
        out[t] = [len(rows), hashlib.md5("\n".join(rs).encode()).hexdigest()]
    return out


def _set_min_rows(value: int) -> None:
    """Step 8's ROWID_SORT_MIN_ROWS, wherever this version of sqlanon keeps it."""
    if DEFAULT_MIN_ROWS is not None:
        setattr(_MIN_ROWS_HOME, "ROWID_SORT_MIN_ROWS", value)


def _run_configs(snapshots, qi: list[str], project_seed: int) -> dict:
    result = {}
    for name, kw, min_rows in CONFIGS:
        _set_min_rows(DEFAULT_MIN_ROWS if min_rows is None else min_rows)
        con = sqlanon.connect()
        res = []
        for snap in snapshots:
            con.register("snapdf", snap)
            con.execute("CREATE OR REPLACE TABLE src AS SELECT * FROM snapdf")
            con.unregister("snapdf")
            try:
                r = sqlanon.Publisher(con, "p", source="src", id="id", qi=qi, sa=SA, seed=project_seed, **kw).release()
                res.append((r.release, r.published, r.groups, r.counterfeits, r.held, round(r.ncp, 9), r.exposed))
            except sqlanon.SqlanonError as e:
                res.append(("refused", str(e)[:80]))
        result[name] = {"results": res, "tables": digests(con)}
        con.close()
    _set_min_rows(DEFAULT_MIN_ROWS)
    return result


def random_pool(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(200, 900))
    cols = {"id": np.arange(1, n + 1, dtype=np.int64)}
    for k in range(int(rng.integers(2, 4))):
        if rng.random() < 0.5:
            cols[f"q{k}"] = rng.integers(0, int(rng.integers(3, 60)), n).astype(np.int32)
        else:
            cols[f"q{k}"] = [f"v{x}" for x in rng.integers(0, int(rng.integers(2, 12)), n)]
    nsa = int(rng.integers(4, 10))
    weights = rng.dirichlet(np.ones(nsa))
    cols[SA] = [f"s{x}" for x in rng.choice(nsa, n, p=weights)]
    return pd.DataFrame(cols)


def main() -> None:
    con = sqlanon.connect()
    load_adult(con, "adult", part="data", complete=True)
    pool = con.execute("SELECT * FROM adult ORDER BY id LIMIT 5000").df()
    con.close()
    snapshots = history(pool, "id", SA, releases=5, start=3500, seed=3)
    result = _run_configs(snapshots, QI, 7)
    for k in range(12):
        rng = np.random.default_rng(k)
        pool_k = random_pool(k)
        snaps = history(pool_k, "id", SA, releases=4, start=int(len(pool_k) * 0.7), delete=float(rng.uniform(0, .2)),
                        insert=float(rng.uniform(0, .2)), update=float(rng.uniform(0, .15)), seed=k)
        for name, v in _run_configs(snaps, [c for c in pool_k.columns if c not in ("id", SA)], k).items():
            result[f"random{k}_{name}"] = v
    con = sqlanon.connect()
    con.register("pool_df", pool)
    con.execute("CREATE TABLE pool AS SELECT * FROM pool_df")
    naive.history(con, "nv", "pool", 4, qi=QI[:3], sa=SA, l=3, seed=2)
    result["naive"] = {"tables": digests(con)}
    with open(sys.argv[1], "w") as f:
        json.dump(result, f, indent=1, default=str)


if __name__ == "__main__":
    main()
