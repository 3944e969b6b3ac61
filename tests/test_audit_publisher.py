"""Acceptance (issue 5): the audit reports nothing on the releases that
sqlanon's own publisher (issue 4, `sqlanon.Publisher`) makes, over a dynamic
history with inserts, deletes, re-inserts and updates, while it does report
disclosures for the naive publisher on the same history."""

from __future__ import annotations

import pytest

import sqlanon
import sqlanon.naive as naive
from sqlanon.histories import snapshot
from sqlanon.datasets import load_adult

QI = ["age", "sex", "race", "marital_status"]
M = 4
RELEASES = 5


def _history_source(con):
    load_adult(con, "adult", part="data", complete=True)
    con.execute("CREATE TABLE pool AS SELECT * FROM adult WHERE id <= 4000")


@pytest.mark.slow
@pytest.mark.parametrize("output", ["anatomy", "generalized"])
def test_audit_finds_nothing_in_sqlanon_releases(con, output):
    publisher = sqlanon.Publisher
    _history_source(con)
    pub = None
    for t in range(1, RELEASES + 1):
        snapshot(con, "pool", "src", t, sa="occupation", n_releases=RELEASES, seed=7)
        if pub is None:
            pub = publisher(con, "mi", source="src", id="id", qi=QI, sa="occupation", model="m-invariance",
                            m=M, output=output, seed=7)
        pub.release()
    classes = {c for r in range(1, RELEASES) for (c,) in con.execute(
        "SELECT DISTINCT class FROM sqlanon_release_diff('mi', ?, ?)", [r, r + 1]).fetchall()}
    assert {"survivor", "new", "deleted", "updated", "reinserted"} <= classes
    report = sqlanon.audit(con, "mi", M)
    assert report.verdict == "safe", report.summary() + "\n" + report.findings.head(20).to_string()

    # the same history through the naive publisher is not safe
    for t in range(1, RELEASES + 1):
        snapshot(con, "pool", "src", t, sa="occupation", n_releases=RELEASES, seed=7)
        naive.publish(con, "nv", "src", qi=QI, sa="occupation", l=M, seed=7)
    assert sqlanon.audit(con, "nv", M).n_disclosures > 0
