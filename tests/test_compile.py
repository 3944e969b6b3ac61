"""`sqlanon compile` (issue 17 item 1): the next release as a SQL script that
the real DuckDB shell runs (`duckdb my.duckdb < release.sql`) to the same
tables as `sqlanon run`, md5 for md5, release after release."""

from __future__ import annotations

import shutil
import subprocess

import duckdb
import pytest
from click.testing import CliRunner

import sqlanon
from sqlanon.cli import main
from sqlanon.project import Project
from table_state import tables_md5

TOML = """\
project = "ward"
database = "{db}"
source = "patients"
id = "id"
qi = ["age", "sex"]
sa = "disease"
model = "{model}"
output = "{output}"

[parameters]
{param}
seed = 7
"""
CHANGES = [None,
           "DELETE FROM patients WHERE id % 10 = 0; UPDATE patients SET disease = 'flu' WHERE id % 17 = 1",
           "INSERT INTO patients SELECT range, 20 + range % 50, ['x','y'][range % 2 + 1], "
           "['flu','hiv','cold','ulcer','angina'][range % 5 + 1] FROM range(600, 660); "
           "UPDATE patients SET age = age + 1 WHERE id % 13 = 0"]


def _setup(tmp_path, model="m-invariance", output="anatomy", param="m = 4"):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        con = sqlanon.connect(tmp_path / name / "my.duckdb")  # a file the 1.5 shell opens
        con.execute("CREATE TABLE patients AS SELECT range AS id, 20 + range % 50 AS age, "
                    "['x','y','z'][range % 3 + 1] AS sex, "
                    "['flu','hiv','cold','ulcer','angina'][range % 5 + 1] AS disease FROM range(600)")
        con.close()
        (tmp_path / name / "sqlanon.toml").write_text(TOML.format(db="my.duckdb", model=model, output=output,
                                                                  param=param))


def _change(db, sql):
    con = duckdb.connect(str(db))
    con.execute(sql)
    con.close()


def _state(db):
    """md5 of every table; the ledger without timing, and without the secret
    and the fingerprint it keys (each project draws its own secret), the shared
    persons' digests without the digest and instance (keyed by the database's
    key and the project's secret)."""
    con = duckdb.connect(str(db), read_only=True)
    out = {}
    for schema, name in con.execute("SELECT schema_name, table_name FROM duckdb_tables() ORDER BY ALL").fetchall():
        cols = [c for (c, *_) in con.execute(f'DESCRIBE "{schema}"."{name}"').fetchall()
                if c not in ("made_at", "seconds", "fingerprint", "key", "instance", "digest")]
        if cols:
            sel = ", ".join(f'"{c}"' for c in cols)
            out[(schema, name)] = con.execute(
                f"SELECT count(*), md5(coalesce(string_agg(x::VARCHAR, '|' ORDER BY x::VARCHAR), '')) FROM "
                f'(SELECT {sel} FROM "{schema}"."{name}") x').fetchall()[0]
    con.close()
    return out


def _tables(db):
    con = duckdb.connect(str(db))
    try:
        return tables_md5(con)
    finally:
        con.close()


def _shell(shell, db, script):
    with open(script) as f:
        return subprocess.run([shell, str(db)], stdin=f, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("model,output,param", [("m-invariance", "anatomy", "m = 4"),
                                                ("m-invariance", "generalized", "m = 3"),
                                                ("dynamic-anatomy", "anatomy", "l = 3")])
def test_compiled_releases_in_the_shell_equal_sqlanon_run(tmp_path, monkeypatch, duckdb_shell, model, output, param):
    _setup(tmp_path, model, output, param)
    run = CliRunner().invoke
    a, b = tmp_path / "a" / "my.duckdb", tmp_path / "b" / "my.duckdb"
    releases = 3 if model == "m-invariance" else 2
    for r, change in enumerate(CHANGES[:releases], 1):
        if change:
            _change(a, change)
            _change(b, change)
        monkeypatch.chdir(tmp_path / "a")
        before = _tables(a) if r > 1 else None
        res = run(main, ["compile", "--out", "release.sql"])
        assert res.exit_code == 0, res.output
        if before is not None:  # compiling wrote nothing
            assert _tables(a) == before
        out = _shell(duckdb_shell, a, tmp_path / "a" / "release.sql")
        assert out.returncode == 0, out.stderr
        monkeypatch.chdir(tmp_path / "b")
        res = run(main, ["run"])
        assert res.exit_code == 0, res.output
        sa, sb = _state(a), _state(b)
        assert sa == sb, {k: (sa.get(k), sb.get(k)) for k in set(sa) | set(sb) if sa.get(k) != sb.get(k)}
    # the shell-made ledger is complete and its fingerprints are keyed by its own secret
    con = sqlanon.connect(a)
    led = Project("ward").ref("ledger")
    assert [r for (r,) in con.execute(f"SELECT release FROM {led} ORDER BY 1").fetchall()] == list(range(1, releases + 1))
    key = con.execute(f"SELECT key FROM {Project('ward').ref('secret')}").fetchall()[0][0]
    assert len(key) >= 64 and key not in (tmp_path / "a" / "release.sql").read_text()
    # the one-thread run of a small release is not written into the script
    assert "set threads" not in (tmp_path / "a" / "release.sql").read_text().lower()
    assert con.execute(f"SELECT count(*) FROM {led} WHERE fingerprint IS NULL").fetchall() == [(0,)]
    assert sqlanon.audit(con, "ward", 3 if param != "m = 4" else 4).verdict == "safe"
    con.close()


def test_the_script_refuses_a_changed_source_or_a_second_run(tmp_path, monkeypatch, duckdb_shell):
    _setup(tmp_path)
    monkeypatch.chdir(tmp_path / "a")
    db = tmp_path / "a" / "my.duckdb"
    assert CliRunner().invoke(main, ["run"]).exit_code == 0
    res = CliRunner().invoke(main, ["compile", "--out", "r2.sql"])
    assert res.exit_code == 0, res.output
    shutil.copy(tmp_path / "a" / "r2.sql", tmp_path / "a" / "r2b.sql")
    _change(db, "UPDATE patients SET disease = 'hiv' WHERE id = 5")
    con = duckdb.connect(str(db))
    before = tables_md5(con)
    con.close()
    out = _shell(duckdb_shell, db, tmp_path / "a" / "r2.sql")
    assert out.returncode != 0 and "source patients changed since this script was compiled" in out.stderr
    con = duckdb.connect(str(db))
    assert tables_md5(con) == before
    con.close()
    _change(db, "UPDATE patients SET disease = 'flu' WHERE id = 5")  # back as compiled (5 % 5 = 0: flu)
    out = _shell(duckdb_shell, db, tmp_path / "a" / "r2.sql")
    assert out.returncode == 0, out.stderr
    out = _shell(duckdb_shell, db, tmp_path / "a" / "r2b.sql")
    assert out.returncode != 0 and "is not at release 1 any more" in out.stderr


def test_compile_errors(tmp_path, monkeypatch):
    _setup(tmp_path)
    db = tmp_path / "a" / "my.duckdb"
    r = CliRunner().invoke(main, ["compile", str(db), "ward"])
    assert r.exit_code == 2 and "needs its source" in r.output
    # a release the gate or the input refuses is refused by compile, with nothing written
    monkeypatch.chdir(tmp_path / "a")
    text = (tmp_path / "a" / "sqlanon.toml").read_text().replace("m = 4", "m = 9")
    (tmp_path / "a" / "sqlanon.toml").write_text(text)
    con = duckdb.connect(str(db))
    before = tables_md5(con)
    con.close()
    r = CliRunner().invoke(main, ["compile"])
    assert r.exit_code == 2 and "m = 9 is above the 5 distinct values" in r.output
    con = duckdb.connect(str(db))
    assert tables_md5(con) == before
    con.close()
