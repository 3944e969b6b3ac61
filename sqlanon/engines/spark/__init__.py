"""The Spark engine (docs/spark.md), in parts: :mod:`.dialect` (constants,
type names), :mod:`.passes` and :mod:`.macros` (DuckDB's SQL as Spark SQL,
by sqlglot passes), :mod:`.storage` (the warehouse and its manifest commit),
:mod:`.statements` and :mod:`.recursive` (writes and recursive CTEs on
DataFrames), :mod:`.engine` (the engine object), :mod:`.sparksession` (a SparkSession for it).

The parts that need no pyspark (dialect, translate, macros, storage, errors)
import without it; ``SparkEngine`` and ``session`` need the ``spark`` extra
(``pip install 'sqlanon[spark]'``) and are imported when first named here.
"""

from __future__ import annotations

import importlib

from .errors import JavaMissing, SparkBusy, SparkMissing, SparkSQLError
from .passes import translate

_LAZY = {"SparkEngine": ".engine", "session": ".sparksession", "duck_type": ".sparksession"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["JavaMissing", "SparkBusy", "SparkEngine", "SparkMissing", "SparkSQLError", "session", "translate"]
