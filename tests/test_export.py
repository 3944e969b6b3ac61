"""`sqlanon export`: the published tables only, as Parquet or CSV files whose
row order is a function of their published content (issue 19 items 1 and 4)."""

from __future__ import annotations

import hashlib
import random

import duckdb
import pytest
from click.testing import CliRunner

import sqlanon
from sqlanon.cli import main
from sqlanon.export import export
from sqlanon.project import Project

SA = ["flu", "hiv", "cold", "ulcer", "gastritis"]


def _project(db, output="anatomy", model="m-invariance"):
    """Two releases of project ward (500 persons, unique QI, SA independent of QI)."""
    rnd = random.Random(3)
    con = sqlanon.connect(db)
    con.execute("CREATE TABLE src (id BIGINT, age INTEGER, zip BIGINT, disease VARCHAR)")
    con.executemany("INSERT INTO src VALUES (?, ?, ?, ?)",
                    [(i, rnd.randint(20, 70), rnd.randrange(10**6), rnd.choice(SA)) for i in range(500)])
    kw = {"m": 4} if model == "m-invariance" else {"l": 3}
    pub = sqlanon.Publisher(con, "ward", source="src", id="id", qi=["age", "zip"], sa="disease", model=model,
                            output=output, seed=5, **kw)
    pub.release()
    con.execute("DELETE FROM src WHERE id % 9 = 0")
    pub.release()
    return con


def _md5(path):
    return hashlib.md5(path.read_bytes()).hexdigest()


def test_cli_exports_the_published_tables_only(tmp_path):
    db = tmp_path / "w.duckdb"
    _project(db, output="generalized").close()
    for fmt in ("parquet", "csv"):
        out = tmp_path / fmt
        r = CliRunner().invoke(main, ["export", "ward", "--db", str(db), "--to", str(out), "--format", fmt])
        assert r.exit_code == 0, r.output
        names = sorted(p.name for p in out.iterdir())
        assert names == [f"sqlanon_ward_{t}.{fmt}" for t in ("published", "qit", "st")]
    con = duckdb.connect(str(db), read_only=True)
    for t in ("qit", "st", "published"):
        for fmt, reader in (("parquet", "read_parquet"), ("csv", "read_csv")):
            f = tmp_path / fmt / f"sqlanon_ward_{t}.{fmt}"
            got = con.execute(f"SELECT * FROM {reader}(?) ORDER BY ALL", [str(f)]).fetchall()
            want = con.execute(f"SELECT * FROM sqlanon_ward_{t} ORDER BY ALL").fetchall()
            assert [tuple(map(str, r)) for r in got] == [tuple(map(str, r)) for r in want], (t, fmt)
            cols = [c for (c, *_) in con.execute(f"DESCRIBE SELECT * FROM {reader}(?)", [str(f)]).fetchall()]
            assert not {"id", "is_counterfeit", "sqlanon__id"} & set(cols)
    con.close()


def test_private_tables_cannot_be_asked_for():
    con = _project(None)
    for key in ("mem", "ledger", "persons", "chains", "secret", "membership"):
        with pytest.raises(sqlanon.SqlanonError, match="only the published tables can be exported"):
            export(con, "ward", "/nonexistent/never-created", tables=[key])


def test_cli_export_errors(tmp_path):
    db = tmp_path / "w.duckdb"
    _project(db).close()
    run = CliRunner().invoke
    r = run(main, ["export", "nope", "--db", str(db), "--to", str(tmp_path / "x")])
    assert r.exit_code == 2 and "no releases" in r.output
    r = run(main, ["export", "ward", "--db", str(db), "--to", str(tmp_path / "y"), "--format", "xlsx"])
    assert r.exit_code == 2
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_an_old_layout_is_refused(tmp_path):
    con = _project(None)
    con.execute("CREATE TABLE main.sqlanon_ward_membership AS SELECT * FROM sqlanon_private.ward_membership")
    with pytest.raises(sqlanon.SqlanonError, match="sqlanon migrate ward"):
        export(con, "ward", tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("output,model", [("anatomy", "m-invariance"), ("generalized", "m-invariance"),
                                          ("anatomy", "dynamic-anatomy")])
def test_file_order_depends_only_on_published_content(tmp_path, output, model):
    """Rewrite every published table in the most leaking order there is (each
    group's rows sorted by the true SA of the person behind them, read from the
    private membership) and export again: the files are byte-identical to the
    export of the project as the publisher stored it, and each file is sorted
    by its own public columns - so the file order tells nothing the file's
    content does not."""
    con = _project(None, output=output, model=model)
    before = export(con, "ward", tmp_path / "a", format="csv")
    p = Project("ward")
    keys = ["qit", "st"] + (["pub"] if output == "generalized" else [])
    # the adversarial storage: qit rows matched to their person's true SA (QI unique, so by QI)
    con.execute("CREATE TEMP TABLE truth AS SELECT m.release, m.group_id, s.age, s.zip, m.disease "
                "FROM sqlanon__membership_rows('ward') AS m JOIN src AS s USING (id)")
    con.execute(f"CREATE OR REPLACE TABLE {p.ref('qit')} AS SELECT q.* FROM {p.ref('qit')} AS q LEFT JOIN truth "
                "USING (release, group_id, age, zip) ORDER BY q.release, q.group_id, truth.disease DESC NULLS LAST")
    con.execute(f"CREATE OR REPLACE TABLE {p.ref('st')} AS SELECT * FROM {p.ref('st')} "
                "ORDER BY release, group_id, disease DESC")
    if output == "generalized":
        con.execute(f"CREATE OR REPLACE TABLE {p.ref('pub')} AS SELECT * FROM {p.ref('pub')} ORDER BY random()")
    after = export(con, "ward", tmp_path / "b", format="csv")
    assert [(f.name, n) for f, n in before] == [(f.name, n) for f, n in after]
    for (fa, _), (fb, _) in zip(before, after):
        assert _md5(fa) == _md5(fb), fa.name
    # and the storage really was leaking: in file-of-storage order, the first
    # row of each group is the one with the greatest true SA
    leak = con.execute(f"SELECT count(*) FROM (SELECT first(age) AS age, first(zip) AS zip, release, group_id "
                       f"FROM {p.ref('qit')} GROUP BY release, group_id) JOIN truth USING (release, group_id, age, "
                       "zip) WHERE disease = (SELECT max(t.disease) FROM truth t WHERE t.release = truth.release "
                       "AND t.group_id = truth.group_id)").fetchall()[0][0]
    groups = con.execute(f"SELECT count(DISTINCT (release, group_id)) FROM {p.ref('qit')}").fetchall()[0][0]
    assert leak > 0.6 * groups
    for (f, _), key in zip(before, keys):
        rows = con.execute("SELECT * FROM read_csv(?, all_varchar = true)", [str(f)]).fetchall()
        ordered = con.execute(f"SELECT * FROM {p.ref(key)} ORDER BY {_public_order(key)}").fetchall()
        assert rows == [tuple(map(str, r)) for r in ordered], key


def _public_order(key):
    return {"qit": "release, group_id, hash(age, zip), age, zip", "st": "release, group_id, disease, count",
            "pub": "release, group_id, disease, age, zip"}[key]
