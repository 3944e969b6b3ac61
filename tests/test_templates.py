"""sqlanon.templates: StrictUndefined, statement splitting, parameters, overrides."""

from __future__ import annotations

import os

import duckdb
import jinja2
import pytest

import sqlanon
from sqlanon import SqlanonError, templates


def test_steps_in_order():
    env = templates.environment()
    names = templates.steps(env, "m_invariance")
    assert names == sorted(names) and names[0].endswith("01_snapshot.sql.j2")


def test_strict_undefined(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "01_a.sql.j2").write_text("SELECT {{ missing }};\n")
    env = templates.environment(tmp_path)
    with pytest.raises(jinja2.UndefinedError):
        templates.render(env, "x/01_a.sql.j2", {})


def test_override_wins(tmp_path):
    (tmp_path / "m_invariance").mkdir()
    (tmp_path / "m_invariance" / "01_snapshot.sql.j2").write_text("-- mine\nSELECT 1;\nSELECT $seed; -- $release\n")
    env = templates.environment(tmp_path)
    stmts = templates.render(env, "m_invariance/01_snapshot.sql.j2", {})
    assert stmts == ["-- mine\nSELECT 1;", "SELECT $seed;"]  # the comment after the last ';' is no statement
    assert templates.params_for(stmts[1], {"seed": 1, "release": 2}) == {"seed": 1}
    # other steps still come from the package
    assert "m_invariance/08_assign.sql.j2" in templates.steps(env, "m_invariance")


def test_semicolon_in_comment_or_string_ends_no_statement():
    """Statements end at ';' tokens (sqlglot's DuckDB tokenizer), not at lines
    ending in ';': a comment ending in ';' or a ';' in a string stays inside."""
    sql = ("-- keep the rows;\nSELECT 1 AS a,\n-- the second column;\n  2 AS b;\n"
           "SELECT 'x;\ny' AS c; /* ; */ SELECT $$;$$ AS d;\n-- trailing;\n")
    assert templates.statements(sql) == (
        "-- keep the rows;\nSELECT 1 AS a,\n-- the second column;\n  2 AS b;",
        "SELECT 'x;\ny' AS c;",
        "/* ; */ SELECT $$;$$ AS d;",
    )
    con = duckdb.connect()
    assert [con.execute(s).fetchall() for s in templates.statements(sql)] == [[(1, 2)], [("x;\ny",)], [(";",)]]


def test_parameters_not_in_strings_or_comments():
    """'a--b' is a string, not the start of a comment: the $seed after it is a
    parameter; $x in a string and $y in a comment are none."""
    stmt = "SELECT 'a--b' AS s, $seed AS t, '$x' AS u -- $y;\n, $m AS v /* $z */"
    assert templates.parameters(stmt) == {"seed", "m"}
    assert templates.params_for(stmt, {"seed": 1, "m": 3, "x": 0, "y": 0, "z": 0}) == {"seed": 1, "m": 3}
    con = duckdb.connect()
    assert con.execute(stmt, templates.params_for(stmt, {"seed": 7, "m": 3})).fetchall() == [("a--b", 7, "$x", 3)]


def test_override_with_tricky_sql_releases(tmp_path):
    """An override step with both cases runs inside a real release."""
    (tmp_path / "m_invariance").mkdir()
    (tmp_path / "m_invariance" / "09z_extra.sql.j2").write_text(
        "-- a comment that ends in a semicolon;\n"
        "CREATE OR REPLACE TEMP TABLE tricky AS SELECT 'a--b' AS s, $release AS r, -- note;\n"
        "  'c;d' AS t;\n")
    con = sqlanon.connect()
    con.execute("CREATE TABLE src AS SELECT range AS id, range % 7 AS age, 'd' || (range % 4) AS disease "
                "FROM range(40)")
    sqlanon.Publisher(con, "p", source="src", id="id", qi=["age"], sa="disease", m=3, templates_dir=tmp_path).release()
    assert con.execute("FROM tricky").fetchall() == [("a--b", 1, "c;d")]


def test_missing_parameter_and_folder(tmp_path):
    with pytest.raises(SqlanonError, match=r"\$seed"):
        templates.params_for("SELECT $seed", {})
    with pytest.raises(SqlanonError, match="does not exist"):
        templates.environment(tmp_path / "nope")
    with pytest.raises(SqlanonError, match="no templates"):
        templates.steps(templates.environment(), "nope")


def test_environments_are_shared_until_the_override_folder_changes(tmp_path):
    """Publishers in one process share compiled templates; an override added,
    edited or removed after that is still used (or dropped) at once."""
    assert templates.environment() is templates.environment()
    (tmp_path / "m_invariance").mkdir()
    env = templates.environment(tmp_path)
    assert templates.environment(tmp_path) is env
    name = "m_invariance/08_assign.sql.j2"
    assert not env.get_template(name).filename.startswith(str(tmp_path))
    f = tmp_path / "m_invariance" / "08_assign.sql.j2"
    f.write_text("SELECT 'boom';\n")
    env2 = templates.environment(tmp_path)
    assert env2 is not env and templates.render(env2, name, {}) == ["SELECT 'boom';"]
    f.write_text("SELECT 'bang';\n")
    os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 10**9))  # a later mtime even on coarse clocks
    assert templates.render(templates.environment(tmp_path), name, {}) == ["SELECT 'bang';"]
    f.unlink()
    assert not templates.environment(tmp_path).get_template(name).filename.startswith(str(tmp_path))
