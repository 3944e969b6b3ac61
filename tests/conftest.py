"""Shared fixtures: a fresh in-memory database with sqlanon installed, a real
database file, and the bundled Adult data."""

from __future__ import annotations

import os

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
    """In-memory DuckDB with every sqlanon macro and UDF installed."""
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
