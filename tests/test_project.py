"""sqlanon.project.Project: the one place that names a project's tables, and
the private schema (issue 19 item 4): published tables in the main schema,
everything with ids, true values or secrets in schema sqlanon_private."""

from __future__ import annotations

import subprocess

import duckdb
import pytest
from click.testing import CliRunner

import sqlanon
from sqlanon.cli import main
from sqlanon.ident import quote
from sqlanon.publisher import status as publisher_status
from sqlanon.project import PRIVATE, PRIVATE_SCHEMA, PUBLIC, Project, migrate, private_tables
from table_state import tables_md5


def test_names_are_the_contract():
    p = Project("ward")
    assert [p.table(k) for k in PUBLIC] == ["sqlanon_ward_qit", "sqlanon_ward_st", "sqlanon_ward_published"]
    assert p.table("mem") == "sqlanon_private.ward_membership"
    assert p.ref("mem") == '"sqlanon_private"."ward_membership"'
    assert p.table("ledger") == "sqlanon_private.ward__ledger" and p.table("vals") == "sqlanon_private.ward__values"
    # the models' state tables come from their declarations (Model.tables)
    assert set(p.tables()) == set(PUBLIC) | set(private_tables()) > set(PUBLIC) | set(PRIVATE)
    assert p.table("entries") == "sqlanon_private.ward__entries" and p.table("rows") == "sqlanon_private.ward__rows"
    assert p.temp("pool") == "sqlanon__ward_pool"
    # no private name matches a sqlanon_<P>_% pattern
    assert not [k for k in private_tables() if p.place(k)[1].startswith("sqlanon_")]
    with pytest.raises(KeyError):
        p.table("nope")


@pytest.mark.parametrize("bad", ["", "1x", "a-b", "a b", 'x"y', None])
def test_bad_project_name(bad):
    with pytest.raises(sqlanon.SqlanonError, match="project name"):
        Project(bad)


def test_exists_is_case_insensitive_and_ignores_temporaries():
    con = duckdb.connect()
    p = Project("Ward")
    assert not p.exists(con, "qit")
    con.execute("CREATE TEMP TABLE sqlanon_ward_qit (x INTEGER)")
    assert not p.exists(con, "qit")
    con.execute("CREATE TABLE SQLANON_WARD_ST (x INTEGER)")
    con.execute("CREATE SCHEMA sqlanon_private")
    con.execute("CREATE VIEW sqlanon_private.WARD_membership AS SELECT 1 AS x")
    con.execute("CREATE TABLE ward__ledger (x INTEGER)")  # main schema: not the private table
    assert p.exists(con, "st") and p.exists(con, "mem") and not p.exists(con, "ledger")
    assert p.locate(con, "st") == ("memory", "main", "SQLANON_WARD_ST")
    assert p.locate(con, "mem") is None  # a view is no table to write to


def _release_two(con, project="demo"):
    con.execute("CREATE OR REPLACE TABLE src AS SELECT range AS id, range % 7 AS age, 'd' || (range % 4) AS disease "
                "FROM range(40)")
    pub = sqlanon.Publisher(con, project, source="src", id="id", qi=["age"], sa="disease", m=3, seed=1)
    pub.release()
    con.execute("DELETE FROM src WHERE id < 4")
    con.execute("UPDATE src SET disease = 'd0' WHERE id = 9")
    pub.release()
    return pub


def test_publisher_writes_public_tables_in_main_and_the_rest_in_the_private_schema():
    con = sqlanon.connect()
    _release_two(con)
    made = {(s, t) for s, t in con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE table_name ILIKE '%demo%'").fetchall()}
    p = Project("demo")
    assert made <= {p.place(k) if p.place(k)[0] else ("main", p.place(k)[1]) for k in p.tables()}
    assert {("main", "sqlanon_demo_qit"), ("main", "sqlanon_demo_st"), (PRIVATE_SCHEMA, "demo_membership"),
            (PRIVATE_SCHEMA, "demo__ledger"), (PRIVATE_SCHEMA, "demo__chains"), (PRIVATE_SCHEMA, "demo__persons"),
            (PRIVATE_SCHEMA, "demo__secret")} <= made
    # what a user's export loop finds by pattern, in any schema: the published tables only
    found = {t for (t,) in con.execute("SELECT table_name FROM information_schema.tables "
                                       "WHERE table_name LIKE 'sqlanon_demo_%'").fetchall()}
    assert found == {"sqlanon_demo_qit", "sqlanon_demo_st"}
    assert {t for (t,) in con.execute("SHOW TABLES").fetchall() if "demo" in t} == found
    # no published table holds an id column or the membership's counterfeit flag
    cols = {c for (c,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE schema_name = 'main' "
                                      "AND table_name LIKE 'sqlanon_demo_%'").fetchall()}
    assert not cols & {"id", "sqlanon__id", "is_counterfeit"}
    assert con.execute("SELECT count(*) FROM sqlanon_membership('demo', 2)").fetchall()[0][0] > 0


# ------------------------------------------------------- files of older versions
def _make_legacy(con, project):
    """Put the private tables where sqlanon before the private schema kept them:
    ``main.sqlanon_<P>_membership``, ``main.sqlanon_<P>__<x>`` (the names of the
    earlier docs/contracts.md), and drop the schema (with the database's record
    of shared persons, which such files did not have either)."""
    p = Project(project)
    for key in private_tables():
        if p.locate(con, key):
            con.execute(f"CREATE TABLE main.{quote(p.legacy_name(key))} AS SELECT * FROM {p.ref(key)}")
            con.execute(f"DROP TABLE {p.ref(key)}")
    con.execute(f"DROP SCHEMA {PRIVATE_SCHEMA} CASCADE")


def _without_timing(con):
    state = {k[1:]: v for k, v in tables_md5(con).items() if k[1:] != Project("demo").place("ledger")}
    return state, con.execute(f"SELECT * EXCLUDE (made_at, seconds, fingerprint) FROM {Project('demo').ref('ledger')} "
                              "ORDER BY release").fetchall()


def test_an_older_file_is_refused_until_migrated_and_then_continues_identically(tmp_path):
    control = sqlanon.connect()
    _release_two(control)
    db = tmp_path / "old.duckdb"
    con = sqlanon.connect(db)
    _release_two(con)
    _make_legacy(con, "demo")
    before = tables_md5(con)
    assert ("memory", "main", "sqlanon_demo_membership") not in before  # file-backed catalog is named 'old'
    # every entry point refuses with the fix, and writes nothing
    for attempt in (lambda: sqlanon.Publisher(con, "demo", source="src", id="id", qi=["age"], sa="disease",
                                              m=3, seed=1).release(),
                    lambda: sqlanon.Publisher.open(con, "demo"),
                    lambda: publisher_status(con, "demo"),
                    lambda: sqlanon.audit(con, "demo", 3)):
        with pytest.raises(sqlanon.SqlanonError, match="sqlanon migrate demo --db FILE"):
            attempt()
        assert tables_md5(con) == before
    con.close()
    run = CliRunner().invoke
    for args in (["status", str(db), "demo"], ["audit", str(db), "demo"], ["release", str(db), "demo"]):
        r = run(main, args)
        assert r.exit_code == 2 and "sqlanon migrate demo" in r.output, (args, r.output)
    r = run(main, ["migrate", "demo", "--db", str(db)])
    assert r.exit_code == 0 and "moved 11 private tables" in r.output, r.output
    r = run(main, ["migrate", "demo", "--db", str(db)])
    assert r.exit_code == 0 and "nothing to migrate" in r.output
    # migrated: the same rows as a project that never was in the old layout, and
    # the next release makes the same tables (md5 of every table, both ways)
    con = sqlanon.connect(db)
    for c in (con, control):
        c.execute("DELETE FROM src WHERE id BETWEEN 10 AND 12")
        sqlanon.Publisher.open(c, "demo").release()
    a, b = _without_timing(con), _without_timing(control)
    assert a[1] == b[1]
    # the secret (and so the fingerprint) differs between two projects by design,
    # and so do the database's keyed digests of the persons (issue 33; the old
    # file's project records all its persons at its next release)
    skip = {(PRIVATE_SCHEMA, "demo__secret"), (PRIVATE_SCHEMA, "_persons"), (PRIVATE_SCHEMA, "_persons_key")}
    assert {k: v for k, v in a[0].items() if k not in skip} == {k: v for k, v in b[0].items() if k not in skip}
    assert len(a[0]) == 15 and a[0][PRIVATE_SCHEMA, "_persons"][0] == b[0][PRIVATE_SCHEMA, "_persons"][0]
    con.close()


def test_migrate_refuses_when_both_places_hold_a_table():
    con = sqlanon.connect()
    _release_two(con)
    con.execute("CREATE TABLE main.sqlanon_demo__ledger AS SELECT * FROM sqlanon_private.demo__ledger")
    before = tables_md5(con)
    with pytest.raises(sqlanon.SqlanonError, match="both sqlanon_demo__ledger .main schema. and "
                                                   "sqlanon_private.demo__ledger exist"):
        migrate(con, "demo")
    assert tables_md5(con) == before


def test_migrated_file_opens_in_the_duckdb_shell(tmp_path, duckdb_shell):
    db = tmp_path / "old.duckdb"
    con = sqlanon.connect(db)
    _release_two(con)
    _make_legacy(con, "demo")
    con.close()
    assert CliRunner().invoke(main, ["migrate", "demo", "--db", str(db)]).exit_code == 0
    out = subprocess.run([duckdb_shell, "-bail", "-csv", "-readonly", str(db)], capture_output=True, text=True,
                         timeout=120, input="SHOW TABLES;\nSELECT count(*) FROM sqlanon_membership('demo', 2);\n")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split()
    assert "sqlanon_demo_qit" in lines and not [x for x in lines if "membership" in x or "ledger" in x]
