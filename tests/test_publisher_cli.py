"""`sqlanon release`, `sqlanon status`, `sqlanon demo`."""

from __future__ import annotations

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
    assert r.exit_code != 0 and "no releases" in r.output


def test_release_dynamic_anatomy_model(tmp_path):
    db = _source_db(tmp_path)
    run = CliRunner().invoke
    args = ["release", str(db), "d", "--source", "src", "--id", "id", "--qi", "age", "--sa", "dx"]
    r = run(main, [*args, "--model", "dynamic-anatomy"])
    assert r.exit_code != 0 and "needs --l" in r.output
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
    led = con.execute("SELECT sum(new), sum(deleted), sum(updated), sum(reinserted) FROM sqlanon_adult__ledger").fetchall()[0]
    assert all(x > 0 for x in led)
    con.close()
