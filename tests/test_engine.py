"""sqlanon.engines: the engine object, its typed errors, the engine macro file bound as ``lib``,
and the rendering cache shared by projects."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

import sqlanon
from sqlanon import SqlanonError, templates
from sqlanon.errors import Conflict, EngineError, MissingObject, ReadOnly
from sqlanon.engines import DuckDBEngine, Engine, as_engine
from sqlanon.project import Project

ROOT = Path(__file__).resolve().parents[1]


def test_a_connection_is_wrapped_and_an_engine_kept(con):
    eng = as_engine(con)
    assert isinstance(eng, DuckDBEngine) and eng.con is con
    assert as_engine(eng) is eng
    with pytest.raises(SqlanonError, match="expected a duckdb connection"):
        as_engine("db.duckdb")


def test_catalog_lookups(con):
    eng = as_engine(con)
    con.execute("CREATE SCHEMA s")
    con.execute("CREATE TABLE s.t (a INTEGER)")
    con.execute('CREATE TABLE "x.y" (b VARCHAR)')
    con.execute("CREATE TEMP TABLE tmp (c INTEGER)")
    con.execute("CREATE VIEW v AS SELECT 1 AS d")
    assert eng.exists("T") and eng.exists("x.y") and eng.exists("V") and not eng.exists("s.t")
    assert not eng.exists("tmp") and eng.exists("tmp", temporary=True)
    assert eng.columns("s.t") == {"a": "INTEGER"} and eng.columns("x.y") == {"b": "VARCHAR"}
    assert eng.relation("x.y") == '"x.y"' and eng.relation("s.t") == '"s"."t"'
    assert sorted(eng.relations()) == ["t", "v", "x.y"]
    assert eng.locate("T")[1:] == ("s", "t")
    with pytest.raises(SqlanonError, match="table 'nope' does not exist"):
        eng.columns("nope")


def test_transaction_rolls_back_on_error(con):
    eng = as_engine(con)
    eng.execute("CREATE TABLE t (a INTEGER)")
    with pytest.raises(EngineError) as err:
        with eng.transaction():
            eng.execute("INSERT INTO t VALUES (1)")
            eng.execute("INSERT INTO t VALUES ('x')")
    assert isinstance(err.value.__cause__, duckdb.Error)  # the engine's own, kept as the cause
    assert eng.fetch("SELECT count(*) FROM t") == [(0,)]
    with eng.transaction():
        eng.executemany("INSERT INTO t VALUES (?)", [(1,), (2,)])
    assert eng.fetch_one("SELECT sum(a) FROM t") == (3,)


def test_drop_temporary_drops_only_temporary_objects(con):
    eng = as_engine(con)
    con.execute("CREATE TABLE keep (a INTEGER)")  # same name as a temp below: must stay
    con.execute("CREATE TEMP TABLE Keep2 (a INTEGER)")
    con.execute("CREATE TEMP VIEW w AS SELECT * FROM Keep2")
    eng.drop_temporary(["w", "keep2", "keep", "absent"])
    assert eng.exists("keep") and not eng.exists("keep2", temporary=True) and not eng.exists("w", temporary=True)


def test_the_publisher_and_audit_run_on_an_engine_object(con):
    con.execute("CREATE TABLE src AS SELECT range AS id, range % 7 AS age, 'd' || (range % 4) AS disease "
                "FROM range(40)")
    eng = DuckDBEngine(con)
    pub = sqlanon.Publisher(eng, "e", source="src", id="id", qi=["age"], sa="disease", m=3)
    assert pub.engine is eng and pub.con is con
    assert pub.release().release == 1
    assert Project("e").exists(eng, "ledger") and Project("e").exists(con, "ledger")
    report = sqlanon.audit(eng, "e", 3)
    report.close()


def test_no_catalog_query_outside_the_engine():
    """duckdb_tables()/duckdb_views()/DESCRIBE are read only by sqlanon/engines/duckdb.py."""
    found = []
    for path in sorted((ROOT / "sqlanon").rglob("*.py")):
        if path.relative_to(ROOT).as_posix() == "sqlanon/engines/duckdb.py":
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"duckdb_(tables|views|columns)\(|\bDESCRIBE\b", line):
                found.append(f"{path.relative_to(ROOT)}:{i}")
    assert not found


def test_an_engine_without_a_macro_file_is_refused():
    class Other(Engine):
        name = "nosuchengine"

    with pytest.raises(SqlanonError, match=r"sql/_lib/nosuchengine.sql.j2"):
        templates.environment(engine=Other.name)


def test_rendered_templates_are_shared_by_projects_with_their_own_names():
    """The rendering cache (vary=): a second project's statements carry its own
    table names and equal a fresh rendering; another context is no hit."""
    env = templates.environment()

    def ctx(p: Project, first: bool) -> dict:
        return {"T": p.refs() | {k: f'"{p.temp(k)}"' for k in ("snap", "cls", "final", "rel")},
                "qi": ['"age"'], "qi_info": [('"age"', True)], "sa": '"disease"', "id": '"id"', "source": '"src"',
                "generalized": False, "dynamic": False, "first_release": first}

    name = "anatomy/90_stats.sql.j2"
    a, b = Project("alpha"), Project("b")
    first = templates.render(env, name, ctx(a, True), vary=a.placeholders())
    cached = templates.render(env, name, ctx(b, True), vary=b.placeholders())
    templates._RENDERED.clear()
    fresh = templates.render(env, name, ctx(b, True), vary=b.placeholders())
    assert cached == fresh and "sqlanon__b_final" in fresh[0] and "alpha" not in fresh[0]
    assert [s.replace("alpha", "b") for s in first] == cached
    assert templates.parameters(cached[0]) == {"release"}
