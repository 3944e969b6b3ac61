"""sqlanon from dbt (docs/dbt.md): the dbt package's generated macro file is
current, ``sqlanon.dbt.release`` on a real DuckDB file, and the example dbt
project (examples/dbt) built by the real dbt (dbt-duckdb, the ``dbt`` extra)
in a temporary copy: releases made from dbt, sqlanon's generic tests passing on
them and failing on the raw source, the file opened by the real DuckDB shell."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import sqlanon
import sqlanon.dbt
from sqlanon.errors import SqlanonError
from sqlanon.install import dbt_bundle

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "integrations" / "dbt"
EXAMPLE = ROOT / "examples" / "dbt"
WARD = {"project": "ward", "source": "patients", "id": "id", "qi": ["age", "zip"], "sa": "disease",
        "model": "m-invariance", "output": "generalized", "m": 3, "seed": 7}


def test_dbt_macro_file_is_generated_from_macros():
    assert (PACKAGE / "macros" / "sqlanon_sql.sql").read_text() == dbt_bundle(), (
        "regenerate it: sqlanon macros --dbt > integrations/dbt/macros/sqlanon_sql.sql")


def _patients(con, n=300, day=1):
    """The example's source (examples/dbt/models/patients.sql), as a table."""
    sql = (EXAMPLE / "models" / "patients.sql").read_text().replace("{{ var('day') }}", str(day))
    sql = "\n".join(line for line in sql.splitlines() if not line.startswith("--")).replace("range(600)", f"range({n})")
    con.execute(f"CREATE OR REPLACE TABLE patients AS {sql}")


class _Wrapper:
    """What dbt-duckdb hands a Python model: a wrapper whose cursor() is a DuckDB connection."""

    def __init__(self, con):
        self._con = con

    def cursor(self):
        return self._con.cursor()


def test_release_on_a_session(tmp_path, caplog):
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))  # as dbt opens it without config_options: 2.0 format, no sqlanon macros yet
    _patients(con)
    with caplog.at_level("WARNING", logger="sqlanon"):
        out = sqlanon.dbt.release(_Wrapper(con), WARD)
    assert "storage_compatibility_version: v1.5.0" in caplog.text
    assert list(out["project"]) == ["ward"] and list(out["release"]) == [1]
    assert out.loc[0, "published"] == con.execute("SELECT count(*) FROM sqlanon_ward_qit").fetchone()[0] == 300
    con.execute("DELETE FROM patients WHERE id % 10 = 0")
    out = sqlanon.dbt.release(con, WARD)  # a plain connection works too
    assert list(out["release"]) == [2] and out.loc[0, "deleted"] == 30
    assert sqlanon.audit(con, "ward", 3).verdict == "safe"


def test_release_on_a_shell_readable_file_does_not_warn(tmp_path, caplog):
    con = duckdb.connect(str(tmp_path / "w.duckdb"), config={"storage_compatibility_version": "v1.5.0"})
    _patients(con)
    with caplog.at_level("WARNING", logger="sqlanon"):
        assert list(sqlanon.dbt.release(con, WARD)["release"]) == [1]
    assert "storage" not in caplog.text


def test_release_bad_config_leaves_the_file_as_it_was(tmp_path):
    path = tmp_path / "w.duckdb"
    con = sqlanon.connect(path)
    _patients(con)
    con.close()
    before = path.read_bytes()
    con = duckdb.connect(str(path))
    with pytest.raises(SqlanonError, match="has no 'sa'"):
        sqlanon.dbt.release(con, {k: v for k, v in WARD.items() if k != "sa"})
    with pytest.raises(SqlanonError, match="must be a mapping"):
        sqlanon.dbt.release(con, "{'project': 'ward'}")
    with pytest.raises(SqlanonError, match="nope"):
        sqlanon.dbt.release(con, WARD | {"qi": ["age", "nope"]})
    with pytest.raises(SqlanonError, match="needs dbt-duckdb's session"):
        sqlanon.dbt.release(object(), WARD)
    con.close()
    assert path.read_bytes() == before


# --- the example project, built by the real dbt ------------------------------------------------------------------

def _dbt() -> str:
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    found = shutil.which("dbt", path=path)
    if found is None:
        if os.environ.get("SQLANON_EXPECT_INSTALLED") == "1":
            pytest.fail("dbt is not installed (run.sh test installs the dbt extra: dbt-duckdb)")
        pytest.skip("dbt (the dbt extra) not installed")
    return found


def _run(dbt, folder, *args):
    env = dict(os.environ, DBT_SEND_ANONYMOUS_USAGE_STATS="false", DBT_PROFILES_DIR=str(folder),
               SQLANON_DBT_PACKAGE=str(PACKAGE), SQLANON_DBT_DATABASE=str(folder / "ward.duckdb"))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    proc = subprocess.run([dbt, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    results = folder / "target" / "run_results.json"
    by_name = {}
    if args[0] != "deps" and results.exists():
        for r in json.loads(results.read_text())["results"]:
            by_name[r["unique_id"].split(".")[2]] = r
    return proc, by_name


def _status(results, prefix):
    [r] = [r for name, r in results.items() if name.startswith(prefix)]
    return r["status"], r["failures"], r["message"] or ""


@pytest.mark.slow
@pytest.mark.dbt
def test_example_dbt_project_builds_releases_and_tests_them(tmp_path, duckdb_shell):
    dbt = _dbt()
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb*"))
    proc, _ = _run(dbt, folder, "deps")
    assert proc.returncode == 0, proc.stdout + proc.stderr

    for day in (1, 2):
        proc, results = _run(dbt, folder, "build", "--vars", f"{{day: {day}}}")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        statuses = {name: r["status"] for name, r in results.items()}
        assert statuses["ward_release"] == "success"
        # every test on the release passes; the raw source is reported (severity warn) as not anonymous
        for name, status in statuses.items():
            if name.startswith("sqlanon_") and "_patients_" not in name:
                assert status == "pass", (name, results[name]["message"])
        assert _status(results, "sqlanon_k_anonymity_patients")[0] == "warn"
        assert _status(results, "sqlanon_reidentification_risk_patients")[0] == "warn"

    db = folder / "ward.duckdb"
    con = duckdb.connect(str(db), read_only=True)
    try:
        # two releases made from dbt, recorded in the ledger
        assert con.execute("SELECT count(*) FROM sqlanon_private.ward__ledger").fetchone()[0] == 2
        assert con.execute("SELECT list(DISTINCT release ORDER BY release) FROM sqlanon_ward_qit").fetchone()[0] == [1, 2]
        assert con.execute("SELECT release FROM ward_release").fetchone()[0] == 2
        # the raw source: the warn test's count = groups of fewer than 3 rows, counted in pandas
        raw = con.execute("SELECT * FROM patients").df()
        small_groups = int((raw.groupby(["age", "zip"]).size() < 3).sum())
        assert small_groups > 0
        assert _status(results, "sqlanon_k_anonymity_patients")[1] == small_groups
        # the latest release (what the passing tests read), checked in pandas
        pub = con.execute("SELECT * FROM sqlanon_ward_published WHERE release = 2").df()
        g = pub.groupby(["age", "zip"])
        assert g.size().min() >= 3 and g["disease"].nunique().min() >= 3
        assert len(con.execute("SELECT * FROM ward_latest").df()) == len(pub)
    finally:
        con.close()

    # the file dbt created opens in the DuckDB shell users install, with sqlanon's macros stored in it
    shell = subprocess.run([duckdb_shell, "-readonly", "-csv", str(db), "-c",
                            "SELECT k FROM sqlanon_k_anonymity('ward_latest', ['age', 'zip'])"],
                           capture_output=True, text=True, timeout=120)
    assert shell.returncode == 0, shell.stderr
    assert int(shell.stdout.split()[-1]) == g.size().min()

    # the tests can fail: error-severity tests on a copy of the raw source and an audit against a larger m
    (folder / "models" / "raw_patients.sql").write_text("SELECT * FROM {{ ref('patients') }}")
    failing = """
version: 2
models:
  - name: raw_patients
    data_tests:
      - sqlanon.k_anonymity: {arguments: {qi: [age, zip], k: 2}}
      - sqlanon.l_diversity: {arguments: {qi: [age, zip], sa: disease, l: 2}}
      - sqlanon.t_closeness: {arguments: {qi: [age, zip], sa: disease, t: 0.5}}
      - sqlanon.reidentification_risk: {arguments: {qi: [age], threshold: 0.01, max_share: 0.5}}
      - sqlanon.k_anonymity: {arguments: {qi: [age, nope], k: 2}}
      - sqlanon.releases_pass_audit: {arguments: {project: ward, m: 7}}
"""
    (folder / "models" / "must_fail.yml").write_text(failing)
    proc, results = _run(dbt, folder, "build", "--select", "raw_patients")
    assert proc.returncode == 1
    singles = int((raw.groupby(["age", "zip"]).size() < 2).sum())
    assert _status(results, "sqlanon_k_anonymity_raw_patients_2__age__zip")[:2] == ("fail", singles)
    assert _status(results, "sqlanon_l_diversity_raw_patients")[:2] == (
        "fail", int((raw.groupby(["age", "zip"])["disease"].nunique() < 2).sum()))
    # t-closeness: one row (the largest distance) when a group is farther than t; each raw row is its own group
    assert _status(results, "sqlanon_t_closeness_raw_patients")[:2] == ("fail", 1)
    assert _status(results, "sqlanon_reidentification_risk_raw_patients")[:2] == ("fail", 1)
    status, _, message = _status(results, "sqlanon_k_anonymity_raw_patients_2__age__nope")
    assert status == "error" and 'column "nope"' in message
    # the audit at m = 7 of releases made with m = 3: every finding of the Python audit's SQL checks
    con = duckdb.connect(str(db), read_only=True)
    try:
        sqlanon.install(con)  # read-only: temporary macros
        report = sqlanon.audit(con, "ward", 7)
        expected = sum(report.counts[c] for c in ("intersection", "collusion", "signature", "comparison"))
    finally:
        con.close()
    assert expected > 0
    assert _status(results, "sqlanon_releases_pass_audit_raw_patients")[:2] == ("fail", expected)

    # a bad argument stops dbt when it parses the project, naming the argument
    (folder / "models" / "must_fail.yml").write_text(
        failing + "      - sqlanon.l_diversity: {arguments: {qi: [age], sa: disease, l: two}}\n")
    proc, _ = _run(dbt, folder, "parse")
    assert proc.returncode == 2 and "sqlanon: test argument l must be an integer >= 1, got two" in proc.stdout
