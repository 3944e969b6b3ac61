"""Re-identification risk macros (macros/risk.sql) against a by-hand Python
computation on random tables, plus a hand example."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

import sqlanon
from sqlanon import SqlanonError, checks


def _hand(con):
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES (1,'a'),(1,'a'),(1,'a'),(2,'b'),(2,'b'),(3,NULL)) v(x,y)")
    con.execute("CREATE TABLE pop AS SELECT * FROM t UNION ALL "
                "SELECT * FROM (VALUES (2,'b'),(2,'b'),(2,'b'),(3,NULL),(9,'z')) v(x,y)")


def test_hand_example(con):
    _hand(con)
    # groups 3, 2, 1 (NULL is a value): risks 1/3, 1/2, 1
    assert con.execute("SELECT * FROM sqlanon_prosecutor_risk('t', ['x', 'y'])").fetchall() == [(1.0, 1.0, 0.5, 6, 3)]
    assert con.execute("SELECT records_at_risk FROM sqlanon_prosecutor_risk('t', ['x', 'y'], threshold := 0.4)"
                       ).fetchall() == [(0.5,)]
    # population groups 3, 5, 2: risks 1/3, 1/5 (not above 0.2), 1/2; marketer (3/3 + 2/5 + 1/2) / 6
    r = con.execute("SELECT * FROM sqlanon_journalist_risk('t', 'pop', ['x', 'y'])").fetchall()[0]
    assert r[0] == pytest.approx(4 / 6) and r[1] == pytest.approx(0.5) and r[2] == pytest.approx(1.9 / 6)
    rep = checks.reidentification_risk(con, "t", ["x", "y"], population="pop")
    assert rep["prosecutor_highest_risk"] == 1.0 and rep["journalist_rows"] == 6


def test_bad_input(con):
    _hand(con)
    with pytest.raises(Exception, match='column "nope" is not in table "t"'):
        con.execute("SELECT * FROM sqlanon_prosecutor_risk('t', ['nope'])").fetchall()
    con.execute("CREATE TABLE pop2 AS SELECT y, x FROM pop")
    with pytest.raises(Exception, match="different order"):
        con.execute("SELECT * FROM sqlanon_journalist_risk('t', 'pop2', ['x', 'y'])").fetchall()
    with pytest.raises(SqlanonError, match="threshold"):
        checks.reidentification_risk(con, "t", ["x"], threshold=2)


@settings(max_examples=40)
@given(rows=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a", "b", None])), min_size=1, max_size=40),
       extra=st.lists(st.tuples(st.integers(0, 4), st.sampled_from(["a", "b", None])), max_size=40),
       threshold=st.sampled_from([0.0, 0.2, 0.34, 0.5, 1.0]))
def test_against_python(rows, extra, threshold):
    con = sqlanon.connect()
    try:
        con.execute("CREATE TABLE t (x INTEGER, y VARCHAR)")
        con.executemany("INSERT INTO t VALUES (?, ?)", rows)
        con.execute("CREATE TABLE pop AS SELECT * FROM t")
        if extra:
            con.executemany("INSERT INTO pop VALUES (?, ?)", extra)
        f = Counter(rows)
        big = Counter(rows + extra)
        n = len(rows)
        exp_p = (sum(c for c in f.values() if 1 / c > threshold) / n, max(1 / c for c in f.values()), len(f) / n)
        got = con.execute("SELECT records_at_risk, highest_risk, average_risk FROM sqlanon_prosecutor_risk('t', ['x', 'y'], "
                          "threshold := ?)", [threshold]).fetchall()[0]
        assert got == pytest.approx(exp_p)
        exp_j = (sum(c for q, c in f.items() if 1 / big[q] > threshold) / n, max(1 / big[q] for q in f),
                 sum(c / big[q] for q, c in f.items()) / n)
        got = con.execute("SELECT records_at_risk, highest_risk, marketer_risk FROM sqlanon_journalist_risk('t', 'pop', "
                          "['x', 'y'], threshold := ?)", [threshold]).fetchall()[0]
        assert got == pytest.approx(exp_j)
    finally:
        con.close()


def test_anonymized_adult_risk(con):
    from sqlanon.datasets import load_adult

    load_adult(con, "adult", complete=True)
    qi = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]
    before = checks.reidentification_risk(con, "adult", qi)
    sqlanon.anonymize(con, "adult", qi=qi, k=10, output="a10")
    after = checks.reidentification_risk(con, "a10", qi)
    assert before["prosecutor_highest_risk"] == 1.0
    assert after["prosecutor_highest_risk"] <= 0.1 and after["prosecutor_records_at_risk"] == 0
