"""Generalization primitives vs pure-Python references."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def ref_range(x, w):
    lo = math.floor(x / w) * w
    return f"[{lo}-{lo + w - 1}]"


def ref_prefix(s, keep):
    return s if len(s) <= keep else s[:keep] + "*"


def test_examples(con):
    got = con.execute("SELECT sqlanon_gen_range(23, 10), sqlanon_gen_prefix('47906', 4), sqlanon_suppress(5), "
                      "sqlanon_gen_range(NULL, 10), sqlanon_gen_prefix(NULL, 2)").fetchall()[0]
    assert got == ("[20-29]", "4790*", "*", None, None)


@settings(max_examples=100)
@given(st.integers(-1000, 1000), st.integers(1, 50))
def test_range_matches_reference(con, x, w):
    got = con.execute("SELECT sqlanon_gen_range(?::BIGINT, ?::BIGINT)", [x, w]).fetchall()[0][0]
    assert got == ref_range(x, w)
    lo, hi = (int(v) for v in got[1:-1].rsplit("-", 1)) if not got[1:-1].startswith("-") else (None, None)
    if lo is not None:
        assert lo <= x <= hi


@settings(max_examples=100)
@given(st.text(alphabet="0123456789abc", max_size=8), st.integers(0, 10))
def test_prefix_matches_reference(con, s, keep):
    assert con.execute("SELECT sqlanon_gen_prefix(?, ?)", [s, keep]).fetchall()[0][0] == ref_prefix(s, keep)


def test_bad_args(con):
    with pytest.raises(Exception, match="width"):
        con.execute("SELECT sqlanon_gen_range(5, 0)").fetchall()
    with pytest.raises(Exception, match="keep"):
        con.execute("SELECT sqlanon_gen_prefix('abc', -1)").fetchall()


# --------------------------------------------------------------------------- user hierarchies


def ref_hierarchy_violations(rows):
    """rows: lists of cells (value, level 1, ...). Duplicated values; cells with > 1 parent."""
    out = []
    values = [r[0] for r in rows]
    for v in sorted(set(values)):
        if values.count(v) > 1:
            out.append((0, v, "dup"))
    parents: dict = {}
    for r in rows:
        for i in range(1, len(r) - 1):
            parents.setdefault((i, r[i]), set()).add(r[i + 1])
    out += [(i, c, "parents") for (i, c), p in sorted(parents.items()) if len(p) > 1]
    return sorted(out)


def _hier_table(con, rows, name="h"):
    width = len(rows[0])
    con.execute(f"CREATE OR REPLACE TABLE {name} ({', '.join(f'c{i} VARCHAR' for i in range(width))})")
    con.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * width)})", rows)


@settings(max_examples=60)
@given(st.integers(2, 4).flatmap(lambda w: st.lists(
    st.lists(st.sampled_from("abcde"), min_size=w, max_size=w), min_size=1, max_size=12)), st.data())
def test_hierarchy_matches_reference(con, rows, data):
    _hier_table(con, rows)
    got = con.execute("SELECT level, cell, problem FROM sqlanon_hierarchy_violations('h')").fetchall()
    norm = sorted((lvl, c, "dup" if p.startswith("value listed") else "parents") for lvl, c, p in got)
    assert norm == ref_hierarchy_violations(rows)
    level = data.draw(st.integers(0, len(rows[0]) - 1))
    mapped = con.execute("SELECT value, generalized FROM sqlanon_hierarchy_level('h', ?)", [level]).fetchall()
    assert sorted(mapped) == sorted((r[0], r[level]) for r in rows)


def test_hierarchy_generalizes_a_column(con):
    con.execute("CREATE TABLE h AS SELECT * FROM (VALUES (30, '[30-39]', '*'), (31, '[30-39]', '*'), "
                "(45, '[40-49]', '*')) v(age, decade, top)")
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES (30, 'flu'), (45, 'hiv'), (31, 'flu')) v(age, dx)")
    got = con.execute("SELECT t.* REPLACE (h.generalized AS age) FROM t JOIN sqlanon_hierarchy_level('h', 1) h "
                      "ON t.age::VARCHAR = h.value ORDER BY ALL").fetchall()
    assert got == [("[30-39]", "flu"), ("[30-39]", "flu"), ("[40-49]", "hiv")]
    assert con.execute("FROM sqlanon_hierarchy_violations('h')").fetchall() == []


@pytest.mark.parametrize("level", [-1, 3, 1.5])
def test_hierarchy_bad_level_names_hierarchy(con, level):
    con.execute("CREATE TABLE edu AS SELECT * FROM (VALUES ('Masters', 'Grad', '*')) v(value, l1, l2)")
    with pytest.raises(Exception, match=r'is not a level of hierarchy "edu"; its levels are 0..2'):
        con.execute("FROM sqlanon_hierarchy_level('edu', ?)", [level]).fetchall()
