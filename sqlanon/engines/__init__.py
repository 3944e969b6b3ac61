"""The engines sqlanon runs on (SPEC §9, docs/architecture.md "How to add an
engine"): the protocol (:mod:`.base`), DuckDB (:mod:`.duckdb`, the default)
and Apache Spark (:mod:`.spark`, which needs the ``spark`` extra and is not
imported here).

>>> dialect("spark").signature_values, dialect("duckdb").signature_values
(63, 128)
"""

from __future__ import annotations

from ..errors import EngineError, SqlanonError
from .base import Dialect, Engine

# DuckDB's and Spark's modules are imported on first use (PEP 562 below), so
# that importing sqlanon.ident or the CLI (`sqlanon --help`) loads no database
# client.


def _dialects() -> dict[str, type[Dialect]]:
    """engine name -> its dialect (constants and macro file), known without
    importing the engine's database client"""
    from .duckdb import DuckDBDialect
    from .spark.dialect import SparkDialect

    return {d.name: d for d in (DuckDBDialect, SparkDialect)}


def __getattr__(name: str):
    if name in ("DuckDBDialect", "DuckDBEngine"):
        from . import duckdb as _duckdb

        return getattr(_duckdb, name)
    if name == "SparkDialect":
        from .spark.dialect import SparkDialect

        return SparkDialect
    if name == "DIALECTS":
        return _dialects()
    if name == "ERRORS":
        # the errors of SQL run through an engine or on a raw connection of one
        # (e.g. a DuckDB connection a caller passed): for a caller's last-resort
        # ``except`` (the CLI's "failed (ConversionException)")
        from .duckdb import DuckDBEngine

        return (EngineError, *DuckDBEngine.raw_errors)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def dialect(name: str) -> type[Dialect]:
    """The dialect of engine ``name`` (a dialect of its own for an unknown name:
    no constants, its macro file ``sql/_lib/<name>.sql.j2``)."""
    found = _dialects().get(name)
    if found is None:
        found = type(f"Dialect_{name}", (Dialect,), {"name": name})
    return found


def as_engine(con) -> Engine:
    """``con`` as an engine: an Engine as it is, a DuckDB connection wrapped."""
    if isinstance(con, Engine):
        return con
    from .duckdb import DuckDBEngine

    if DuckDBEngine.is_connection(con):
        return DuckDBEngine(con)
    raise SqlanonError(f"expected a duckdb connection (sqlanon.connect()) or a sqlanon engine, got "
                       f"{type(con).__name__}")


__all__ = ["Dialect", "Engine", "DuckDBDialect", "DuckDBEngine", "SparkDialect", "DIALECTS", "ERRORS", "dialect", "as_engine"]
