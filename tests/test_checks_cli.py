"""`sqlanon check DB TABLE --qi ... --sa ... [--k K] [--l L] [--m M] [--json]`."""

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

import sqlanon
from sqlanon.cli import main


def _db(tmp_path):
    path = tmp_path / "c.duckdb"
    con = sqlanon.connect(str(path))
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES (1,'a','x'),(1,'a','y'),(2,'b','x'),(2,'b','x')) v(q1, q2, s)")
    con.close()
    return str(path)


def test_check_report(tmp_path):
    res = CliRunner().invoke(main, ["check", _db(tmp_path), "t", "--qi", "q1,q2", "--sa", "s", "--m", "2"])
    # --m is a threshold: group (2,b) holds x twice, so the table is not 2-unique (exit 1, was 0 before)
    assert res.exit_code == 1, res.output
    assert res.output.splitlines()[-1] == "verdict: fail - not 2-unique: 1 groups violate it"
    lines = dict(l.split(None, 1) for l in res.output.splitlines()[1:])
    assert lines["k"] == "2" and lines["distinct_l"] == "1" and lines["m_eligibility_max_m"] == "1"
    assert lines["m_uniqueness_violating_groups"] == "1"
    # re-identification risk (prosecutor): two classes of 2 rows, risk 1/2 each: every record (share 1.0) above 0.2
    assert lines["prosecutor_highest_risk"] == "50.00%" and lines["prosecutor_records_at_risk"] == "100.00%"


def test_check_bad_column(tmp_path):
    res = CliRunner().invoke(main, ["check", _db(tmp_path), "t", "--qi", "q1,zz", "--sa", "s"])
    assert res.exit_code == 2 and "zz" in res.output


@pytest.mark.parametrize("args, code, failed", [
    ([], 0, None),                                   # no threshold: a report, exit 0
    (["--k", "2"], 0, []),                           # every group has 2 rows
    (["--k", "3"], 1, ["k = 2 < 3"]),
    (["--l", "1"], 0, []),
    (["--l", "2"], 1, ["distinct l = 1 < 2"]),       # group (2,b) holds x, x
    (["--k", "3", "--l", "2"], 1, ["k = 2 < 3", "distinct l = 1 < 2"]),
    (["--m", "2"], 1, ["not 2-unique: 1 groups violate it"]),
])
def test_check_thresholds_exit_status(tmp_path, args, code, failed):
    res = CliRunner().invoke(main, ["check", _db(tmp_path), "t", "--qi", "q1,q2", "--sa", "s", "--json", *args])
    assert res.exit_code == code, res.output
    out = json.loads(res.output)
    assert out["failed"] == (failed or [])
    assert out["verdict"] == (None if failed is None else ("fail" if failed else "pass"))
    assert out["report"]["k"] == 2 and out["table"] == "t" and out["qi"] == ["q1", "q2"]


def test_check_m_passes_on_m_unique_table(tmp_path):
    db = tmp_path / "u.duckdb"
    con = sqlanon.connect(str(db))
    con.execute("CREATE TABLE u AS SELECT * FROM (VALUES (1,'x'),(1,'y'),(2,'x'),(2,'z')) v(q, s)")
    con.close()
    res = CliRunner().invoke(main, ["check", str(db), "u", "--qi", "q", "--sa", "s", "--m", "2", "--k", "2"])
    assert res.exit_code == 0 and res.output.splitlines()[-1] == "verdict: pass", res.output


def test_check_bad_input_is_2(tmp_path):
    db = _db(tmp_path)
    for args in (["--qi", "q1", "--sa", "zz"], ["--qi", "q1", "--sa", "s", "--k", "0"]):
        res = CliRunner().invoke(main, ["check", db, "t", *args])
        assert res.exit_code == 2, res.output
    res = CliRunner().invoke(main, ["check", str(tmp_path / "nope.duckdb"), "t", "--qi", "q1", "--sa", "s"])
    assert res.exit_code == 2 and not (tmp_path / "nope.duckdb").exists()


def test_python_m_sqlanon_cli_check(tmp_path):
    """`python -m sqlanon.cli check` reaches every command (sqlanon/cli/__main__.py, after every command module is imported)."""
    out = subprocess.run([sys.executable, "-m", "sqlanon.cli", "check", _db(tmp_path), "t", "--qi", "q1,q2",
                          "--sa", "s", "--k", "2"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "verdict: pass"
