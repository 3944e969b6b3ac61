"""Files sqlanon writes open in the real DuckDB shell (pip package duckdb-cli,
1.5.x, older than the Python package): docs/shell.md."""

from __future__ import annotations

import csv
import io
import subprocess

import duckdb
import pytest
from click.testing import CliRunner

import sqlanon
from sqlanon.cli import main
from sqlanon.install import SHELL_STORAGE_VERSION, file_storage_version


def _shell(shell, db, sql, *, read_only=True):
    args = [shell, "-bail", "-csv", *(["-readonly"] if read_only else []), str(db)]
    return subprocess.run(args, input=sql, capture_output=True, text=True, timeout=120)


def _rows(out):
    assert out.returncode == 0, out.stderr
    return list(csv.reader(io.StringIO(out.stdout)))


def _two_releases(db):
    """Project ward, m = 4, two releases (deletes and updates between), written by sqlanon.connect."""
    con = sqlanon.connect(db)
    con.execute("CREATE TABLE patients AS SELECT range AS id, 20 + range % 50 AS age, "
                "['flu','hiv','cold','gastritis','dyspepsia'][range % 5 + 1] AS disease FROM range(1000)")
    pub = sqlanon.Publisher(con, "ward", source="patients", id="id", qi=["age"], sa="disease", m=4, seed=7)
    pub.release()
    con.execute("DELETE FROM patients WHERE id % 10 = 0")
    con.execute("UPDATE patients SET disease = 'flu' WHERE id % 17 = 1")
    pub.release()
    expect = {r: con.execute(f"SELECT count(*), sum(count) FROM sqlanon_ward_st WHERE release = {r}").fetchall()[0]
              for r in (1, 2)}
    qit2 = con.execute("SELECT count(*) FROM sqlanon_published_qit('ward', 2)").fetchall()[0][0]
    con.close()
    return expect, qit2


def test_the_shell_reads_a_file_after_two_releases(tmp_path, duckdb_shell):
    db = tmp_path / "my.duckdb"
    expect, qit2 = _two_releases(db)
    version = subprocess.run([duckdb_shell, "-version"], capture_output=True, text=True).stdout
    assert version.startswith("v1.5"), version  # the shell really is older than the Python package
    rows = _rows(_shell(duckdb_shell, db, """
        SELECT release, count(*), sum(count) FROM sqlanon_ward_st GROUP BY ALL ORDER BY release;
        SELECT count(*) FROM sqlanon_ward_qit WHERE release = 2;
    """))
    assert rows[1:3] == [[str(r), str(n), str(s)] for r, (n, s) in sorted(expect.items())]
    assert rows[4] == [str(qit2)]


def test_macros_stored_in_the_file_work_in_the_shell(tmp_path, duckdb_shell):
    """sqlanon.connect stores the macros in the file; the shell runs them with no `.read`."""
    db = tmp_path / "my.duckdb"
    _, qit2 = _two_releases(db)
    rows = _rows(_shell(duckdb_shell, db, """
        SELECT count(*) FROM sqlanon_published_qit('ward', 2);
        SELECT count(*) FROM sqlanon_signature_violations('ward', 4);
        SELECT count(*) FROM sqlanon_intersection_attack('ward', 4);
        SELECT k >= 1 FROM sqlanon_profile('patients', ['age'], 'disease');
    """))
    assert [r for r in rows if r and r[0] != "count_star()" and not r[0].startswith("(k")] == \
        [[str(qit2)], ["0"], ["0"], ["true"]]


def test_new_files_have_the_shell_storage_version(tmp_path):
    con = sqlanon.connect(tmp_path / "a.duckdb")
    assert file_storage_version(con).startswith(SHELL_STORAGE_VERSION)
    con.close()
    # an existing file keeps its version when sqlanon opens it
    con = sqlanon.connect(tmp_path / "a.duckdb")
    assert file_storage_version(con).startswith(SHELL_STORAGE_VERSION)
    con.close()
    con = sqlanon.connect(tmp_path / "b.duckdb", storage_version=None)  # DuckDB's own default
    assert file_storage_version(con).startswith("v2")
    con.close()


def test_an_existing_duckdb_2_file_stays_unreadable_and_can_be_copied(tmp_path, duckdb_shell):
    """What docs/shell.md says about a file an unconfigured DuckDB 2.0 created:
    opening it with sqlanon does not convert it; COPY FROM DATABASE into a file
    attached with STORAGE_VERSION does."""
    old = tmp_path / "old.duckdb"
    con = duckdb.connect(str(old))
    con.execute("CREATE TABLE t AS SELECT range AS id FROM range(5)")
    con.close()
    sqlanon.connect(old).close()
    out = _shell(duckdb_shell, old, "SELECT count(*) FROM t;")
    assert out.returncode != 0 and "version number" in out.stderr + out.stdout, out.stderr
    con = duckdb.connect()
    con.execute("ATTACH ? AS old (READ_ONLY)", [str(old)])
    con.execute(f"ATTACH ? AS new (STORAGE_VERSION '{SHELL_STORAGE_VERSION}')", [str(tmp_path / "new.duckdb")])
    con.execute("COPY FROM DATABASE old TO new")
    con.close()
    assert _rows(_shell(duckdb_shell, tmp_path / "new.duckdb", "SELECT count(*) FROM t;"))[1] == ["5"]


def test_read_only_connection(tmp_path):
    db = tmp_path / "my.duckdb"
    _two_releases(db)
    before = db.read_bytes()
    con = sqlanon.connect(db, read_only=True)
    try:
        where = dict(con.execute("SELECT database_name, count(*) FROM duckdb_functions() "
                                 "WHERE function_name = 'sqlanon_published_qit' GROUP BY 1").fetchall())
        assert where.get("temp") == 1  # installed as a temporary macro
        assert con.execute("SELECT count(*) > 0 FROM sqlanon_published_st('ward', 2)").fetchall() == [(True,)]
        assert sqlanon.audit(con, "ward", 4).verdict == "safe"
        with pytest.raises(duckdb.Error, match="read-only"):
            con.execute("CREATE TABLE x (a INT)")
    finally:
        con.close()
    assert db.read_bytes() == before


def test_read_only_connection_to_a_file_without_macros(tmp_path):
    db = tmp_path / "plain.duckdb"
    con = duckdb.connect(str(db), config={"storage_compatibility_version": SHELL_STORAGE_VERSION})
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a'), (1, 'b')) v(q, s)")
    con.close()
    con = sqlanon.connect(db, read_only=True)
    assert con.execute("SELECT k, distinct_l FROM sqlanon_profile('t', ['q'], 's')").fetchall() == [(2, 2)]
    con.close()


def test_data_adult_file_in_the_shell(tmp_path, duckdb_shell):
    db = tmp_path / "my.duckdb"
    r = CliRunner().invoke(main, ["data", "adult", "--to", str(db)])
    assert r.exit_code == 0, r.output
    rows = _rows(_shell(duckdb_shell, db, "SELECT count(*), max(id) FROM adult;"
                        "SELECT max_m FROM sqlanon_m_eligibility('adult', 'relationship', 2);"))
    assert rows[1] == ["32561", "32561"] and rows[3][0].isdigit()
