"""The whole audit in the real DuckDB shell (duckdb-cli 1.5, the test extra):
``sqlanon_audit('<project>')`` after the README's pip-install path
(``sqlanon macros > sqlanon.sql``, ``.read sqlanon.sql``, no checkout) gives
the findings of ``sqlanon.audit`` on the static-Anatomy baseline, the same
persons per check (docs/audit.md, docs/shell.md)."""

from __future__ import annotations

import csv
import io
import json
import random
import shutil
import subprocess
import sys

import duckdb
import pytest

import sqlanon
from sqlanon import Publisher


def _baseline(db):
    """Static Anatomy (the documented unsafe baseline), 5 releases of a small
    dynamic source with repeated QI tuples, some persons dropped for a release
    and back, some SA updates, and rows of a value too frequent to be l-eligible
    (held back: the absence check has something to read)."""
    rnd = random.Random(3)
    con = sqlanon.connect(db)
    con.execute("CREATE TABLE src (id BIGINT, age INTEGER, zip VARCHAR, disease VARCHAR)")
    pub = Publisher(con, "ward", source="src", id="id", qi=["age", "zip"], sa="disease", model="anatomy", l=3,
                    seed=2)
    values = ["flu", "hiv", "cold", "acne", "gout"]
    people = {i: (20 + rnd.randrange(40), f"479{rnd.randrange(10)}", rnd.choice(values)) for i in range(240)}
    for r in range(5):
        rows = []
        for i, (age, z, v) in people.items():
            if rnd.random() < 0.15:
                continue  # away this release
            if rnd.random() < 0.08:
                v = rnd.choice(values)
                people[i] = (age, z, v)
            rows.append((i, age, z, v))
        rows += [(1000 + j, 70 + j, "4799", "flu") for j in range(25 + 10 * r)]  # too many flu, QI of their own
        con.execute("DELETE FROM src")
        con.executemany("INSERT INTO src VALUES (?, ?, ?, ?)", rows)
        pub.release()
    report = sqlanon.audit(con, "ward", 3)
    python = {(f.check, f.id, tuple(f.releases), tuple(f.values)) for f in report.findings.itertuples()}
    counts, skipped = dict(report.counts), dict(report.skipped)
    report.close()
    con.close()
    return python, counts, skipped


def _macros_file(tmp_path):
    """`sqlanon macros > sqlanon.sql` with the installed command."""
    path = tmp_path / "sqlanon.sql"
    out = subprocess.run([sys.executable, "-m", "sqlanon", "macros"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    path.write_text(out.stdout)
    return path


def test_sqlanon_audit_in_the_shell_equals_the_python_audit(tmp_path, duckdb_shell):
    db = tmp_path / "baseline.duckdb"
    python, counts, skipped = _baseline(db)
    assert not skipped
    assert counts["qi_linking"] > 0 and counts["absence"] > 0 and counts["intersection"] > 0
    plain = tmp_path / "plain.duckdb"  # a copy without sqlanon's stored macros: only the .read gives them
    shutil.copy(db, plain)
    con = duckdb.connect(str(plain))
    for name, kind in con.execute("SELECT function_name, any_value(function_type) FROM duckdb_functions() "
                                  "WHERE function_name LIKE 'sqlanon%' AND database_name = current_database() "
                                  "GROUP BY 1").fetchall():
        con.execute(f"DROP MACRO {'TABLE ' if kind == 'table_macro' else ''}{name}")
    assert not con.execute("SELECT * FROM duckdb_functions() WHERE function_name = 'sqlanon_audit'").fetchall()
    con.close()
    macros = _macros_file(tmp_path)
    out = subprocess.run([duckdb_shell, "-bail", "-json", str(plain)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300, input=f".read {macros.name}\n"
                         "SELECT \"check\", id, releases, \"values\" FROM sqlanon_audit('ward');\n")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    shell = {(r["check"], r["id"], tuple(r["releases"]), tuple(r["values"])) for r in rows}
    for check in counts:
        py = {f for f in python if f[0] == check}
        sh = {f for f in shell if f[0] == check}
        assert sh == py, check
    assert len(rows) == sum(counts.values())


def test_sqlanon_audit_takes_m_from_the_ledger_or_an_argument(tmp_path):
    db = tmp_path / "baseline.duckdb"
    _baseline(db)
    con = sqlanon.connect(db)
    by_ledger = con.execute("SELECT count(*) FROM sqlanon_audit('ward')").fetchall()
    assert by_ledger == con.execute("SELECT count(*) FROM sqlanon_audit('ward', m := 3)").fetchall()
    assert by_ledger != con.execute("SELECT count(*) FROM sqlanon_audit('ward', m := 5)").fetchall()
    con.close()


def test_compile_refuses_a_file_the_shell_cannot_open(tmp_path):
    """A file in DuckDB 2.0's storage format: `sqlanon compile` would write a
    script the shell cannot run on it; it says so and names the fix."""
    from click.testing import CliRunner

    from sqlanon.cli import main

    db = tmp_path / "new.duckdb"
    con = duckdb.connect(str(db))  # DuckDB's own default: the 2.0 format
    con.execute("CREATE TABLE src AS SELECT range AS id, 20 + range % 9 AS age, "
                "['a','b','c','d'][range % 4 + 1] AS sa FROM range(60)")
    con.close()
    before = db.read_bytes()
    (tmp_path / "sqlanon.toml").write_text(
        f'database = "{db.name}"\nproject = "p"\nsource = "src"\nid = "id"\nqi = ["age"]\nsa = "sa"\n'
        'model = "m-invariance"\n[parameters]\nm = 3\n')
    result = CliRunner().invoke(main, ["compile", "--project", str(tmp_path / "sqlanon.toml")])
    assert result.exit_code == 2, result.output
    assert "storage" in result.output and "docs/shell.md" in result.output
    assert db.read_bytes() == before


def _csv(text):
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize("first", [True, False])
def test_a_compiled_script_ends_with_a_summary_line(tmp_path, duckdb_shell, first):
    """The shell prints one line saying what the script released (the
    statements themselves run with .mode trash)."""
    from sqlanon.compile import compile_release

    db = tmp_path / "my.duckdb"
    con = sqlanon.connect(db)
    con.execute("CREATE TABLE src AS SELECT range AS id, 20 + range % 9 AS age, "
                "['a','b','c','d'][range % 4 + 1] AS sa FROM range(60)")
    kw = dict(source="src", id="id", qi=["age"], sa="sa", m=3, seed=1)
    if not first:
        Publisher(con, "p", **kw).release()
        con.execute("DELETE FROM src WHERE id % 7 = 0")
    script = compile_release(con, "p", **kw)
    con.close()
    out = subprocess.run([duckdb_shell, str(db)], input=script, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = [x for x in out.stdout.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"sqlanon: release {1 if first else 2} of project p"), out.stdout
    con = duckdb.connect(str(db), read_only=True)
    pub, groups = con.execute("SELECT count(*), count(DISTINCT group_id) FROM sqlanon_p_qit WHERE release = "
                              f"{1 if first else 2}").fetchall()[0]
    con.close()
    assert f"{pub} published rows" in lines[0] and f"{groups} groups" in lines[0]
