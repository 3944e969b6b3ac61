"""Project files (issue 17 item 2): `sqlanon init`, `run`, and `status`,
`audit`, `export`, `report` reading sqlanon.toml instead of their arguments;
the ledger's provenance columns (package version, template sha256, overrides)."""

from __future__ import annotations

import hashlib
import json
import shutil

import duckdb
import pytest
from click.testing import CliRunner

import sqlanon
from sqlanon import projectfile, templates
from sqlanon._resources import sql_dir
from sqlanon.cli import main
from sqlanon.project import Project
from sqlanon.publisher import status

TOML = """\
project = "ward"
database = "data/my.duckdb"
source = "patients"
id = "id"
qi = ["age", "zip"]
sa = "disease"
model = "m-invariance"
output = "anatomy"
{templates}
[parameters]
m = 3
seed = 11

[export]
to = "out"
format = "csv"
"""


def _folder(tmp_path, templates=""):
    (tmp_path / "data").mkdir()
    con = duckdb.connect(str(tmp_path / "data" / "my.duckdb"))
    con.execute("CREATE TABLE patients AS SELECT range AS id, 20 + range % 40 AS age, range % 13 AS zip, "
                "['flu','hiv','cold','ulcer'][range % 4 + 1] AS disease FROM range(400)")
    con.close()
    (tmp_path / "sqlanon.toml").write_text(TOML.format(templates=templates))
    return tmp_path / "data" / "my.duckdb"


def _change(db, sql):
    con = duckdb.connect(str(db))
    con.execute(sql)
    con.close()


def test_init_writes_a_commented_example_that_loads(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = CliRunner().invoke
    r = run(main, ["init"])
    assert r.exit_code == 0 and (tmp_path / "sqlanon.toml").is_file(), r.output
    text = (tmp_path / "sqlanon.toml").read_text()
    assert text.count("#") > 15  # commented
    cfg = projectfile.load(tmp_path / "sqlanon.toml")
    assert (cfg.project, cfg.source, cfg.qi, cfg.sa, cfg.parameters) == ("ward", "patients", ["age", "zip"],
                                                                        "disease", {"m": 4, "seed": 0})
    r = run(main, ["init"])
    assert r.exit_code == 2 and "--force" in r.output
    assert run(main, ["init", "--force"]).exit_code == 0


def test_project_file_workflow(tmp_path, monkeypatch):
    """init's layout filled in; run x3 with source changes between; status,
    audit, export, report from the file in the current directory; the same
    releases as the positional `sqlanon release`."""
    db = _folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    run = CliRunner().invoke
    for change in (None, "DELETE FROM patients WHERE id % 10 = 0",
                   "UPDATE patients SET disease = 'flu' WHERE id % 17 = 1; "
                   "INSERT INTO patients SELECT range, 30, 3, 'cold' FROM range(400, 420)"):
        if change:
            _change(db, change)
        r = run(main, ["run"])
        assert r.exit_code == 0, r.output
    assert "release   3:" in r.output
    r = run(main, ["status", "--json"])
    assert r.exit_code == 0 and [x["release"] for x in json.loads(r.output)] == [1, 2, 3], r.output
    r = run(main, ["audit", "--json"])  # m from the ledger
    assert r.exit_code == 0 and json.loads(r.output)["m"] == 3 and json.loads(r.output)["verdict"] == "safe"
    r = run(main, ["export"])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["sqlanon_ward_qit.csv", "sqlanon_ward_st.csv"]
    r = run(main, ["report", "--out", "report.html", "--no-plots"])
    assert r.exit_code == 0 and (tmp_path / "report.html").stat().st_size > 1000, r.output
    # --project FILE from elsewhere, and the positional form reads the same project
    monkeypatch.chdir(tmp_path / "data")
    r1 = run(main, ["status", "--project", str(tmp_path / "sqlanon.toml")])
    r2 = run(main, ["status", str(db), "ward"])
    assert r1.exit_code == 0 and r1.output == r2.output
    # the file's parameters are the project's: changing one is refused by the release
    text = (tmp_path / "sqlanon.toml").read_text().replace("m = 3", "m = 4")
    (tmp_path / "sqlanon.toml").write_text(text)
    r = run(main, ["run", "--project", str(tmp_path / "sqlanon.toml")])
    assert r.exit_code == 2 and "was released with m = 3, now 4" in r.output
    # the same three releases made by the library's Publisher give the same tables
    con = duckdb.connect(str(db), read_only=True)
    got = {t: con.execute(f"SELECT md5(string_agg(x::VARCHAR, '|' ORDER BY x::VARCHAR)) FROM {t} x").fetchone()
           for t in ("sqlanon_ward_qit", "sqlanon_ward_st", "sqlanon_private.ward_membership")}
    con.close()
    assert got == _same_releases_by_the_library()


def _same_releases_by_the_library():
    con = sqlanon.connect()
    con.execute("CREATE TABLE patients AS SELECT range AS id, 20 + range % 40 AS age, range % 13 AS zip, "
                "['flu','hiv','cold','ulcer'][range % 4 + 1] AS disease FROM range(400)")
    pub = sqlanon.Publisher(con, "ward", source="patients", id="id", qi=["age", "zip"], sa="disease", m=3, seed=11)
    pub.release()
    con.execute("DELETE FROM patients WHERE id % 10 = 0")
    pub.release()
    con.execute("UPDATE patients SET disease = 'flu' WHERE id % 17 = 1; "
                "INSERT INTO patients SELECT range, 30, 3, 'cold' FROM range(400, 420)")
    pub.release()
    return {t: con.execute(f"SELECT md5(string_agg(x::VARCHAR, '|' ORDER BY x::VARCHAR)) FROM {t} x").fetchone()
            for t in ("sqlanon_ward_qit", "sqlanon_ward_st", "sqlanon_private.ward_membership")}


@pytest.mark.parametrize("text,message", [
    ("project = 'w'\n", "missing key 'database'"),
    (TOML.format(templates="") + "colour = 'red'\n", "unknown key 'colour'"),
    (TOML.format(templates="").replace("seed = 11", "sede = 11"), "unknown parameter 'sede'"),
    (TOML.format(templates="").replace('qi = ["age", "zip"]', "qi = 3"), "qi must be a list"),
    (TOML.format(templates="").replace('project = "ward"', 'project = "1ward"'), "project name"),
    ("project = \n", "not valid TOML"),
])
def test_bad_project_files(tmp_path, monkeypatch, text, message):
    _folder(tmp_path)
    (tmp_path / "sqlanon.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    for cmd in (["run"], ["status"], ["audit"]):
        r = CliRunner().invoke(main, cmd)
        assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output, (cmd, r.output)


def test_no_project_file_and_no_arguments(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["status"])
    assert r.exit_code == 2 and "no sqlanon.toml" in r.output and "sqlanon init" in r.output
    r = CliRunner().invoke(main, ["run"])
    assert r.exit_code == 2 and "no sqlanon.toml" in r.output
    (tmp_path / "x.duckdb").touch()
    r = CliRunner().invoke(main, ["status", str(tmp_path / "x.duckdb")])
    assert r.exit_code == 2 and "give both DB and PROJECT" in r.output


def test_a_missing_database_leaves_no_file(tmp_path, monkeypatch):
    (tmp_path / "sqlanon.toml").write_text(TOML.format(templates=""))
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["run"])
    assert r.exit_code == 2 and "does not exist" in r.output
    assert not (tmp_path / "data").exists()


def test_ledger_records_version_template_hashes_and_overrides(tmp_path, monkeypatch):
    override = tmp_path / "templates" / "m_invariance"
    override.mkdir(parents=True)
    shutil.copy(sql_dir() / "m_invariance" / "90_stats.sql.j2", override / "90_stats.sql.j2")
    with (override / "90_stats.sql.j2").open("a") as f:
        f.write("-- our change: a comment only\n")
    db = _folder(tmp_path, templates='templates = "templates"\n')
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(main, ["run"]).exit_code == 0
    con = duckdb.connect(str(db), read_only=True)
    version, sha, over, params = con.execute(
        f"SELECT sqlanon_version, template_sha256, template_overrides, params FROM {Project('ward').ref('ledger')}"
    ).fetchall()[0]
    con.close()
    assert version == sqlanon.__version__
    sha, over = json.loads(sha), json.loads(over)
    assert over == ["m_invariance/90_stats.sql.j2"]
    # a step's hash: its source, then (after a NUL each) the _lib files it imports
    env = templates.environment()
    stats = ["m_invariance/90_stats.sql.j2", *templates.imports(env, ["m_invariance/90_stats.sql.j2"])]
    assert sha[stats[0]] == hashlib.sha256(b"\0".join(
        [(override / "90_stats.sql.j2").read_bytes(), *((sql_dir() / n).read_bytes() for n in stats[1:])])).hexdigest()
    step8 = ["m_invariance/08_assign.sql.j2", *templates.imports(env, ["m_invariance/08_assign.sql.j2"])]
    assert sha[step8[0]] == hashlib.sha256(b"\0".join((sql_dir() / n).read_bytes() for n in step8)).hexdigest()
    assert {"_lib/duckdb.sql.j2", "_lib/default.sql.j2"} <= set(sha)
    assert {"_gate/gate.sql.j2", "_gate/presence.sql.j2"} <= set(sha) and len(sha) >= 13
    assert json.loads(params)["m"] == 3 and json.loads(params)["seed"] == 11


def test_old_ledgers_without_provenance_columns_still_read_and_continue(tmp_path):
    con = sqlanon.connect()
    con.execute("CREATE TABLE src AS SELECT range AS id, range % 7 AS age, 'd' || (range % 4) AS disease "
                "FROM range(60)")
    pub = sqlanon.Publisher(con, "old", source="src", id="id", qi=["age"], sa="disease", m=3)
    pub.release()
    led = Project("old").ref("ledger")
    for c in ("sqlanon_version", "template_sha256", "template_overrides"):
        con.execute(f"ALTER TABLE {led} DROP COLUMN {c}")
    assert list(status(con, "old")["release"]) == [1]
    con.execute("DELETE FROM src WHERE id < 3")
    sqlanon.Publisher.open(con, "old").release()
    rows = con.execute(f"SELECT release, sqlanon_version IS NULL FROM {led} ORDER BY 1").fetchall()
    assert rows == [(1, True), (2, False)]


def test_readme_project_block_runs_as_written(tmp_path, monkeypatch):
    """The README's project-file walkthrough, line by line, on the file that
    `sqlanon init` writes (a `patients` table in my.duckdb; the source changes
    between the two runs)."""
    import re
    import shlex
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("<!-- BEGIN projects -->")[1].split("<!-- END projects -->")[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    commands = [shlex.split(line, comments=True) for line in block.splitlines()]
    commands = [c for c in commands if c]
    assert [c[1] for c in commands] == ["init", "run", "run", "status", "audit", "export", "report"]
    monkeypatch.chdir(tmp_path)
    con = sqlanon.connect(tmp_path / "my.duckdb")
    con.execute("CREATE TABLE patients AS SELECT range AS id, 20 + range % 50 AS age, 1000 + range % 17 AS zip, "
                "['flu','hiv','cold','gastritis','dyspepsia'][range % 5 + 1] AS disease FROM range(1000)")
    con.close()
    runs = 0
    for cmd in commands:
        if cmd[1] == "run" and runs:
            _change(tmp_path / "my.duckdb", "DELETE FROM patients WHERE id % 10 = 0")
        runs += cmd[1] == "run"
        r = CliRunner().invoke(main, cmd[1:])
        assert r.exit_code == 0, (cmd, r.output)
    assert (tmp_path / "report.html").is_file()
    assert sorted(p.name for p in (tmp_path / "export").iterdir()) == ["sqlanon_ward_qit.parquet",
                                                                       "sqlanon_ward_st.parquet"]
