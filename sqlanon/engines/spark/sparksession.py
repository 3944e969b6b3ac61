"""A SparkSession for sqlanon, and Spark column types as DuckDB names them."""

from __future__ import annotations

from pyspark.sql import SparkSession
from pyspark.sql import types as T


def session(master: str = "local[2]", **conf) -> SparkSession:
    """A SparkSession with the settings sqlanon's SQL needs: non-ANSI semantics
    (a list index out of range is NULL, as in DuckDB), UTC, few shuffle
    partitions for a local run (give more with ``conf`` on a cluster)."""
    b = (SparkSession.builder.master(master).appName("sqlanon")
         .config("spark.sql.ansi.enabled", "false")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.shuffle.partitions", "4")
         .config("spark.ui.enabled", "false")
         .config("spark.sql.adaptive.enabled", "true")
         # a UNION ALL of two checkpointed tables failed to plan in Spark 4.3 ("key not found" in
         # Union.rewriteConstraints); constraint propagation off, it plans (and long plans plan faster)
         .config("spark.sql.constraintPropagation.enabled", "false"))
    for k, v in conf.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def duck_type(t: T.DataType) -> str:
    """A Spark column type as DuckDB names it (the vocabulary of the library's
    column checks: sqlanon__numeric_type, the INTEGER_TYPES of the publisher)."""
    simple = {T.ByteType: "TINYINT", T.ShortType: "SMALLINT", T.IntegerType: "INTEGER", T.LongType: "BIGINT",
              T.FloatType: "FLOAT", T.DoubleType: "DOUBLE", T.StringType: "VARCHAR", T.BooleanType: "BOOLEAN",
              T.DateType: "DATE", T.TimestampType: "TIMESTAMP WITH TIME ZONE", T.TimestampNTZType: "TIMESTAMP",
              T.BinaryType: "BLOB"}
    for cls, name in simple.items():
        if isinstance(t, cls):
            return name
    if isinstance(t, T.DecimalType):
        return f"DECIMAL({t.precision},{t.scale})"
    if isinstance(t, T.ArrayType):
        return duck_type(t.elementType) + "[]"
    return t.simpleString().upper()


