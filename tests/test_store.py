"""Issue 34 point 1: the private membership stored as intervals of releases
(sql/_lib/store.sql.j2, docs/contracts.md), and `sqlanon migrate` from the
per-release shape an older sqlanon (or another tool) wrote.

The independent check is the per-release shape itself: a table of one row set
per release, written here by hand or kept by the test, against what the macros
read back from the intervals."""

from __future__ import annotations

from collections import Counter

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import sqlanon
from sqlanon.cli import main
from sqlanon.project import Project, migrate

MACROS = ("sqlanon_published_qit", "sqlanon_published_st", "sqlanon_membership")


def _releases(con, project="demo", model="m-invariance"):
    """Four releases with deletes, updates, flip-backs and re-inserts."""
    con.execute("CREATE OR REPLACE TABLE src AS SELECT range AS id, 20 + range % 30 AS age, "
                "['flu','hiv','cold','ulcer','angina'][range % 5 + 1] AS disease FROM range(200)")
    kw = dict(l=3) if model in ("anatomy", "dynamic-anatomy") else dict(m=3)
    pub = sqlanon.Publisher(con, project, source="src", id="id", qi=["age"], sa="disease", model=model, seed=1, **kw)
    pub.release()
    con.execute("DELETE FROM src WHERE id % 9 = 0; UPDATE src SET disease = 'flu' WHERE id % 13 = 1")
    pub.release()
    con.execute("INSERT INTO src SELECT range, 20 + range % 30, 'cold' FROM range(0, 200, 18); "
                "UPDATE src SET disease = ['flu','hiv','cold','ulcer','angina'][id % 5 + 1] WHERE id % 13 = 1")
    pub.release()
    con.execute("DELETE FROM src WHERE id % 7 = 0")
    pub.release()
    return pub


def _read(con, project="demo", releases=range(1, 6)):
    return {(m, r): con.execute(f"SELECT * FROM {m}(?, ?)", [project, r]).fetchall() for m in MACROS for r in releases}


def _to_per_release(con, project="demo"):
    """Rewrite the membership in the per-release shape (release, id, group_id,
    is_counterfeit, <sa>) from the rows the macro reads back."""
    p = Project(project)
    con.execute(f"CREATE TABLE sqlanon_private.old_m AS SELECT * FROM sqlanon__membership_rows('{project}')")
    con.execute(f"DROP TABLE {p.ref('mem')}")
    con.execute(f"ALTER TABLE sqlanon_private.old_m RENAME TO {p.place('mem')[1]}")


def test_a_release_writes_only_the_rows_that_change():
    con = sqlanon.connect()
    con.execute("CREATE TABLE src AS SELECT range AS id, 20 + range % 30 AS age, "
                "['flu','hiv','cold','ulcer','angina'][range % 5 + 1] AS disease FROM range(300)")
    pub = sqlanon.Publisher(con, "demo", source="src", id="id", qi=["age"], sa="disease", m=3, seed=1)
    pub.release()
    first = con.execute("SELECT count(*) FROM sqlanon_private.demo_membership").fetchone()[0]
    assert first == 300 + 1  # the rows and release 1's marker
    con.execute("DELETE FROM src WHERE id < 3")
    r2 = pub.release()
    rows = con.execute("SELECT first_release, last_release, count(*) FROM sqlanon_private.demo_membership "
                       "WHERE group_id IS NOT NULL GROUP BY ALL ORDER BY ALL").fetchall()
    ended = sum(n for f, last, n in rows if last == 1)
    started = sum(n for f, last, n in rows if f == 2)
    # the survivors keep their row; what ended and started is the change only
    assert ended >= 3 and started == r2.published - (300 - ended)
    assert ended + started < 30
    # one marker per release
    assert con.execute("SELECT list(first_release ORDER BY first_release) FROM sqlanon_private.demo_membership "
                       "WHERE group_id IS NULL").fetchone()[0] == [1, 2]
    assert len(con.execute("SELECT * FROM sqlanon_membership('demo', 2)").fetchall()) == r2.published
    assert con.execute("SELECT * FROM sqlanon_membership('demo', 3)").fetchall() == []


def test_each_model_reads_back_the_per_release_rows():
    """Every model's membership, read per release from the intervals, equals a
    per-release copy kept alongside (written after each release from the rows of
    the release's open intervals, independently of the macros)."""
    for model in ("m-invariance", "sliced-bucket", "dynamic-anatomy", "anatomy", "unprotected"):
        con = sqlanon.connect()
        con.execute("CREATE TABLE src AS SELECT range AS id, 20 + range % 30 AS age, "
                    "['flu','hiv','cold','ulcer','angina'][range % 5 + 1] AS disease FROM range(200)")
        kw = dict(l=3) if model in ("anatomy", "dynamic-anatomy") else dict(m=3)
        pub = sqlanon.Publisher(con, "demo", source="src", id="id", qi=["age"], sa="disease", model=model, seed=1, **kw)
        kept = {}
        edits = ["DELETE FROM src WHERE id % 9 = 0; UPDATE src SET disease = 'flu' WHERE id % 13 = 1",
                 "INSERT INTO src SELECT range, 20 + range % 30, 'cold' FROM range(0, 200, 18)",
                 "DELETE FROM src WHERE id % 7 = 0", ""]
        for r, edit in enumerate(edits, 1):
            res = pub.release()
            kept[r] = Counter(con.execute("SELECT id, group_id, is_counterfeit, disease FROM "
                                          "sqlanon_private.demo_membership WHERE last_release IS NULL").fetchall())
            assert sum(kept[r].values()) >= res.published - res.suppressed
            if edit:
                con.execute(edit)
        for r, rows in kept.items():
            got = Counter(con.execute("SELECT * FROM sqlanon_membership('demo', ?)", [r]).fetchall())
            assert got == rows, (model, r)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from([None, 1, 2, 3]), st.integers(1, 3), st.booleans(),
                                   st.sampled_from(["a", "b", "c"])), max_size=8), min_size=1, max_size=5))
def test_migration_reads_back_every_release(history):
    """Random per-release multisets (repeated rows, NULL ids, releases with no
    rows) in the per-release shape: after the migration every release reads
    back as the same multiset, and releasing nothing changes none of it."""
    con = sqlanon.connect()
    con.execute("CREATE SCHEMA sqlanon_private")
    con.execute("CREATE TABLE sqlanon_private.h_membership (release INTEGER, id BIGINT, group_id BIGINT, "
                "is_counterfeit BOOLEAN, sa VARCHAR)")
    for r, rows in enumerate(history, 1):
        if rows:
            con.executemany("INSERT INTO sqlanon_private.h_membership VALUES (?, ?, ?, ?, ?)", [(r, *x) for x in rows])
    con.execute("CREATE TABLE sqlanon_private.h__ledger AS SELECT range::INTEGER AS release FROM range(1, ?)",
                [len(history) + 1])
    before = {r: Counter(con.execute("SELECT * FROM sqlanon_membership('h', ?)", [r]).fetchall())
              for r in range(1, len(history) + 2)}
    assert {r: Counter(rows) for r, rows in enumerate(history, 1)} == {r: before[r] for r in range(1, len(history) + 1)}
    assert migrate(con, "h") == ["sqlanon_private.h_membership (intervals)"]
    after = {r: Counter(con.execute("SELECT * FROM sqlanon_membership('h', ?)", [r]).fetchall())
             for r in range(1, len(history) + 2)}
    assert after == before
    # canonical: one row per run of a row value's k-th copy
    runs = 0
    for key in {x for rows in history for x in rows}:
        for k in range(1, 9):
            present = [Counter(rows)[key] >= k for rows in history]
            runs += sum(1 for i, p in enumerate(present) if p and (i == 0 or not present[i - 1]))
    assert con.execute("SELECT count(*) FROM sqlanon_private.h_membership WHERE group_id IS NOT NULL"
                       ).fetchone()[0] == runs
    assert con.execute("SELECT count(*) FROM sqlanon_private.h_membership WHERE group_id IS NULL"
                       ).fetchone()[0] == len(history)


def test_a_per_release_project_is_refused_then_migrated_and_continues_identically(tmp_path):
    control = sqlanon.connect()
    _releases(control)
    db = tmp_path / "old.duckdb"
    con = sqlanon.connect(db)
    _releases(con)
    expected = _read(con)
    _to_per_release(con)
    assert _read(con) == expected  # the macros read the per-release shape too
    # an audit reads either shape
    a, b = sqlanon.audit(con, "demo", 3), sqlanon.audit(control, "demo", 3)
    assert (a.releases, a.counts, a.kinds, a.n_disclosures) == (b.releases, b.counts, b.kinds, b.n_disclosures)
    try:
        sqlanon.Publisher.open(con, "demo").release()
        raise AssertionError("released on the per-release shape")
    except sqlanon.SqlanonError as exc:
        assert "sqlanon migrate demo --db FILE" in str(exc) and "nothing was changed" in str(exc)
    con.close()
    r = CliRunner().invoke(main, ["migrate", "demo", "--db", str(db)])
    assert r.exit_code == 0 and "intervals" in r.output, r.output
    r = CliRunner().invoke(main, ["migrate", "demo", "--db", str(db)])
    assert r.exit_code == 0 and "nothing to migrate" in r.output, r.output
    con = sqlanon.connect(db)
    assert _read(con) == expected
    # the stored intervals are those the releases wrote (canonical either way here:
    # m-invariance repeats no row value)
    q = "SELECT * FROM sqlanon_private.demo_membership ORDER BY ALL"
    assert con.execute(q).fetchall() == control.execute(q).fetchall()
    for c in (con, control):
        c.execute("UPDATE src SET disease = 'hiv' WHERE id % 11 = 2")
        sqlanon.Publisher.open(c, "demo").release()
    assert _read(con, releases=range(1, 7)) == _read(control, releases=range(1, 7))
    assert con.execute(q).fetchall() == control.execute(q).fetchall()
    con.close()
