"""sqlanon.templates: StrictUndefined, statement splitting, parameters, overrides."""

from __future__ import annotations

import os

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
