"""Shared fixtures: a fresh in-memory database with sqlanon installed, a real
database file, and the bundled Adult data."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, settings

import sqlanon
from sqlanon.datasets import load_adult

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    """In-memory DuckDB with every sqlanon macro installed."""
    c = sqlanon.connect()
    yield c
    c.close()


@pytest.fixture
def db_path(tmp_path):
    """Path of a (not yet created) DuckDB database file."""
    return tmp_path / "test.duckdb"


@pytest.fixture
def file_con(db_path) -> duckdb.DuckDBPyConnection:
    """A real DuckDB database file with sqlanon installed."""
    c = sqlanon.connect(db_path)
    yield c
    c.close()


@pytest.fixture
def adult_con(con) -> duckdb.DuckDBPyConnection:
    """``con`` with table ``adult`` = adult.data (32,561 rows, '?' as NULL)."""
    load_adult(con, "adult", part="data")
    return con


@pytest.fixture(scope="session")
def duckdb_shell() -> str:
    """Path of the real DuckDB shell (PyPI package ``duckdb-cli``). It is looked
    up next to this Python first (a virtualenv's ``bin/`` need not be on PATH),
    then on PATH. Missing: skip, except under run.sh/CI
    (``SQLANON_EXPECT_INSTALLED=1``), where the shell tests must run and it fails."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    found = shutil.which("duckdb", path=path)
    if found is None:
        if os.environ.get("SQLANON_EXPECT_INSTALLED") == "1":
            pytest.fail("the DuckDB shell (pip package duckdb-cli) is not installed next to this Python or on PATH")
        pytest.skip("DuckDB shell (duckdb-cli) not installed")
    return found
