"""sqlanon.project.Project: the one place that names a project's tables."""

from __future__ import annotations

import duckdb
import pytest

import sqlanon
from sqlanon.project import PRIVATE, PUBLIC, Project


def test_names_are_the_contract():
    p = Project("ward")
    assert [p.table(k) for k in PUBLIC] == ["sqlanon_ward_qit", "sqlanon_ward_st", "sqlanon_ward_published",
                                            "sqlanon_ward_membership"]
    assert p.table("ledger") == "sqlanon_ward__ledger" and p.table("vals") == "sqlanon_ward__values"
    assert set(p.tables()) == set(PUBLIC) | set(PRIVATE)
    assert p.temp("pool") == "sqlanon__ward_pool"
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
    con.execute("CREATE VIEW sqlanon_ward_membership AS SELECT 1 AS x")
    assert p.exists(con, "st") and p.exists(con, "mem")
    assert p.locate(con, "st") == ("memory", "main", "SQLANON_WARD_ST")
    assert p.locate(con, "mem") is None  # a view is no table to write to


def test_publisher_writes_only_project_tables():
    con = sqlanon.connect()
    con.execute("CREATE TABLE src AS SELECT range AS id, range % 7 AS age, 'd' || (range % 4) AS disease FROM range(40)")
    pub = sqlanon.Publisher(con, "demo", source="src", id="id", qi=["age"], sa="disease", m=3, seed=1)
    pub.release()
    made = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'sqlanon%'").fetchall()}
    assert made <= set(Project("demo").tables().values())
    assert {"sqlanon_demo_qit", "sqlanon_demo__ledger", "sqlanon_demo__chains"} <= made
