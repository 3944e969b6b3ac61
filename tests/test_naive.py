"""The Anatomy grouping macro and the naive publisher (independent l-diverse
releases), and the acceptance check: the audit finds disclosures in naive
releases of Adult."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sqlanon
import sqlanon.naive as naive
from sqlanon import SqlanonError
from sqlanon.datasets import load_adult


def ref_group_count(counts: list[int], l: int) -> int:
    """Largest G with sum(min(c, G)) >= l * G (brute force)."""
    return max((g for g in range(0, sum(counts) + 1) if sum(min(c, g) for c in counts) >= l * g), default=0)


@settings(max_examples=80)
@given(sas=st.lists(st.sampled_from("abcdefg"), min_size=0, max_size=60), l=st.integers(2, 5), seed=st.integers(0, 9))
def test_anatomy_groups_are_l_diverse_and_maximal(con, sas, l, seed):
    con.execute("CREATE OR REPLACE TABLE src(id INTEGER, sa VARCHAR)")
    if sas:
        con.executemany("INSERT INTO src VALUES (?, ?)", [[i, s] for i, s in enumerate(sas)])
    rows = con.execute("SELECT * FROM sqlanon_anatomy_groups('src', 'id', 'sa', ?, seed := ?)", [l, seed]).fetchall()
    g_expected = ref_group_count(list(Counter(sas).values()), l)
    groups: dict[int, list[str]] = {}
    for i, g in rows:
        groups.setdefault(g, []).append(sas[i])
    assert sorted(groups) == list(range(1, g_expected + 1))
    for members in groups.values():
        assert len(members) >= l
        assert len(set(members)) == len(members)  # distinct SA values in every group
    kept = Counter(sas[i] for i, _ in rows)
    assert kept == Counter({s: min(c, g_expected) for s, c in Counter(sas).items() if g_expected})
    again = con.execute("SELECT * FROM sqlanon_anatomy_groups('src', 'id', 'sa', ?, seed := ?)", [l, seed]).fetchall()
    assert again == rows


_RUNS = iter(range(10**9))


@settings(max_examples=60, deadline=None)
@given(sas=st.lists(st.sampled_from("abcdefghij"), min_size=0, max_size=80), l=st.integers(2, 5),
       seed=st.integers(0, 9))
def test_publisher_grouping_is_the_macros_row_for_row(con, sas, l, seed):
    """The static Anatomy release (sql/anatomy/04_groups.sql.j2: G in closed
    form, ranks from one sort key) puts every person in the group the macro
    sqlanon_anatomy_groups does, and keeps the same persons."""
    con.execute("CREATE OR REPLACE TABLE src(id INTEGER, q INTEGER, sa VARCHAR)")
    if sas:
        con.executemany("INSERT INTO src VALUES (?, ?, ?)", [[i, i % 3, s] for i, s in enumerate(sas)])
    expected = con.execute("SELECT id, group_id FROM sqlanon_anatomy_groups('src', 'id', 'sa', ?, seed := ?) "
                           "ORDER BY id", [l, seed]).fetchall()
    project = f"g{next(_RUNS)}"
    try:
        sqlanon.Publisher(con, project, source="src", id="id", qi=["q"], sa="sa", model="anatomy", l=l,
                          seed=seed).release()
    except SqlanonError as exc:  # fewer than l distinct values: refused before any grouping
        assert len(set(sas)) < l, exc
        return
    got = con.execute("SELECT id, group_id FROM sqlanon_membership(?, 1) ORDER BY id", [project]).fetchall()
    assert got == expected
    assert len({g for _, g in got}) == ref_group_count(list(Counter(sas).values()), l)


def test_anatomy_groups_rejects_l_below_2(con):
    con.execute("CREATE TABLE src AS SELECT range AS id, range % 3 AS sa FROM range(9)")
    with pytest.raises(Exception, match="l must be an integer >= 2"):
        con.execute("SELECT * FROM sqlanon_anatomy_groups('src', 'id', 'sa', 1)").fetchall()


def test_publish_writes_the_release_contract(con):
    con.execute("CREATE TABLE src AS SELECT range AS id, 20 + range % 7 AS age, 'd' || (range % 5) AS disease FROM range(50)")
    assert naive.publish(con, "nv", "src", qi=["age"], sa="disease", l=3) == 1
    assert naive.publish(con, "nv", "src", qi=["age"], sa="disease", l=3) == 2
    with pytest.raises(SqlanonError, match="seed"):  # a project's releases share its seed (Publisher ledger)
        naive.publish(con, "nv", "src", qi=["age"], sa="disease", l=3, seed=1)
    qit = con.execute("DESCRIBE sqlanon_nv_qit").fetchall()
    assert [(c[0], c[1]) for c in qit] == [("release", "INTEGER"), ("group_id", "BIGINT"), ("age", "BIGINT")]
    assert [c[0] for c in con.execute("DESCRIBE sqlanon_nv_st").fetchall()] == ["release", "group_id", "disease", "count"]
    assert [c[0] for c in con.execute("DESCRIBE sqlanon_private.nv_membership").fetchall()] == [
        "id", "group_id", "is_counterfeit", "disease", "first_release", "last_release"]
    # st agrees with the QI table and the membership; every group is 3-diverse
    check = con.execute("""
        SELECT q.release, q.group_id, q.n, s.n, s.d
        FROM (SELECT release, group_id, count(*) n FROM sqlanon_nv_qit GROUP BY ALL) q
        JOIN (SELECT release, group_id, sum(count) n, count(*) d FROM sqlanon_nv_st GROUP BY ALL) s USING (release, group_id)
    """).fetchall()
    assert check and all(qn == sn == d and d >= 3 for _, _, qn, sn, d in check)
    assert con.execute("SELECT count(DISTINCT (release, group_id)) FROM sqlanon__membership_rows('nv')").fetchall()[0][0] == len(check)
    # the contract's reading macros work on it
    assert len(con.execute("SELECT * FROM sqlanon_published_qit('nv', 2)").fetchall()) == 50


def test_publish_bad_input_leaves_database_unchanged(con):
    con.execute("CREATE TABLE src AS SELECT range AS id, range % 7 AS age, 'd' || (range % 5) AS disease FROM range(20)")
    naive.publish(con, "nv", "src", qi=["age"], sa="disease", l=2)
    before = con.execute("SELECT count(*) FROM sqlanon_private.nv_membership").fetchall()
    with pytest.raises(SqlanonError, match="already has release 1"):
        naive.publish(con, "nv", "src", qi=["age"], sa="disease", l=2, release=1)
    with pytest.raises(SqlanonError, match="QI column 'agee'"):
        naive.publish(con, "nv", "src", qi=["agee"], sa="disease", l=2)
    with pytest.raises(SqlanonError, match="l must be an integer >= 2"):
        naive.publish(con, "nv", "src", qi=["age"], sa="disease", l=1)
    assert con.execute("SELECT count(*) FROM sqlanon_private.nv_membership").fetchall() == before


def test_snapshot_history_has_every_change_class(con):
    load_adult(con, "adult", part="test")
    sizes = naive.history(con, "nv", "adult", 3, qi=["age", "sex"], sa="occupation", l=3, seed=4)
    assert len(sizes) == 3 and all(s > 10_000 for s in sizes)
    classes = {c for (c,) in con.execute("SELECT DISTINCT class FROM sqlanon_release_diff('nv', 2, 3)").fetchall()}
    assert classes == {"survivor", "updated", "deleted", "new", "reinserted"}


ADULT_QI = ["age", "sex", "race", "education", "marital_status", "native_country"]


def test_audit_finds_disclosures_in_naive_adult_releases(adult_con):
    """Acceptance: Adult, naive publisher, 5 dynamic releases -> disclosures."""
    naive.history(adult_con, "nv", "adult", 5, qi=ADULT_QI, sa="occupation", l=4, seed=1)
    report = sqlanon.audit(adult_con, "nv", 4)
    assert report.verdict == "unsafe"
    assert report.n_disclosures > 1000
    counts = report.counts
    assert counts["intersection"] > 0 and counts["collusion"] > 0 and counts["signature"] > 0
    # every single-candidate row of the intersection attack is a disclosure
    n_single = adult_con.execute("SELECT count(*) FROM sqlanon_intersection_attack('nv', 4) WHERE n_candidates = 1").fetchall()[0][0]
    # the other checks' findings count theirs (comparison attacks; linking by QI and absence,
    # which the audit runs because the naive publisher is the Publisher's static Anatomy)
    assert not report.skipped
    other = report.findings[report.findings["check"] != "intersection"]
    assert n_single + int(other["n_disclosed"].sum()) == report.n_disclosures
