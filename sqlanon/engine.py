"""Compatibility: the engine classes moved to :mod:`sqlanon.engines`
(base, duckdb, spark); this module keeps the names it had."""

from .engines import DuckDBEngine, Engine, as_engine

__all__ = ["DuckDBEngine", "Engine", "as_engine"]
