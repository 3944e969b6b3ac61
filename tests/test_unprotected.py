"""The `unprotected` model (sqlanon/models/unprotected.py, sql/unprotected/):
every row published as it is, a baseline the audit must flag. Also the
acceptance of issue 14's model seam: it is one module plus one template folder."""

from __future__ import annotations

import duckdb
from click.testing import CliRunner

import sqlanon
from sqlanon.cli import main
from sqlanon.models import MODELS


def _source(con) -> None:
    # 40 persons with distinct QI (age): linking by QI reads each one's SA value
    con.execute("CREATE OR REPLACE TABLE src AS SELECT range AS id, 20 + range AS age, "
                "'d' || (range % 4) AS disease FROM range(40)")


def test_registered_with_its_parameter():
    spec = MODELS["unprotected"]
    assert (spec.pipeline, spec.parameter, spec.outputs, spec.gated) == ("unprotected", "m", ("anatomy",), False)


def test_publishes_every_row_and_the_audit_flags_it(con):
    _source(con)
    r1 = sqlanon.Publisher(con, "u", source="src", id="id", qi=["age"], sa="disease", model="unprotected", m=3).release()
    assert (r1.release, r1.published, r1.groups, r1.counterfeits, r1.new, r1.ncp) == (1, 40, 40, 0, 40, 0.0)
    # the release gate only reports: every person is narrowed to one value
    assert r1.unsafe_baseline and r1.exposed == 40 and r1.line().endswith("| unsafe baseline")
    # the published tables are the source: QI table + sensitive table, one group per person
    joined = con.execute("SELECT q.age, s.disease, s.count FROM sqlanon_u_qit q JOIN sqlanon_u_st s "
                         "USING (release, group_id) ORDER BY q.age").fetchall()
    assert joined == [(20 + i, f"d{i % 4}", 1) for i in range(40)]
    con.execute("DELETE FROM src WHERE id < 4")
    con.execute("UPDATE src SET disease = 'd9' WHERE id = 10")
    con.execute("INSERT INTO src VALUES (100, 70, 'd1')")
    r2 = sqlanon.Publisher.open(con, "u").release()
    assert (r2.release, r2.published, r2.survivors, r2.new, r2.deleted, r2.updated) == (2, 37, 35, 1, 4, 1)
    assert len({g for (g,) in con.execute("SELECT group_id FROM sqlanon__membership_rows('u')").fetchall()}) == 77
    report = sqlanon.audit(con, "u", 3)
    assert report.verdict != "safe" and report.n_disclosures >= 37


def test_cli_model_choice_from_the_registry(tmp_path):
    db = tmp_path / "u.duckdb"
    con = duckdb.connect(str(db))
    _source(con)
    con.close()
    run = CliRunner().invoke
    r = run(main, ["release", str(db), "u", "--source", "src", "--id", "id", "--qi", "age", "--sa", "disease",
                   "--model", "unprotected"])
    assert r.exit_code == 2 and "needs --m" in r.output
    r = run(main, ["release", str(db), "u", "--source", "src", "--id", "id", "--qi", "age", "--sa", "disease",
                   "--model", "unprotected", "--m", "3"])
    assert r.exit_code == 0 and "EXPOSED 40" in r.output, r.output
    r = run(main, ["audit", str(db), "u"])
    assert r.exit_code == 1, r.output  # findings
