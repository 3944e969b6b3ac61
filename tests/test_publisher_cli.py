"""`sqlanon release`, `sqlanon status`, `sqlanon demo`."""

from __future__ import annotations

import json

import duckdb
from click.testing import CliRunner

import sqlanon
from sqlanon.cli import main


def _source_db(tmp_path):
    """A database file with table src (id, age, dx): 60 persons, 4 SA values."""
    db = tmp_path / "x.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE src AS SELECT range AS id, range % 30 AS age, ['a','b','c','d'][range % 4 + 1] AS dx "
                "FROM range(60)")
    con.close()
    return db


def test_release_and_status(tmp_path):
    db = _source_db(tmp_path)
    run = CliRunner().invoke
    r = run(main, ["release", str(db), "p"])
    assert r.exit_code != 0 and "needs --source, --id, --qi, --sa, --m" in r.output
    r = run(main, ["release", str(db), "p", "--source", "src", "--id", "id", "--qi", "age", "--sa", "dx", "--m", "3"])
    assert r.exit_code == 0, r.output
    assert "release   1:" in r.output
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM src WHERE id < 5")
    con.close()
    r = run(main, ["release", str(db), "p"])  # parameters from the ledger
    assert r.exit_code == 0 and "release   2:" in r.output and "deleted 5" in r.output, r.output
    r = run(main, ["release", str(db), "p", "--m", "4"])
    assert r.exit_code != 0 and "m = 3, now 4" in r.output
    r = run(main, ["status", str(db), "p"])
    assert r.exit_code == 0 and r.output.count("\n") == 3
    r = run(main, ["status", str(db), "nope"])
    assert r.exit_code != 0 and "no project 'nope'" in r.output and "its projects: p" in r.output


def test_release_dynamic_anatomy_model(tmp_path):
    db = _source_db(tmp_path)
    run = CliRunner().invoke
    args = ["release", str(db), "d", "--source", "src", "--id", "id", "--qi", "age", "--sa", "dx"]
    r = run(main, [*args, "--model", "dynamic-anatomy"])
    assert r.exit_code != 0 and "needs --l" in r.output
    r = run(main, [*args, "--l", "3"])  # --l without --model: the default model takes --m; the error says so
    assert r.exit_code == 2 and "needs --m (--l is the parameter of models anatomy and dynamic-anatomy" in r.output
    assert "give --m 3, or --model dynamic-anatomy" in r.output
    r = run(main, [*args, "--model", "dynamic-anatomy", "--l", "3"])
    assert r.exit_code == 0 and "release   1:" in r.output, r.output
    con = duckdb.connect(str(db))
    con.execute("UPDATE src SET dx = 'e' WHERE id = 7")
    con.close()
    r = run(main, ["release", str(db), "d"])  # model and l from the ledger
    assert r.exit_code == 0 and "release   2:" in r.output and "suppressed" in r.output, r.output
    con = sqlanon.connect(db)
    assert con.execute("SELECT count(*) FROM sqlanon_comparison_attacks('d', 3)").fetchall() == [(0,)]
    con.close()


def test_demo(tmp_path):
    db = tmp_path / "demo.duckdb"
    r = CliRunner().invoke(main, ["demo", "--db", str(db), "--releases", "5"])
    assert r.exit_code == 0, r.output
    lines = [x for x in r.output.splitlines() if x.startswith("release")]
    assert len(lines) == 5 and all(x.endswith("audit: safe") for x in lines)
    con = sqlanon.connect(db)
    led = con.execute("SELECT sum(new), sum(deleted), sum(updated), sum(reinserted) FROM sqlanon_private.adult__ledger").fetchall()[0]
    assert all(x > 0 for x in led)
    con.close()
    # an earlier demo's file is rerun: its own tables (both schemas) are replaced, no --force needed
    r = CliRunner().invoke(main, ["demo", "--db", str(db), "--releases", "2"])
    assert r.exit_code == 0 and r.output.count("audit: safe") == 2, r.output
    con = sqlanon.connect(db)
    assert con.execute("SELECT max(release) FROM sqlanon_private.adult__ledger").fetchall() == [(2,)]
    con.close()


def _released(tmp_path, m=3):
    db = _source_db(tmp_path)
    r = CliRunner().invoke(main, ["release", str(db), "p", "--source", "src", "--id", "id", "--qi", "age",
                                  "--sa", "dx", "--m", str(m)])
    assert r.exit_code == 0, r.output
    return db


def test_audit_takes_m_from_the_ledger(tmp_path):
    db = _released(tmp_path, m=3)
    run = CliRunner().invoke
    r = run(main, ["audit", str(db), "p"])
    assert r.exit_code == 0 and "m = 3" in r.output and "verdict: safe" in r.output, r.output
    assert run(main, ["audit", str(db), "p", "--m", "3"]).exit_code == 0
    r = run(main, ["audit", str(db), "p", "--m", "2"])  # used to audit with m = 2 and say "safe"
    assert r.exit_code == 2 and "published with m = 3" in r.output and "--what-if" in r.output, r.output
    r = run(main, ["audit", str(db), "p", "--m", "4", "--what-if", "--json"])
    assert r.exit_code in (0, 1), r.output
    report = json.loads(r.output[r.output.index("{"):])
    assert report["m"] == 4 and report["what_if"] is True and "was published with m = 3" in r.output


def test_audit_without_ledger_needs_m(tmp_path):
    db = tmp_path / "fig.duckdb"
    con = sqlanon.connect(db)
    con.execute("CREATE SCHEMA IF NOT EXISTS sqlanon_private; CREATE TABLE sqlanon_private.f_membership AS SELECT * FROM (VALUES (1, 1, 1::BIGINT, false, 'a'), "
                "(1, 2, 1, false, 'b')) t(release, id, group_id, is_counterfeit, dx)")
    con.execute("CREATE TABLE sqlanon_f_st AS SELECT release, group_id, dx, count(*) AS count "
                "FROM sqlanon_private.f_membership GROUP BY ALL")
    con.close()
    r = CliRunner().invoke(main, ["audit", str(db), "f"])
    assert r.exit_code == 2 and "no ledger" in r.output and "--m" in r.output, r.output
    r = CliRunner().invoke(main, ["audit", str(db), "f", "--m", "2", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["verdict"] == "safe", r.output


def test_release_on_a_mistyped_path_leaves_no_file(tmp_path):
    _source_db(tmp_path)
    typo = tmp_path / "y.duckdb"
    r = CliRunner().invoke(main, ["release", str(typo), "p", "--source", "src", "--id", "id", "--qi", "age",
                                  "--sa", "dx", "--m", "3"])
    assert r.exit_code == 2 and "does not exist" in r.output, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.duckdb"]


def test_release_and_status_json(tmp_path):
    db = _source_db(tmp_path)
    r = CliRunner().invoke(main, ["release", str(db), "p", "--source", "src", "--id", "id", "--qi", "age",
                                  "--sa", "dx", "--m", "3", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)  # stderr: a note that x.duckdb (plain duckdb 2.0) is not shell-readable
    assert "docs/shell.md" in r.stderr
    assert out["release"] == 1 and out["project"] == "p" and out["published"] == 60
    r = CliRunner().invoke(main, ["status", str(db), "p", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert len(rows) == 1 and rows[0]["release"] == 1


def test_data_adult(tmp_path):
    db = tmp_path / "my.duckdb"
    run = CliRunner().invoke
    r = run(main, ["data", "adult", "--to", str(db)])
    assert r.exit_code == 0 and "loaded 32561 rows" in r.output, r.output
    r = run(main, ["data", "adult", "--to", str(db)])
    assert r.exit_code == 2 and "--replace" in r.output, r.output
    r = run(main, ["data", "adult", "--to", str(db), "--table", "a2", "--part", "test", "--complete"])
    assert r.exit_code == 0 and "loaded 15060 rows" in r.output, r.output
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), count(DISTINCT id), min(id) FROM adult").fetchall() == [(32561, 32561, 1)]
    con.close()
    r = run(main, ["data", "adult", "--to", str(tmp_path / "new.duckdb"), "--table", ""])  # fails after the file was created
    assert r.exit_code == 2, r.output
    assert not (tmp_path / "new.duckdb").exists() and not (tmp_path / "new.duckdb.wal").exists()
    assert run(main, ["data", "nosuch", "--to", str(db)]).exit_code == 2


def test_release_model_parameters_from_the_registry(tmp_path):
    """--param NAME=VALUE sets a model parameter declared in sqlanon/models/ (typed by its declaration)."""
    db = _source_db(tmp_path)
    run = CliRunner().invoke
    base = ["release", str(db), "p", "--source", "src", "--id", "id", "--qi", "age", "--sa", "dx", "--m", "3"]
    r = run(main, base + ["--param", "eligibilty=random"])
    assert r.exit_code == 2 and "parameter of model 'm-invariance' (m, eligibility)" in r.output, r.output
    r = run(main, base + ["--param", "eligibility=random"])
    assert r.exit_code == 0, r.output
    con = duckdb.connect(str(db))
    assert json.loads(con.execute("SELECT params FROM sqlanon_private.p__ledger").fetchall()[0][0])["eligibility"] == "random"
    con.close()
