"""What Spark SQL differs in (no pyspark needed): the Spark dialect's
constants, the ``lib`` macro file ``sql/_lib/spark.sql.j2`` (its overrides of
``sql/_lib/default.sql.j2``), and DuckDB type names as Spark spells them.

>>> SparkDialect.mask_values, spark_type("UBIGINT"), spark_type("VARCHAR[]")
(63, 'DECIMAL(20, 0)', 'ARRAY<STRING>')
"""

from __future__ import annotations

from sqlglot import exp

from ..base import Dialect


class SparkDialect(Dialect):
    """Spark has no 128-bit integer: a mask is one BIGINT, 63 values (bit 63 is
    the sign); no stored row order (step 8 ranks by a window)."""

    name = "spark"
    mask_values = 63
    signature_values = 63
    rowid_order = False
    bitmaps = False

    @staticmethod
    def hex_u64(expr: str) -> str:
        return f"CAST(conv({expr}, 16, 10) AS DECIMAL(20, 0))"


_U_TYPES = {"UTINYINT": "SMALLINT", "USMALLINT": "INT", "UINTEGER": "BIGINT", "UBIGINT": "DECIMAL(20, 0)",
            "HUGEINT": "DECIMAL(38, 0)", "UHUGEINT": "DECIMAL(38, 0)", "INT128": "DECIMAL(38, 0)"}


def spark_type(duck: str) -> str:
    """A DuckDB type name as Spark SQL spells it (VARCHAR[] is ARRAY<STRING>)."""
    t = duck.strip().upper()
    if t.endswith("[]"):
        return f"ARRAY<{spark_type(t[:-2])}>"
    if t in _U_TYPES:
        return _U_TYPES[t]
    return exp.DataType.build(t, dialect="duckdb").sql("spark")
