"""The checks in the real DuckDB shell (duckdb-cli, older than the Python package)."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
CREATE TABLE "my table" AS SELECT * FROM (VALUES (30,'M','flu'),(30,'M','hiv'),(40,'F','flu'),(40,'F','flu'),(40,'F',NULL))
    v(age, sex, disease);
SELECT * FROM sqlanon_profile('"my table"', ['age', 'sex'], 'disease');
SELECT * FROM sqlanon_m_eligibility('"my table"', 'disease', 2);
SELECT * FROM sqlanon_recursive_cl('"my table"', ['age'], 'disease', 2);
"""


def _run(shell, cwd, read_line):
    out = subprocess.run([shell, "-csv"], input=read_line + "\n" + SCRIPT, cwd=cwd,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader(io.StringIO(out.stdout)))
    return rows, out


def _check(rows):
    # header/value pairs in order: profile, eligibility, recursive_cl
    assert rows[0] == ["k", "groups", "rows", "distinct_l", "entropy_l", "alpha"]
    k, groups, n, dl, el, alpha = rows[1]
    # groups: (30,M): flu,hiv ; (40,F): flu,flu,NULL -> NULL SA is a value of its own
    assert (k, groups, n, dl) == ("2", "2", "5", "2")
    assert float(alpha) == pytest.approx(2 / 3)
    assert rows[2] == ["eligible", "max_count", "rows", "distinct_values", "max_m"]
    assert rows[3] == ["false", "3", "5", "3", "1"]
    assert rows[4] == ["c_required"]
    assert float(rows[5][0]) == pytest.approx(2.0)  # (40,F): r = 2,1 -> 2/1


def test_read_from_repo_root(duckdb_shell):
    rows, _ = _run(duckdb_shell, ROOT, ".read macros/sqlanon.sql")
    _check(rows)


def test_bundle_from_other_cwd(tmp_path, duckdb_shell):
    bundle = subprocess.run([sys.executable, "-m", "sqlanon.cli", "macros"], capture_output=True, text=True, cwd=tmp_path)
    assert bundle.returncode == 0 and "sqlanon_profile" in bundle.stdout, bundle.stderr
    (tmp_path / "all.sql").write_text(bundle.stdout)
    rows, _ = _run(duckdb_shell, tmp_path, ".read all.sql")
    _check(rows)


def test_cli_missing_column_error(duckdb_shell):
    out = subprocess.run([duckdb_shell], input=".read macros/sqlanon.sql\nCREATE TABLE t(a INT);\n"
                         "SELECT * FROM sqlanon_k_anonymity('t', ['a', 'zz']);\n",
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert 'column "zz" is not in table "t"' in out.stdout + out.stderr
