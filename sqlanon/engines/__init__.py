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
from .duckdb import DuckDBDialect, DuckDBEngine
from .spark.dialect import SparkDialect

#: engine name -> its dialect (constants and macro file), known without
#: importing the engine's database client
DIALECTS: dict[str, type[Dialect]] = {d.name: d for d in (DuckDBDialect, SparkDialect)}


#: the errors of SQL run through an engine or on a raw connection of one
#: (e.g. a DuckDB connection a caller passed): for a caller's last-resort
#: ``except`` (the CLI's "failed (ConversionException)")
ERRORS: tuple[type[BaseException], ...] = (EngineError, *DuckDBEngine.raw_errors)


def dialect(name: str) -> type[Dialect]:
    """The dialect of engine ``name`` (a dialect of its own for an unknown name:
    no constants, its macro file ``sql/_lib/<name>.sql.j2``)."""
    found = DIALECTS.get(name)
    if found is None:
        found = type(f"Dialect_{name}", (Dialect,), {"name": name})
    return found


def as_engine(con) -> Engine:
    """``con`` as an engine: an Engine as it is, a DuckDB connection wrapped."""
    if isinstance(con, Engine):
        return con
    if DuckDBEngine.is_connection(con):
        return DuckDBEngine(con)
    raise SqlanonError(f"expected a duckdb connection (sqlanon.connect()) or a sqlanon engine, got "
                       f"{type(con).__name__}")


__all__ = ["Dialect", "Engine", "DuckDBDialect", "DuckDBEngine", "SparkDialect", "DIALECTS", "ERRORS", "dialect", "as_engine"]
