"""The Spark engine's errors (no pyspark needed to import them)."""

from ...errors import CannotOpen, EngineError, LockHeld, MissingObject, SqlanonError


class SparkSQLError(EngineError, SqlanonError):
    """A statement the Spark engine cannot run (named in the message)."""


class SparkMissing(SparkSQLError, MissingObject):
    """A statement names a table that does not exist."""


class SparkBusy(SparkSQLError, LockHeld):
    """Another engine holds the warehouse's write lock or committed since BEGIN."""


class JavaMissing(CannotOpen):
    """Spark cannot start: no Java (or one that cannot run Spark); the message
    says what to install."""
