"""`sqlanon check DB TABLE --qi ... --sa ... [--m M]`."""

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
    assert res.exit_code == 0, res.output
    lines = dict(l.split(None, 1) for l in res.output.splitlines()[1:])
    assert lines["k"] == "2" and lines["distinct_l"] == "1" and lines["m_eligibility_max_m"] == "1"
    assert lines["m_uniqueness_violating_groups"] == "1"


def test_check_bad_column(tmp_path):
    res = CliRunner().invoke(main, ["check", _db(tmp_path), "t", "--qi", "q1,zz", "--sa", "s"])
    assert res.exit_code == 2 and "zz" in res.output
