"""Seed 003's sliced form (sqlanon/slicing.py, sql/_slicing/): phi^2 against
a slow reference, the grouping of columns, the sliced table against the
published tables it is made from (the same multisets per bucket, cells
generalized to the bucket), and that it reads nothing but the published
tables."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sqlanon
from sqlanon import Publisher, SqlanonError
from sqlanon.slicing import column_groups, correlations, group_columns, sliced


def _phi2_reference(rows: list[tuple], numeric: list[bool], bins: int = 10) -> dict:
    """phi^2 of every pair of columns, the obvious way: numeric columns binned
    by rank (equal values share a bin), contingency tables by counting."""
    n = len(rows)
    cols = []
    for j, num in enumerate(numeric):
        vals = [r[j] for r in rows]
        if num:
            order = sorted(vals)
            rank = {v: order.index(v) + 1 for v in set(vals)}
            cols.append([(bins * (rank[v] - 1)) // n for v in vals])
        else:
            cols.append(vals)
    out = {}
    for a, b in combinations(range(len(numeric)), 2):
        fab = Counter(zip(cols[a], cols[b]))
        fa, fb = Counter(cols[a]), Counter(cols[b])
        d = min(len(fa), len(fb)) - 1
        s = sum((c / n) ** 2 / ((fa[x] / n) * (fb[y] / n)) for (x, y), c in fab.items()) - 1
        out[(a, b)] = s / d if d > 0 else 0.0
    return out


def _project(con, rows, m=2, model="m-invariance", **kw):
    con.execute("CREATE OR REPLACE TABLE src (id BIGINT, age INTEGER, sex VARCHAR, zip VARCHAR, disease VARCHAR)")
    con.executemany("INSERT INTO src VALUES (?, ?, ?, ?, ?)", [(i, *r) for i, r in enumerate(rows)])
    return Publisher(con, "p", source="src", id="id", qi=["age", "sex", "zip"], sa="disease", m=m, model=model, **kw)


_ROW = st.tuples(st.integers(18, 30), st.sampled_from(["F", "M"]), st.sampled_from(["47901", "47902", "47308"]),
                 st.sampled_from(["flu", "hiv", "cold", "gastritis"]))


@settings(max_examples=25, deadline=None)
@given(rows=st.lists(_ROW, min_size=12, max_size=40))
def test_phi2_matches_the_reference(rows):
    con = sqlanon.connect()
    try:
        if len({r[3] for r in rows}) < 2:
            return
        _project(con, rows).release()
        qit = con.execute("SELECT age, sex, zip FROM sqlanon_p_qit WHERE release = 1").fetchall()
        ref = _phi2_reference(qit, [True, False, False])
        got = correlations(con, "p")
        names = ["age", "sex", "zip"]
        for (a, b), v in ref.items():
            assert math.isclose(got[(names[a], names[b])], v, abs_tol=1e-9)
    finally:
        con.close()


def test_group_columns_merges_the_most_correlated_first():
    phi = {("a", "b"): 0.1, ("a", "c"): 0.8, ("b", "c"): 0.3, ("a", "d"): 0.0, ("b", "d"): 0.5, ("c", "d"): 0.0}
    assert group_columns(["a", "b", "c", "d"], phi, 3) == [["a", "c"], ["b"], ["d"]]
    # average linkage: (a, c) with b = (0.1 + 0.3) / 2 = 0.2 < b with d = 0.5
    assert group_columns(["a", "b", "c", "d"], phi, 2) == [["a", "c"], ["b", "d"]]
    assert group_columns(["a", "b", "c", "d"], phi, 1) == [["a", "b", "c", "d"]]
    with pytest.raises(SqlanonError, match="at least 1"):
        group_columns(["a"], {}, 0)


@pytest.fixture
def adult_project(con):
    """Three releases of sliced-bucket over Adult (age, sex, native country)."""
    from sqlanon.datasets import load_adult
    from sqlanon.histories import history, publish

    load_adult(con, "adult", complete=True)
    pool = con.execute("SELECT id, age, sex, native_country AS zip, occupation AS disease FROM adult "
                       "ORDER BY hash(id, 5) LIMIT 900").df()
    frames = history(pool, "id", "disease", releases=3, start=600, seed=5)
    publish(con, "p", frames, source="src", progress=False, id="id", qi=["age", "sex", "zip"], sa="disease", m=4,
            model="sliced-bucket")
    return con


@pytest.mark.parametrize("generalize", [False, True])
def test_sliced_table_is_the_published_buckets(adult_project, generalize):
    con = adult_project
    for r in (1, 3):
        out = sliced(con, "p", release=r, groups=[["age", "sex"], ["zip"]], generalize=generalize, seed=7)
        qit = con.execute("SELECT group_id, age, sex, zip FROM sqlanon_p_qit WHERE release = ?", [r]).fetchall()
        st_ = con.execute("SELECT group_id, disease, count FROM sqlanon_p_st WHERE release = ?", [r]).fetchall()
        assert len(out) == len(qit) == sum(c for _, _, c in st_)
        assert set(out["release"]) == {r}
        for g, rows in out.groupby("group_id"):
            mine = [q for q in qit if q[0] == g]
            assert sorted(rows["row"]) == list(range(1, len(mine) + 1))
            assert Counter(rows["disease"]) == Counter({v: c for gg, v, c in st_ if gg == g})
            if not generalize:
                assert Counter(zip(rows["age"], rows["sex"])) == Counter((a, s) for _, a, s, _ in mine)
                assert Counter(rows["zip"]) == Counter(z for *_, z in mine)
            else:
                ages = [a for _, a, _, _ in mine]
                want = str(min(ages)) if min(ages) == max(ages) else f"{min(ages)}-{max(ages)}"
                assert set(rows["age"]) == {want}
                sexes = {s for _, _, s, _ in mine}
                assert set(rows["sex"]) == ({sexes.pop()} if len(sexes) == 1 else {"*"})
                (z,) = set(rows["zip"])
                zips = {q[3] for q in mine}
                assert all(x.startswith(z.rstrip("*")) for x in zips) and (z.endswith("*") or len(zips) == 1)


def test_sliced_reads_only_the_published_tables(adult_project, tmp_path):
    """The same sliced table from a database that holds nothing but a copy of
    the two published tables: the sliced form is a function of them."""
    con = adult_project
    want = sliced(con, "p", release=2, seed=3)
    groups = column_groups(con, "p", release=2)
    other = duckdb.connect()
    for t in ("sqlanon_p_qit", "sqlanon_p_st"):
        other.register("x", con.execute(f"SELECT * FROM {t}").df())
        other.execute(f"CREATE TABLE {t} AS SELECT * FROM x")
        other.unregister("x")
    try:
        assert column_groups(other, "p", release=2) == groups
        got = sliced(other, "p", release=2, seed=3)
        assert got.equals(want)
    finally:
        other.close()


def test_sliced_into_a_table_and_bad_input(adult_project):
    con = adult_project
    n = sliced(con, "p", into="p_sliced")
    assert n == con.execute("SELECT count(*) FROM sqlanon_p_qit WHERE release = 3").fetchone()[0]
    assert con.execute("SELECT count(*) FROM p_sliced").fetchone()[0] == n
    with pytest.raises(SqlanonError, match="every QI column"):
        sliced(con, "p", groups=[["age"], ["zip"]])
    with pytest.raises(SqlanonError, match="unknown: 'height'"):
        sliced(con, "p", groups=[["age", "sex", "zip"], ["height"]])
    with pytest.raises(SqlanonError, match="no release 9"):
        sliced(con, "p", release=9)
    with pytest.raises(SqlanonError, match="no published anatomy tables"):
        sliced(con, "nobody")


def test_cli_writes_the_sliced_form(tmp_path):
    from click.testing import CliRunner

    from sqlanon.cli import main

    db = tmp_path / "w.duckdb"
    con = sqlanon.connect(str(db))
    rows = [(20 + i % 9, "F" if i % 9 < 4 else "M", str(47900 + i % 13), f"d{i % 5}") for i in range(60)]
    _project(con, rows, m=3, model="sliced-bucket", cach=0).release()
    want = sliced(con, "p", seed=4)
    con.close()
    out = tmp_path / "s.csv"
    r = CliRunner().invoke(main, ["sliced", "p", "--db", str(db), "--seed", "4", "--to", str(out)])
    assert r.exit_code == 0, r.output
    assert "wrote" in r.output and "(60 rows)" in r.output
    got = duckdb.connect().execute(f"SELECT * FROM read_csv('{out}', all_varchar = true)").df()
    assert got.astype(str).values.tolist() == want.astype(str).values.tolist()
    r = CliRunner().invoke(main, ["sliced", "p", "--db", str(db), "--release", "2", "--to", str(out)])
    assert r.exit_code != 0 and "no release 2" in r.output
