"""Compatibility: the Spark engine moved to :mod:`sqlanon.engines.spark`
(needs the ``spark`` extra); this module keeps the names it had."""

from .engines.spark.engine import SparkEngine
from .engines.spark.errors import SparkBusy, SparkSQLError
from .engines.spark.macros import inline_table_macros, scalar_macros, table_macros
from .engines.spark.sparksession import duck_type, session
from .engines.spark.dialect import spark_type
from .engines.spark.passes import translate

__all__ = ["SparkBusy", "SparkEngine", "SparkSQLError", "duck_type", "inline_table_macros", "scalar_macros",
           "session", "spark_type", "table_macros", "translate"]
