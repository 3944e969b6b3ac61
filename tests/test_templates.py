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


def test_a_variant_extends_its_base_pipeline():
    """A model that extends another's pipeline (sliced-bucket: m-invariance)
    runs the base's steps, its own files replacing those of the same name; its
    files are real steps or ``{% extends %}`` a base step (no include shims),
    and no template of the base folder names the variant."""
    from sqlanon._resources import sql_dir
    from sqlanon.models import MODELS

    env = templates.environment()
    variants = [m for m in MODELS.values() if m.extends]
    assert [m.name for m in variants] == ["sliced-bucket"]
    for model in variants:
        base = templates.steps(env, model.extends)
        own = sorted(f.name for f in (sql_dir() / model.pipeline).glob("[0-9]*.sql.j2"))  # steps (not hooks.sql.j2)
        names = templates.steps(env, model.pipeline, model.extends)
        assert [n.split("/")[1] for n in names] == sorted({n.split("/")[1] for n in base} | set(own))
        assert {n for n in names if n.startswith(model.pipeline + "/")} == {f"{model.pipeline}/{f}" for f in own}
        for f in own:
            text = (sql_dir() / model.pipeline / f).read_text()
            assert "{% include" not in text
            if templates.parents(env, f"{model.pipeline}/{f}"):
                assert templates.parents(env, f"{model.pipeline}/{f}") == [f"{model.extends}/{f}"]
                assert "{% block" in text
        words = {model.name, model.pipeline, model.name.split("-")[0]}
        for f in (sql_dir() / model.extends).glob("*.sql.j2"):
            assert not any(w in f.read_text() for w in words), (f.name, words)


def test_a_variant_step_hash_covers_its_parent(tmp_path):
    """The ledger's hash of a step that extends another covers the parent's
    text and the ``_lib`` files they import: an override of the parent (or an
    edit of it) changes it, and the override is listed by the file's name."""
    import hashlib

    from sqlanon._resources import sql_dir

    child, parent = "sliced_bucket/06_constrained.sql.j2", "m_invariance/06_constrained.sql.j2"
    shipped, over = templates.hashes(templates.environment(), [child, "m_invariance/01_snapshot.sql.j2"])
    texts = [(sql_dir() / n).read_bytes() for n in (child, parent)]
    libs = b"".join(b"\0" + (sql_dir() / n).read_bytes()
                    for n in templates.imports(templates.environment(), [child, parent]))
    assert shipped[child] == hashlib.sha256(texts[0] + b"\0" + texts[1] + libs).hexdigest() and over == []
    snap = "m_invariance/01_snapshot.sql.j2"
    assert shipped[snap] == hashlib.sha256(b"\0".join(
        (sql_dir() / n).read_bytes() for n in [snap, *templates.imports(templates.environment(), [snap])])).hexdigest()
    (tmp_path / "m_invariance").mkdir()
    f = tmp_path / parent
    f.write_bytes(texts[1] + b"-- ours\n")
    env = templates.environment(tmp_path)
    sha, over = templates.hashes(env, [child])
    assert sha[child] == hashlib.sha256(texts[0] + b"\0" + texts[1] + b"-- ours\n" + libs).hexdigest() != shipped[child]
    assert over == [parent]
    f.write_bytes(texts[1] + b"-- ours, edited\n")  # the same environment notices the edit
    os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 10**9))
    assert templates.hashes(env, [child])[0][child] == hashlib.sha256(
        texts[0] + b"\0" + texts[1] + b"-- ours, edited\n" + libs).hexdigest()


def test_the_hash_covers_imported_lib_files(tmp_path):
    """An override of an imported ``_lib`` file (or of the ``lib`` global's
    files) changes the hash of every step that uses it, and the ledger lists
    it as an override; a step that does not import it keeps its hash."""
    from sqlanon._resources import sql_dir

    pub, plain = "m_invariance/09_publish.sql.j2", "m_invariance/02_classify.sql.j2"
    assert "_lib/hash.sql.j2" in templates.imports(templates.environment(), [pub])
    assert "_lib/hash.sql.j2" not in templates.imports(templates.environment(), [plain])
    shipped, _ = templates.hashes(templates.environment(), [pub, plain])
    assert {"_lib/duckdb.sql.j2", "_lib/default.sql.j2"} <= set(shipped)  # lib's files have entries
    (tmp_path / "_lib").mkdir()
    (tmp_path / "_lib" / "hash.sql.j2").write_bytes((sql_dir() / "_lib/hash.sql.j2").read_bytes() + b"{# ours #}\n")
    (tmp_path / "_lib" / "default.sql.j2").write_bytes(
        (sql_dir() / "_lib/default.sql.j2").read_bytes() + b"{# ours #}\n")
    sha, over = templates.hashes(templates.environment(tmp_path), [pub, plain])
    assert sha[pub] != shipped[pub] and sha[plain] == shipped[plain]
    assert sha["_lib/default.sql.j2"] != shipped["_lib/default.sql.j2"]
    assert set(over) == {"_lib/hash.sql.j2", "_lib/default.sql.j2"}
