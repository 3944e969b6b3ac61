"""Utility metrics vs slow obvious pure-Python references (hypothesis)."""

from __future__ import annotations

from collections import Counter, defaultdict

import duckdb
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sqlanon
from sqlanon import metrics


def ref_ncp(rows, qi, numeric, g):
    """rows: list of dicts. Returns (ncp %, {col: %})."""
    n = len(rows)
    per = {}
    for c in qi:
        vals = [r[c] for r in rows if r[c] is not None]
        groups = defaultdict(list)
        for r in rows:
            groups[r[g]].append(r)
        total = 0.0
        for members in groups.values():
            gv = [r[c] for r in members if r[c] is not None]
            if numeric[c]:
                dom = (max(vals) - min(vals)) if vals else 0
                pen = (max(gv) - min(gv)) / dom if gv and dom else 0.0
            else:
                nd = len(set(gv))
                pen = 0.0 if nd <= 1 else nd / len(set(vals))
            total += pen * len(members)
        per[c] = 100.0 * total / n if n else 0.0
    return (sum(per.values()) / len(qi) if n else 0.0), per


def ref_disc(rows, qi):
    cnt = Counter(tuple(r[c] for c in qi) for r in rows)
    return sum(v * v for v in cnt.values()), len(cnt), len(rows)


def _load(con, rows):
    df = pd.DataFrame(rows, columns=["g", "a", "x", "s"]).astype({"g": "Int64", "x": "Int64", "s": "string"})
    con.execute("CREATE OR REPLACE TABLE t (g BIGINT, a VARCHAR, x BIGINT, s VARCHAR)")
    con.register("df_", df)
    con.execute("INSERT INTO t SELECT g, a, x, s FROM df_")
    con.unregister("df_")


row_st = st.fixed_dictionaries({
    "g": st.integers(0, 3),
    "a": st.sampled_from(["p", "q", "r"]),
    "x": st.one_of(st.none(), st.integers(-5, 40)),
    "s": st.one_of(st.none(), st.sampled_from(["u", "v", "w", "z"])),
})


@settings(max_examples=60)
@given(st.lists(row_st, min_size=1, max_size=30))
def test_ncp_matches_reference(con, rows):
    _load(con, [[r["g"], r["a"], r["x"], r["s"]] for r in rows])
    got, per = metrics.ncp(con, "t", ["a", "x", "s"], "g")
    want, wper = ref_ncp(rows, ["a", "x", "s"], {"a": False, "x": True, "s": False}, "g")
    assert got == pytest.approx(want)
    for c in wper:
        assert per[c] == pytest.approx(wper[c])


@settings(max_examples=60)
@given(st.lists(row_st, min_size=0, max_size=30), st.integers(1, 5))
def test_discernibility_and_cavg_match_reference(con, rows, k):
    _load(con, [[r["g"], r["a"], r["x"], r["s"]] for r in rows])
    d, groups, n = ref_disc(rows, ["a", "s"])
    assert metrics.discernibility(con, "t", ["a", "s"]) == d
    c = metrics.avg_group_size(con, "t", ["a", "s"], k)
    if groups == 0:
        assert c is None
    else:
        assert c == pytest.approx(n / groups / k)


def test_ncp_hand_example(con):
    con.execute("CREATE TABLE h AS SELECT * FROM (VALUES (1,'a',3.5),(1,'b',4.0),(2,'a',1.0)) v(g,s,d)")
    got, per = metrics.ncp(con, "h", ["s", "d"], "g")
    # s: group 1 has {a,b} of domain {a,b} -> 1 for 2 rows; d: 0.5/3 for 2 rows
    assert per["s"] == pytest.approx(100 * 2 / 3)
    assert per["d"] == pytest.approx(100 * (2 * 0.5 / 3) / 3)
    assert got == pytest.approx((per["s"] + per["d"]) / 2)
    # one group per row -> 0
    assert metrics.ncp(con, "h", ["s", "d"], "d")[0] == 0.0


def test_discernibility_adult(con):
    from sqlanon.datasets import load_adult
    load_adult(con, "adult")
    rows = con.execute("SELECT sex, race FROM adult").fetchall()
    cnt = Counter(rows)
    assert metrics.discernibility(con, "adult", ["sex", "race"]) == sum(v * v for v in cnt.values())


def test_bad_input(con):
    con.execute("CREATE TABLE b AS SELECT 1 AS g, 'a' AS s")
    with pytest.raises(sqlanon.SqlanonError, match="nope"):
        metrics.ncp(con, "nope", ["s"], "g")
    with pytest.raises(sqlanon.SqlanonError, match="'q'"):
        metrics.ncp(con, "b", ["q"], "g")
    with pytest.raises(sqlanon.SqlanonError, match="'h'"):
        metrics.ncp(con, "b", ["s"], "h")
    with pytest.raises(sqlanon.SqlanonError, match="empty"):
        metrics.discernibility(con, "b", [])
    with pytest.raises(sqlanon.SqlanonError, match="k must"):
        metrics.avg_group_size(con, "b", ["s"], 0)
    with pytest.raises(Exception, match="empty"):
        con.execute("SELECT * FROM sqlanon_ncp('b', []::VARCHAR[], 'g')").fetchall()


def ref_kl(rows, qi, sa, g):
    import math
    n = len(rows)
    if n == 0:
        return 0.0
    p = Counter((tuple(r[c] for c in qi), r[sa]) for r in rows)
    groups = defaultdict(list)
    for r in rows:
        groups[r[g]].append(r)
    total = 0.0
    for (q, s), c in p.items():
        ps = 0.0
        for members in groups.values():
            cq = sum(1 for r in members if tuple(r[x] for x in qi) == q)
            cs = sum(1 for r in members if r[sa] == s)
            ps += cq / n * cs / len(members)
        total += c / n * math.log((c / n) / ps)
    return total


@settings(max_examples=60)
@given(st.lists(row_st, min_size=0, max_size=25))
def test_kl_matches_reference(con, rows):
    _load(con, [[r["g"], r["a"], r["x"], r["s"]] for r in rows])
    got = metrics.kl_divergence(con, "t", ["a", "x"], "s", "g")
    assert got == pytest.approx(ref_kl(rows, ["a", "x"], "s", "g"), abs=1e-9)
    assert got >= -1e-12


def test_kl_hand_example(con):
    import math
    con.execute("CREATE TABLE h AS SELECT * FROM (VALUES (1,'a',3.5,'x'),(1,'b',4.0,'y'),(2,'a',1.0,'y')) v(g,s,d,z)")
    # group 1: two rows, each P = 1/3, P* = 1/3 * 1/2 -> 2/3 ln 2; group 2 exact -> 0
    assert metrics.kl_divergence(con, "h", ["s", "d"], "z", "g") == pytest.approx(2 / 3 * math.log(2))
    with pytest.raises(sqlanon.SqlanonError, match="'nope'"):
        metrics.kl_divergence(con, "h", ["s"], "nope", "g")


def test_penalty_dl_paper_table12(con):
    # seed 004 Table 12: groups of 4, 5, 3; |D^j| = 13, |HD| = 1, |SP| = 2 -> DL = 89
    con.execute("CREATE TABLE p AS SELECT unnest([1,1,1,1,2,2,2,2,2,3,3,3]) AS gid")
    assert con.execute("SELECT dl FROM sqlanon_penalty_dl('p', 'gid', 13, 1, 2)").fetchall()[0][0] == 89


@settings(max_examples=40)
@given(st.lists(st.integers(0, 5), max_size=30), st.integers(0, 40), st.integers(0, 5), st.integers(0, 5))
def test_penalty_dl_matches_reference(con, gids, n, held, sup):
    con.execute("CREATE OR REPLACE TABLE p (gid BIGINT)")
    if gids:
        con.executemany("INSERT INTO p VALUES (?)", [[x] for x in gids])
    want = sum(v * v for v in Counter(gids).values()) + n * (held + sup)
    assert con.execute("SELECT dl FROM sqlanon_penalty_dl('p', 'gid', ?, ?, ?)", [n, held, sup]).fetchall()[0][0] == want


def ref_query_error(rows, qi, sa, g, preds, n_queries):
    """Eq. 8 from the predicate values the SQL picked (query -> col -> set)."""
    errs, skipped = [], 0
    groups = defaultdict(list)
    for r in rows:
        groups[None if r[g] is None else str(r[g])].append(r)

    def ok(r, c, q):
        return r[c] is not None and str(r[c]) in preds[q].get(c, set())

    for q in range(n_queries):
        orig = sum(1 for r in rows if all(ok(r, c, q) for c in qi) and ok(r, sa, q))
        est = 0.0
        for members in groups.values():
            cq = sum(1 for r in members if all(ok(r, c, q) for c in qi))
            cs = sum(1 for r in members if ok(r, sa, q))
            est += cq * cs / len(members)
        if orig == 0:
            skipped += 1
        else:
            errs.append(abs(est - orig) / orig)
    return (sum(errs) / len(errs) if errs else None), len(errs), skipped


@settings(max_examples=30)
@given(st.lists(row_st, min_size=1, max_size=25), st.sampled_from([0.05, 0.3, 1.0]), st.integers(0, 10**6))
def test_query_error_matches_reference(con, rows, sel, seed):
    _load(con, [[r["g"], r["a"], r["x"], r["s"]] for r in rows])
    nq = 8
    preds = defaultdict(lambda: defaultdict(set))
    for q, c, v in con.execute("SELECT * FROM sqlanon__query_error_predicates('t', ['a', 'x'], 's', ?, ?, ?)",
                               [nq, sel, seed]).fetchall():
        preds[q][c].add(v)
    # subset sizes follow the documented rule
    for c in ["a", "x", "s"]:
        d = len({str(r[c]) for r in rows if r[c] is not None})
        want = max(1, round(sel ** (1 / 3) * d)) if d else 0
        for q in range(nq):
            assert len(preds[q].get(c, set())) == want
    got = metrics.query_error(con, "t", ["a", "x"], "s", "g", nq, sel, seed)
    want = ref_query_error(rows, ["a", "x"], "s", "g", preds, nq)
    assert got[1:] == want[1:]
    if want[0] is None:
        assert got[0] is None
    else:
        assert got[0] == pytest.approx(want[0], abs=1e-9)


def test_query_error_seeded(con):
    con.execute("CREATE TABLE q AS SELECT i % 7 AS a, i % 5 AS b, i % 3 AS s, i % 4 AS g FROM range(200) r(i)")
    a = metrics.query_error(con, "q", ["a", "b"], "s", "g", 50, 0.2, 1)
    assert a == pytest.approx(metrics.query_error(con, "q", ["a", "b"], "s", "g", 50, 0.2, 1))
    p1 = con.execute("SELECT list(v ORDER BY query, col, v) FROM sqlanon__query_error_predicates('q', ['a', 'b'], 's', 50, 0.2, 1)").fetchall()
    p2 = con.execute("SELECT list(v ORDER BY query, col, v) FROM sqlanon__query_error_predicates('q', ['a', 'b'], 's', 50, 0.2, 2)").fetchall()
    assert p1 != p2
    with pytest.raises(sqlanon.SqlanonError, match="selectivity"):
        metrics.query_error(con, "q", ["a"], "s", "g", 10, 0, 1)


# --------------------------------------------- every QI-taking macro, bad QI list
_ARGS = {"tbl": "'t'", "sa": "'s'", "k": "2", "l": "2", "m": "2", "ordered": "false", "group_col": "'g'",
         "n_queries": "10", "selectivity": "0.1", "seed": "1",
         "population": "'t'", "threshold": "0.2"}


def _qi_macros(con):
    # sqlanon_eligibility_deletions takes qi as an optional ordering hint (empty is valid);
    # sqlanon__profile_counted_unchecked is, by its name, the internal one without the check (Mondrian's
    # frame, built with checked names; macros/checks.sql): sqlanon__profile_counted is its checked twin
    return con.execute("SELECT function_name, parameters FROM duckdb_functions() WHERE function_name LIKE 'sqlanon\\_%' "
                       "ESCAPE '\\' AND function_type = 'table_macro' AND list_contains(parameters, 'qi') "
                       "AND function_name NOT IN ('sqlanon_eligibility_deletions', 'sqlanon__profile_counted_unchecked') "
                       "ORDER BY 1").fetchall()


@pytest.mark.parametrize("qi", ["[]", "['zz']", "['q1', 'zz']", "NULL"])
def test_every_qi_macro_rejects_a_bad_qi_list(qi):
    """In SQL (no Python wrapper in between), an empty, NULL or unknown QI list is
    our own error naming the problem, never a binder error or a silent result."""
    con = sqlanon.connect()
    con.execute("CREATE TABLE t AS SELECT 1 AS id, 1 AS q1, 'x' AS s, 0 AS g")
    macros = _qi_macros(con)
    assert len(macros) >= 12
    for name, params in macros:
        sql = f"FROM {name}({', '.join(qi if p == 'qi' else _ARGS[p] for p in params)})"
        with pytest.raises(duckdb.Error, match="sqlanon: ") as err:
            con.execute(sql).fetchall()
        assert ("empty" in str(err.value)) if qi in ("[]", "NULL") else ('"zz"' in str(err.value)), sql


# ------------------------------- every macro, unknown single column name
_COL_ARGS = _ARGS | {"qi": "['q1']", "id_col": "'id'", "sa_col": "'s'", "plan": "'p'", "method": "'optimal'",
                     "mode": "'null'", "n_rows": "1", "held": "0", "suppressed": "0", "release": "'t'",
                     "knowledge": "'kn'"}


def test_every_macro_rejects_an_unknown_column_name():
    """In SQL, an unknown sa / group_col / id_col / sa_col is our own error naming
    the column and the table, never DuckDB's binder error about a lambda."""
    con = sqlanon.connect()
    con.execute("CREATE TABLE t AS SELECT 1 AS id, 1 AS q1, 'x' AS s, 0 AS g")
    con.execute("CREATE TABLE p AS SELECT 'x' AS sa_value, 0 AS delta")
    con.execute("CREATE TABLE kn AS SELECT 'x' AS s, 0.5 AS f_q, 0.5 AS f_qstar")
    macros = con.execute("SELECT function_name, parameters FROM duckdb_functions() WHERE function_name LIKE 'sqlanon%' "
                         "AND function_type = 'table_macro' AND function_name <> 'sqlanon__profile_counted_unchecked' "
                         "ORDER BY 1").fetchall()  # (the unchecked one: above)
    tried = 0
    for name, params in macros:
        for col in ("sa", "group_col", "id_col", "sa_col"):
            if col not in params:
                continue
            sql = f"FROM {name}({', '.join(repr('zz') if p == col else _COL_ARGS[p] for p in params)})"
            with pytest.raises(duckdb.Error, match='sqlanon: column "zz" is not in table "t"'):
                con.execute(sql).fetchall()
            tried += 1
    assert tried >= 20
