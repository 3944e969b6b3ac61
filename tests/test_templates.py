"""sqlanon.templates: StrictUndefined, statement splitting, parameters, overrides."""

from __future__ import annotations

import jinja2
import pytest

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
    assert stmts == ["-- mine\nSELECT 1;", "SELECT $seed; -- $release"]
    assert templates.params_for(stmts[1], {"seed": 1, "release": 2}) == {"seed": 1}
    # other steps still come from the package
    assert "m_invariance/08_assign.sql.j2" in templates.steps(env, "m_invariance")


def test_missing_parameter_and_folder(tmp_path):
    with pytest.raises(SqlanonError, match=r"\$seed"):
        templates.params_for("SELECT $seed", {})
    with pytest.raises(SqlanonError, match="does not exist"):
        templates.environment(tmp_path / "nope")
    with pytest.raises(SqlanonError, match="no templates"):
        templates.steps(templates.environment(), "nope")
