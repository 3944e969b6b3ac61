"""The model seam (issue 36 item 8, docs/architecture.md "How to add a
model"): a toy model defined outside the package - its own module and
template folder, tests/toy_model/ - registered through the public call
``sqlanon.models.register``, releases three times through
``sqlanon.Publisher``, its fourth release is refused by the release gate, and
``sqlanon.audit`` audits the three."""

from __future__ import annotations

import json

import pytest

import sqlanon
from sqlanon.models import MODELS, register, unregister
from toy_model import toy

M = 3


@pytest.fixture
def toy_model():
    register(toy.MODEL)
    yield toy.MODEL
    unregister(toy.MODEL.name)


def test_a_model_from_outside_the_package_releases_is_gated_and_audited(toy_model):
    con = sqlanon.connect()
    con.execute("CREATE TABLE src AS SELECT range AS id, 20 + range % 13 AS age, 'd' || (range % 3) AS disease "
                "FROM range(30)")
    pub = sqlanon.Publisher(con, "toy", source="src", id="id", qi=["age"], sa="disease", model=toy_model.name, m=M)
    results = [pub.release()]
    con.execute("INSERT INTO src SELECT range, 20 + range % 13, 'd' || (range % 3) FROM range(30, 36)")
    results.append(pub.release())
    con.execute("INSERT INTO src SELECT range, 20 + range % 13, 'd' || (range % 3) FROM range(36, 40)")  # d0 twice
    results.append(pub.release())

    # 10 persons of each value: 10 groups; 2 more; then one more and a d0 person held back
    assert [(r.release, r.published, r.groups, r.new, r.survivors, r.held, r.exposed) for r in results] == [
        (1, 30, 10, 30, 0, 0, 0), (2, 36, 12, 6, 30, 0, 0), (3, 39, 13, 3, 36, 1, 0)]
    # the contract's tables as the model defines them (checked from the source, not the model's state):
    # every group holds m persons of m distinct values, and a person keeps its group
    assert con.execute("SELECT count(*) FROM (SELECT release, group_id FROM sqlanon_toy_st GROUP BY ALL "
                       "HAVING count(DISTINCT disease) <> 3 OR count(*) <> 3)").fetchall() == [(0,)]
    assert con.execute("SELECT count(*) FROM (SELECT id FROM sqlanon_private.toy_membership GROUP BY id "
                       "HAVING count(DISTINCT group_id) > 1)").fetchall() == [(0,)]
    assert con.execute("SELECT count(*) FROM sqlanon__membership_rows('toy') AS m JOIN src USING (id) "
                       "WHERE m.release = 3 AND m.disease = src.disease").fetchall() == [(39,)]
    # the model's declared state table, named by the project, made by its template
    assert con.execute("SELECT count(*) FROM sqlanon_private.toy__toyrows").fetchall() == [(39,)]
    # the release gate ran on every release (its templates in the ledger's provenance, its state filled), and
    # the toy's templates came from its own folder, not counted as the project's overrides
    sha, over = con.execute("SELECT template_sha256, template_overrides FROM sqlanon_private.toy__ledger "
                            "WHERE release = 3").fetchall()[0]
    assert {"_gate/gate.sql.j2", "toy/01_snapshot.sql.j2", "toy/02_group.sql.j2"} <= set(json.loads(sha))
    assert json.loads(over) == []
    assert con.execute("SELECT count(*) FROM sqlanon_private.toy__chains").fetchall()[0][0] > 0

    # the model's hook refuses what the toy does not handle, through its StepContext; nothing is written
    con.execute("DELETE FROM src WHERE id = 5")
    with pytest.raises(sqlanon.SqlanonError, match="release 4: the toy model publishes inserts only; 1 persons"):
        pub.release()
    assert pub.last_release() == 3

    report = sqlanon.audit(con, "toy", M)
    assert report.releases == [1, 2, 3] and report.verdict == "safe", report


def test_register_checks_the_declaration(toy_model):
    assert MODELS[toy_model.name] is toy_model
    register(toy_model)  # the same model again: nothing changes
    clash = toy.Model("toy-two", "toy", "x", parameters=toy_model.parameters, tables={"toyrows": "__other"},
                      template_dir=toy_model.template_dir)
    with pytest.raises(sqlanon.SqlanonError, match="state table key 'toyrows' is another model's"):
        register(clash)
    core = toy.Model("toy-two", "toy", "x", parameters=toy_model.parameters, tables={"ledger": "__x"},
                     template_dir=toy_model.template_dir)
    with pytest.raises(sqlanon.SqlanonError, match="state table key 'ledger' is the Publisher's"):
        register(core)
    with pytest.raises(sqlanon.SqlanonError, match="is registered already"):
        register(toy.Model(toy_model.name, "toy", "x", parameters=toy_model.parameters))
    assert "toy-two" not in MODELS


def test_an_unregistered_model_is_named_in_the_error():
    con = sqlanon.connect()
    with pytest.raises(sqlanon.SqlanonError, match="unknown model 'toy-frozen'"):
        sqlanon.Publisher(con, "toy", source="src", id="id", qi=["age"], sa="disease", model="toy-frozen", m=3)
