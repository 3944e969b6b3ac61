"""The audit on the papers' examples: seed 000 Fig. 1 and seed 004 §3 (every
comparison attack on an example built from the paper's Tables 1/5-7, and the
§3.4 partition-changing example with Tables 9/10 and 12), plus the Python API,
the CLI and bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest

import sqlanon
from sqlanon import SqlanonError

# ---------------------------------------------------------------- seed 000 Fig. 1


def _fig1(con, second: str) -> None:
    """Fig. 1 as generalized releases: (a) then (b) or (c). Ids 1..4 as in the figure."""
    a = [(1, 1, "[18-20]", "HIV"), (1, 2, "[18-20]", "FLU")]
    b = [(1, 1, "[18-19]", "HIV"), (1, 3, "[18-19]", "ACNE"), (2, 2, "[20-21]", "FLU"), (2, 4, "[20-21]", "COUCH")]
    c = [(1, 1, "[18-20]", "HIV"), (1, 2, "[18-20]", "FLU"), (2, 3, "[19-21]", "ACNE"), (2, 4, "[19-21]", "COUCH")]
    con.execute(
        "CREATE TABLE sqlanon_fig1_published(release INTEGER, group_id BIGINT, age VARCHAR, disease VARCHAR);"
        "CREATE SCHEMA IF NOT EXISTS sqlanon_private; CREATE TABLE sqlanon_private.fig1_membership(release INTEGER, id BIGINT, group_id BIGINT, is_counterfeit BOOLEAN, disease VARCHAR);"
    )
    for r, rows in ((1, a), (2, b if second == "b" else c)):
        for g, pid, age, dis in rows:
            con.execute("INSERT INTO sqlanon_fig1_published VALUES (?, ?, ?, ?)", [r, g, age, dis])
            con.execute("INSERT INTO sqlanon_private.fig1_membership VALUES (?, ?, ?, false, ?)", [r, pid, g, dis])
    # the anatomized view of the same releases (st), for the SQL macros
    con.execute(
        "CREATE TABLE sqlanon_fig1_st AS SELECT release, group_id, disease, count(*) AS count "
        "FROM sqlanon_fig1_published GROUP BY ALL"
    )


def test_fig1_b_after_a_discloses_the_age_18_person(con):
    _fig1(con, "b")
    rows = con.execute("SELECT id, candidates, disclosed FROM sqlanon_intersection_attack('fig1', 2)").fetchall()
    assert (1, ["HIV"], True) in rows  # the age-18 person (id 1) narrowed to HIV
    assert {r[0] for r in rows} == {1, 2}  # id 2 is narrowed to FLU the same way
    report = sqlanon.audit(con, "fig1", 2)
    assert report.verdict == "unsafe"
    assert report.n_disclosures == 2
    changed = con.execute(
        "SELECT id FROM sqlanon_signature_violations('fig1', 2) WHERE violation = 'signature_changed'"
    ).fetchall()
    assert sorted(changed) == [(1,), (2,)]


def test_fig1_c_after_a_is_safe(con):
    _fig1(con, "c")
    assert con.execute("SELECT * FROM sqlanon_intersection_attack('fig1', 2)").fetchall() == []
    report = sqlanon.audit(con, "fig1", 2)
    assert report.verdict == "safe", report.summary()
    assert report.n_disclosures == 0
    assert "comparison" in report.skipped  # no QI table: generalized releases


def test_generalized_only_project_is_read_through_published(con):
    _fig1(con, "b")
    con.execute("DROP TABLE sqlanon_fig1_st")
    report = sqlanon.audit(con, "fig1", 2)
    assert report.n_disclosures == 2
    # the temporary view is gone again: nothing left behind
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'sqlanon_fig1_st'").fetchall() == [(0,)]


def test_release_diff_classes(con):
    con.execute(
        "CREATE SCHEMA IF NOT EXISTS sqlanon_private; CREATE TABLE sqlanon_private.d_membership(release INTEGER, id INTEGER, group_id BIGINT, is_counterfeit BOOLEAN, sa VARCHAR);"
        "INSERT INTO sqlanon_private.d_membership VALUES "
        "(1, 1, 1, false, 'a'), (1, 2, 1, false, 'b'), (1, 3, 1, false, 'c'), (1, NULL, 1, true, 'd'),"
        "(2, 1, 1, false, 'a'), (2, 2, 1, false, 'x'), (2, 5, 2, false, 'e'),"
        "(3, 1, 1, false, 'a'), (3, 3, 1, false, 'c'), (3, 4, 1, false, 'd'), (3, 5, 2, false, 'e');"
        "CREATE TABLE sqlanon_d_st AS SELECT release, group_id, sa, count(*) AS count FROM sqlanon_private.d_membership GROUP BY ALL"
    )
    d12 = dict(con.execute("SELECT * FROM sqlanon_release_diff('d', 1, 2)").fetchall())
    assert d12 == {1: "survivor", 2: "updated", 3: "deleted", 5: "new"}
    d23 = dict(con.execute("SELECT * FROM sqlanon_release_diff('d', 2, 3)").fetchall())
    assert d23 == {1: "survivor", 2: "deleted", 3: "reinserted", 4: "new", 5: "survivor"}
    d13 = dict(con.execute("SELECT * FROM sqlanon_release_diff('d', 1, 3)").fetchall())
    assert d13 == {1: "survivor", 2: "deleted", 3: "survivor", 4: "new", 5: "new"}
    with pytest.raises(Exception, match="smaller than release b"):
        con.execute("SELECT * FROM sqlanon_release_diff('d', 3, 1)").fetchall()


def test_collusion_over_non_consecutive_releases(con):
    """Seed 003 §1.1: p3's signatures at times 1 and 3 share SSM-pos only."""
    rows = [
        (1, 3, 1, "SSM-pos"), (1, 9, 1, "Flu"),
        (2, 3, 1, "Glaucoma"), (2, 9, 1, "Diarrhea"),
        (3, 3, 1, "SSM-pos"), (3, 9, 1, "Dyspepsia"),
    ]
    con.execute(
        "CREATE SCHEMA IF NOT EXISTS sqlanon_private; CREATE TABLE sqlanon_private.c_membership(release INTEGER, id INTEGER, group_id BIGINT, is_counterfeit BOOLEAN, disease VARCHAR)"
    )
    con.executemany("INSERT INTO sqlanon_private.c_membership VALUES (?, ?, ?, false, ?)", rows)
    con.execute(
        "CREATE TABLE sqlanon_c_st AS SELECT release, group_id, disease, count(*) AS count FROM sqlanon_private.c_membership GROUP BY ALL"
    )
    got = con.execute("SELECT id, releases_a, releases_b, common FROM sqlanon_collusion_violations('c', 2)").fetchall()
    assert (3, [1], [3], ["SSM-pos"]) in got
    # consecutive releases: the update is exempt (new signature disjoint from the old one)
    assert con.execute(
        "SELECT * FROM sqlanon_signature_violations('c', 2) WHERE id = 3 AND violation = 'signature_changed'"
    ).fetchall() == []


# ---------------------------------------------------------------- seed 004 §3

T6 = {  # Tables 5/6/7: l = 3 partitions of Table 2
    1: [(45, "Male", "60636", "Flu"), (46, "Male", "60632", "Fever"), (47, "Male", "60635", "Cancer"), (48, "Male", "60639", "Cancer")],
    2: [(48, "Female", "60632", "Cancer"), (42, "Female", "60632", "HIV"), (42, "Female", "60632", "Fever")],
    3: [(41, "Female", "60636", "Cancer"), (40, "Female", "60636", "HIV"), (39, "Female", "60636", "HIV"),
        (38, "Female", "60639", "Fever"), (37, "Female", "60639", "Cancer")],
}
M45, M46, M47, M48 = T6[1]
F41, F40, F39, F38, F37 = T6[3]


def _anatomy(con, project, releases):
    con.execute(
        f"CREATE TABLE sqlanon_{project}_qit(release INTEGER, group_id BIGINT, age INTEGER, sex VARCHAR, zipcode VARCHAR);"
        f"CREATE TABLE sqlanon_{project}_st(release INTEGER, group_id BIGINT, disease VARCHAR, count BIGINT);"
    )
    for r, groups in enumerate(releases, start=1):
        for g, rows in groups.items():
            for age, sex, zc, dis in rows:
                con.execute(f"INSERT INTO sqlanon_{project}_qit VALUES (?, ?, ?, ?, ?)", [r, g, age, sex, zc])
            con.executemany(
                f"INSERT INTO sqlanon_{project}_st VALUES (?, ?, ?, ?)",
                [[r, g, d, sum(1 for x in rows if x[3] == d)] for d in sorted({x[3] for x in rows})],
            )


def _attacks(con, project, l):
    return con.execute(
        f"SELECT attack, groups_old, groups_new, targets, inferred, inferred_before FROM sqlanon_comparison_attacks('{project}', {l})"
    ).fetchall()


def test_partition_changing_table9_after_table6(con):
    t9 = {1: [M45, M46, M47], 2: [M48, (49, "Male", "60639", "Cancer"), (50, "Male", "60639", "HIV"), (51, "Male", "60639", "Flu")],
          3: T6[2], 4: T6[3]}
    _anatomy(con, "p", [T6, t9])
    assert _attacks(con, "p", 3) == [("partition changing", [1], [1], ["(48, Male, 60639)"], ["Cancer"], None)]
    assert len(con.execute("SELECT * FROM sqlanon_partition_changing_attacks('p', 3)").fetchall()) == 1
    assert con.execute("SELECT * FROM sqlanon_insertion_attacks('p', 3)").fetchall() == []


def test_table12_after_table5_is_not_flagged(con):
    t12 = {1: T6[1], 2: T6[3], 3: [(51, "Female", "60635", "Cancer"), (52, "Female", "60635", "HIV"), (53, "Female", "60635", "Flu")]}
    _anatomy(con, "p", [T6, t12])
    assert _attacks(con, "p", 3) == []


NEW49 = (49, "Male", "60639", "Cancer")


# every comparison attack on an example: (name, the second release, l, the expected findings)
COMPARISON_EXAMPLES = [
    # iFRCA: a record added to partition 1; Table 6's partition 1 is fully covered
    ("iFRCA", {1: T6[1] + [NEW49], 2: T6[2], 3: T6[3]}, 3,
     [("iFRCA", [1], [1], ["(49, Male, 60639)"], ["Cancer"], None)]),
    # iMRCA: partition 1 split into two, the new record only in the first
    ("iMRCA", {1: [M45, M47, NEW49], 2: [M46, M48], 3: T6[2], 4: T6[3]}, 2,
     [("iMRCA", [1], [1, 2], ["(49, Male, 60639)"], ["Cancer"], None)]),
    # iMRcMLA: partitions 1 and 3 regrouped into three, one new record (HIV)
    ("iMRcMLA", {1: [M45, F41, (49, "Male", "60639", "HIV")], 2: [M46, M47, F40, F38], 3: [M48, F39, F37], 4: T6[2]}, 2,
     [("iMRcMLA", [1, 3], [1, 2, 3], ["(49, Male, 60639)"], ["HIV"], None)]),
    # dFLCA: (48, Male) deleted from partition 1
    ("dFLCA", {1: [M45, M46, M47], 2: T6[2], 3: T6[3]}, 3,
     [("dFLCA", [1], [1], ["(48, Male, 60639)"], ["Cancer"], None)]),
    # dMLCA: partitions 1 and 3 merged, (48, Male) deleted
    ("dMLCA", {1: [M45, M46, M47] + T6[3], 2: T6[2]}, 3,
     [("dMLCA", [1, 3], [1], ["(48, Male, 60639)"], ["Cancer"], None)]),
    # dMLcMRA: partitions 1 and 3 regrouped into two, (48, Male) deleted
    ("dMLcMRA", {1: [M45, M46, F41, F40], 2: [M47, F39, F38, F37], 3: T6[2]}, 3,
     [("dMLcMRA", [1, 3], [1, 2], ["(48, Male, 60639)"], ["Cancer"], None)]),
    # SVM: (47, Male) updated from Cancer to HIV, same partition
    ("SVM", {1: [M45, M46, (47, "Male", "60635", "HIV"), M48], 2: T6[2], 3: T6[3]}, 3,
     [("SVM", [1], [1], ["(45, Male, 60636)", "(46, Male, 60632)", "(47, Male, 60635)", "(48, Male, 60639)"],
       ["HIV"], ["Cancer"])]),
]


@pytest.mark.parametrize("name, new, l, expected", COMPARISON_EXAMPLES)
def test_each_comparison_attack_on_its_example(con, name, new, l, expected):
    _anatomy(con, "p", [T6, new])
    assert _attacks(con, "p", l) == expected
    family = {"i": "insertion", "d": "deletion", "S": "update"}[name[0]]
    assert len(con.execute(f"SELECT * FROM sqlanon_{family}_attacks('p', {l})").fetchall()) == 1


def test_unchanged_release_has_no_comparison_findings(con):
    _anatomy(con, "p", [T6, T6, T6])
    assert _attacks(con, "p", 3) == []


def test_larger_l_hides_nothing_smaller_l_flags_less(con):
    # dFLCA removing two records with two distinct values: flagged for l = 3, not for l = 2
    _anatomy(con, "p", [T6, {1: [M47, M48], 2: T6[2], 3: T6[3]}])
    assert [r[0] for r in _attacks(con, "p", 3)] == ["dFLCA"]
    assert _attacks(con, "p", 2) == []


def test_ambiguous_qi_is_not_linked(con):
    """(42, Female, 60632) appears twice in Table 6: the adversary cannot link it."""
    _anatomy(con, "p", [T6, {1: T6[1], 2: T6[2][1:], 3: T6[3]}])  # drop (48, Female) from partition 2
    rows = _attacks(con, "p", 3)
    assert rows == []  # partition 2 of release 2 holds only unlinkable records


# ---------------------------------------------------------------- API, CLI, errors


def test_audit_report_on_seed004_example(con):
    _anatomy(con, "p", [T6, {1: [M45, M46, M47], 2: T6[2], 3: T6[3]}])
    con.execute(
        "CREATE SCHEMA IF NOT EXISTS sqlanon_private; CREATE TABLE sqlanon_private.p_membership AS SELECT q.release, row_number() OVER (ORDER BY age, sex, zipcode) AS id, "
        "q.group_id, false AS is_counterfeit, NULL::VARCHAR AS disease FROM sqlanon_p_qit q WHERE false"
    )
    report = sqlanon.audit(con, "p", 3)
    assert report.counts["comparison"] == 1
    assert report.n_disclosures == 1
    f = report.findings
    assert list(f.loc[f["check"] == "comparison", "kind"]) == ["dFLCA"]
    assert "dFLCA 1" in report.summary()


def test_audit_errors_name_the_problem(con):
    with pytest.raises(SqlanonError, match="sqlanon_private.nope_membership"):
        sqlanon.audit(con, "nope", 2)
    with pytest.raises(SqlanonError, match="project name"):
        sqlanon.audit(con, "x; DROP TABLE y", 2)
    with pytest.raises(SqlanonError, match="m must be an integer >= 2"):
        sqlanon.audit(con, "p", 1)


def test_cli_audit(tmp_path):
    db = tmp_path / "fig1.duckdb"
    con = sqlanon.connect(db)
    _fig1(con, "b")
    con.close()
    run = subprocess.run(
        [sys.executable, "-m", "sqlanon.cli", "audit", str(db), "fig1", "--m", "2", "--csv", str(tmp_path / "f.csv")],
        capture_output=True, text=True,
    )
    assert run.returncode == 1, run.stderr
    assert "verdict: unsafe - 2 disclosures" in run.stdout
    assert (tmp_path / "f.csv").read_text().startswith("check,kind,id")
    run = subprocess.run(
        [sys.executable, "-m", "sqlanon.cli", "audit", str(db), "nope", "--m", "2"], capture_output=True, text=True
    )
    assert run.returncode == 2 and "no project 'nope'" in run.stderr and "its projects: fig1" in run.stderr


def test_macros_run_in_the_duckdb_cli(tmp_path, duckdb_shell):
    cli = duckdb_shell
    from sqlanon.install import bundle

    script = tmp_path / "all.sql"
    script.write_text(
        bundle()
        + "\nCREATE TABLE sqlanon_p_qit AS SELECT * FROM (VALUES (1, 1::BIGINT, 45, 'M'), (1, 1, 46, 'M'), (2, 1, 45, 'M')) t(release, group_id, age, sex);"
        + "\nCREATE TABLE sqlanon_p_st AS SELECT * FROM (VALUES (1, 1::BIGINT, 'Flu', 1::BIGINT), (1, 1, 'HIV', 1), (2, 1, 'Flu', 1)) t(release, group_id, disease, count);"
        + "\nCREATE SCHEMA IF NOT EXISTS sqlanon_private; CREATE TABLE sqlanon_private.p_membership AS SELECT * FROM (VALUES (1, 1, 1::BIGINT, false, 'Flu'), (1, 2, 1, false, 'HIV'), (2, 1, 1, false, 'Flu')) t(release, id, group_id, is_counterfeit, disease);"
        + "\n.mode csv\nSELECT attack, inferred FROM sqlanon_comparison_attacks('p', 2);"
        + "\nSELECT id, class FROM sqlanon_release_diff('p', 1, 2);"
        + "\nSELECT count(*) FROM sqlanon_anatomy_groups('sqlanon_private.p_membership', 'id', 'disease', 2);\n"
    )
    out = subprocess.run([cli, "-c", f".read {script}"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "dFLCA,[HIV]" in out.stdout
    assert "2,deleted" in out.stdout


# ---------------------------------------------------------------- no false alarms


def _m_invariant_history(con, project, m, n_releases, seed):
    """A small m-invariant history written in the contract's shape: groups keep
    their signature for ever; a deleted person's slot is refilled by a new person
    with the same SA or by a counterfeit (own QI); new persons form new m-unique
    groups; deleted persons never come back."""
    import random

    rnd = random.Random(seed)
    sas = [f"s{i}" for i in range(m + 3)]
    next_id = [1]

    def person():
        next_id[0] += 1
        return next_id[0]

    groups: dict[int, list[list]] = {}  # group -> slots [sa, id or None]
    con.execute(
        f"CREATE TABLE sqlanon_{project}_qit(release INTEGER, group_id BIGINT, age INTEGER, zip VARCHAR);"
        f"CREATE TABLE sqlanon_{project}_st(release INTEGER, group_id BIGINT, disease VARCHAR, count BIGINT);"
        f"CREATE SCHEMA IF NOT EXISTS sqlanon_private; CREATE TABLE sqlanon_private.{project}_membership(release INTEGER, id INTEGER, group_id BIGINT, is_counterfeit BOOLEAN, disease VARCHAR);"
    )
    fake = [0]
    for r in range(1, n_releases + 1):
        for slots in groups.values():
            for slot in slots:
                if slot[1] is not None and rnd.random() < 0.3:
                    slot[1] = person() if rnd.random() < 0.5 else None
                elif slot[1] is None and rnd.random() < 0.5:
                    slot[1] = person()
        for _ in range(rnd.randint(1 if r == 1 else 0, 3)):
            groups[len(groups) + 1] = [[s, person()] for s in rnd.sample(sas, m)]
        for g, slots in groups.items():
            for sa, pid in slots:
                if pid is None:
                    fake[0] += 1
                    qi = (1000 + fake[0], f"f{fake[0]}")
                else:
                    qi = (pid, f"z{pid}")
                con.execute(f"INSERT INTO sqlanon_{project}_qit VALUES (?, ?, ?, ?)", [r, g, *qi])
                con.execute(f"INSERT INTO sqlanon_{project}_st VALUES (?, ?, ?, 1)", [r, g, sa])
                con.execute(
                    f"INSERT INTO sqlanon_private.{project}_membership VALUES (?, ?, ?, ?, ?)", [r, pid, g, pid is None, sa]
                )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_m_invariant_history_is_safe(con, seed):
    _m_invariant_history(con, "mi", 3, 5, seed)
    report = sqlanon.audit(con, "mi", 3)
    assert report.verdict == "safe", report.summary()
    # the history is not trivial: counterfeits, deletions and new persons
    assert con.execute("SELECT count(*) FROM sqlanon_private.mi_membership WHERE is_counterfeit").fetchall()[0][0] > 0
    classes = {c for r in range(1, 5) for (c,) in con.execute(
        "SELECT DISTINCT class FROM sqlanon_release_diff('mi', ?, ?)", [r, r + 1]).fetchall()}
    assert {"survivor", "deleted", "new"} <= classes
    # the same history audited with a larger m is not m-unique any more: the audit can fail
    assert sqlanon.audit(con, "mi", 4).verdict == "unsafe"


def test_report_temp_table_is_dropped(con):
    _fig1(con, "b")
    report = sqlanon.audit(con, "fig1", 2)
    assert len(report.findings) == report.counts["intersection"] + report.counts["collusion"] + report.counts["signature"]
    report.close()
    del report
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchall() == [(0,)]
