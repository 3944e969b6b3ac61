"""The CLI says what happened (issue 37 item 3): a release of an unchanged
source gets a notice (--skip-unchanged makes none), `run --dry-run` shows a
release without writing, a misspelt project names the projects there, check
and status print numbers for people (exact ones in --json), `--help` starts
without DuckDB or pandas, and one vocabulary for published rows."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import duckdb
import pytest
from click.testing import CliRunner

import sqlanon
from sqlanon.cli import main

TOML = """\
project = "ward"
database = "my.duckdb"
source = "patients"
id = "id"
qi = ["age", "sex"]
sa = "disease"
model = "m-invariance"

[parameters]
m = 4
seed = 7
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project file and its database (source of 600 persons, no release yet); cwd = its folder."""
    con = sqlanon.connect(tmp_path / "my.duckdb")
    con.execute("CREATE TABLE patients AS SELECT range AS id, 20 + range % 50 AS age, ['x','y','z'][range % 3 + 1] "
                "AS sex, ['flu','hiv','cold','ulcer','angina'][range % 5 + 1] AS disease FROM range(600)")
    con.close()
    (tmp_path / "sqlanon.toml").write_text(TOML)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "my.duckdb"


def _cli(*args):
    return CliRunner().invoke(main, list(args))


def _ledger(db):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT release, published, counterfeits, groups FROM sqlanon_private.ward__ledger "
                           "ORDER BY release").fetchall()
    finally:
        con.close()


def _change(db, sql):
    con = duckdb.connect(str(db))
    con.execute(sql)
    con.close()


def test_a_release_of_an_unchanged_source_gets_a_notice(project):
    first = _cli("run")
    assert first.exit_code == 0, first.output
    assert "notice" not in first.output
    again = _cli("run")
    assert again.exit_code == 0, again.output
    assert "notice: the source 'patients' of project 'ward' has not changed since release 1" in again.stderr
    assert again.stdout.startswith("release   2:")
    assert [r[0] for r in _ledger(project)] == [1, 2]
    _change(project, "DELETE FROM patients WHERE id % 10 = 0")
    changed = _cli("run")
    assert changed.exit_code == 0 and "notice" not in changed.output


def test_skip_unchanged_makes_no_release(project):
    assert _cli("run", "--skip-unchanged").exit_code == 0  # first release: nothing to compare with
    skipped = _cli("run", "--skip-unchanged")
    assert skipped.exit_code == 0, skipped.output
    assert skipped.stdout.startswith("no release: the source 'patients' of project 'ward' has not changed since "
                                     "release 1")
    assert [r[0] for r in _ledger(project)] == [1]
    as_json = json.loads(_cli("run", "--skip-unchanged", "--json").stdout)
    assert as_json["skipped"] is True and as_json["release"] is None and as_json["last_release"] == 1
    _change(project, "UPDATE patients SET disease = 'flu' WHERE id = 3")
    made = _cli("run", "--skip-unchanged")
    assert made.exit_code == 0 and made.stdout.startswith("release   2:")
    assert [r[0] for r in _ledger(project)] == [1, 2]


def test_release_command_takes_skip_unchanged_too(project):
    args = ["release", str(project), "ward", "--source", "patients", "--id", "id", "--qi", "age,sex", "--sa",
            "disease", "--m", "4"]
    assert _cli(*args).exit_code == 0
    out = _cli("release", str(project), "ward", "--skip-unchanged")
    assert out.exit_code == 0 and out.stdout.startswith("no release:")
    assert [r[0] for r in _ledger(project)] == [1]


@pytest.mark.parametrize("before", [0, 1])
def test_dry_run_shows_the_release_and_writes_nothing(project, before):
    for _ in range(before):
        assert _cli("run").exit_code == 0
        _change(project, "DELETE FROM patients WHERE id % 7 = 0")
    bytes_before = project.read_bytes()
    files_before = sorted(p.name for p in project.parent.iterdir())
    dry = _cli("run", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert dry.stdout.startswith(f"dry run, nothing written: release   {before + 1}:")
    assert "was made in a temporary copy" in dry.stderr
    assert project.read_bytes() == bytes_before
    assert sorted(p.name for p in project.parent.iterdir()) == files_before
    real = _cli("run")
    assert real.exit_code == 0
    # the dry run showed the release that then is made (timing aside)
    strip = re.compile(r"\| [\d.]+ s")
    assert strip.sub("", real.stdout) == strip.sub("", dry.stdout.removeprefix("dry run, nothing written: "))


def test_dry_run_as_json(project):
    out = json.loads(_cli("run", "--dry-run", "--json").stdout)
    assert out["dry_run"] is True and out["release"] == 1 and out["published"] > 0
    assert not project.with_name("my.duckdb.wal").exists()


@pytest.mark.parametrize("command", ["audit", "status", "report"])
def test_a_misspelt_project_names_the_projects_there(project, command):
    assert _cli("run").exit_code == 0
    before = project.read_bytes()
    args = [command, str(project), "wrad"] + (["--json"] if command == "report" else [])
    out = _cli(*args)
    assert out.exit_code == 2
    assert f"no project 'wrad' in {project} (no table sqlanon_private.wrad__ledger or " in out.output
    assert "did you mean 'ward'? its projects: ward" in out.output
    assert "--m" not in out.output and "not made by sqlanon" not in out.output
    assert project.read_bytes() == before


def test_a_file_without_projects_says_so(project):
    out = _cli("audit", str(project), "ward")
    assert out.exit_code == 2 and "it has no sqlanon projects" in out.output


def test_check_prints_numbers_for_people_and_exact_json(project):
    args = ["check", str(project), "patients", "--qi", "age", "--sa", "disease", "--k", "2"]
    text = _cli(*args)
    assert text.exit_code == 0, text.output
    body = text.stdout.splitlines()[1:-1]
    assert not any(re.search(r"\d\.\d{4,}|\bNone\b|\bTrue\b|\bFalse\b", line) for line in body), text.stdout
    values = {line.split()[0]: line.split(None, 1)[1] for line in body}
    assert values["rows"] == "600" and values["alpha"].endswith("%")
    exact = json.loads(_cli(*args, "--json").stdout)["report"]
    assert exact["rows"] == 600 and isinstance(exact["alpha"], float)
    assert values["alpha"] == f"{100 * exact['alpha']:.2f}%"


def test_check_of_a_group_with_one_value_explains_none(project):
    _change(project, "CREATE TABLE one AS SELECT 1 AS q, 'a' AS s")
    out = _cli("check", str(project), "one", "--qi", "q", "--sa", "s")
    assert "n/a (a group has fewer than 2 SA values)" in out.stdout
    assert json.loads(_cli("check", str(project), "one", "--qi", "q", "--sa", "s", "--json").stdout)[
        "report"]["c_required_l2"] is None


def test_status_prints_the_ledger_for_people(project):
    assert _cli("run").exit_code == 0
    text = _cli("status", str(project), "ward").stdout
    assert "fingerprint" not in text and re.search(r"\d+\.\d% ", text) and " s " in text
    assert not re.search(r"\d\.\d{3,}", text), text
    exact = json.loads(_cli("status", str(project), "ward", "--json").stdout)
    assert "fingerprint" in exact[0] and isinstance(exact[0]["ncp"], float)


def test_help_imports_neither_duckdb_nor_pandas():
    """`sqlanon --help` stays fast (benchmarks/cli_startup.py measures it): the
    command module loads none of the heavy libraries."""
    code = ("import sys, sqlanon.cli; from click.testing import CliRunner; "
            "CliRunner().invoke(sqlanon.cli.main, ['--help']); "
            "print(sorted(m for m in ('duckdb', 'pandas', 'numpy', 'jinja2', 'sqlglot') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_one_vocabulary_for_published_rows(project):
    """The release line, the ledger and the demo line count the same rows with
    the same words: published rows = real rows + counterfeits."""
    assert _cli("run").exit_code == 0
    _change(project, "DELETE FROM patients WHERE id % 9 = 0; UPDATE patients SET disease = 'hiv' WHERE id % 11 = 1")
    line = _cli("run").stdout
    m = re.match(r"release +2: +(\d+) published rows \((\d+) real, (\d+) counterfeits\) in +(\d+) groups", line)
    assert m, line
    published, real, counterfeits, groups = map(int, m.groups())
    assert published == real + counterfeits
    assert _ledger(project)[-1] == (2, published, counterfeits, groups)
    con = duckdb.connect(str(project), read_only=True)
    assert con.execute("SELECT count(*) FROM sqlanon_ward_qit WHERE release = 2").fetchall()[0][0] == published
    con.close()
