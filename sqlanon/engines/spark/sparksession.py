"""A SparkSession for sqlanon, and Spark column types as DuckDB names them.

A session this module starts is quiet: no stage progress bars
(``spark.ui.showConsoleProgress``), the driver's log at ERROR
(``log4j2.properties`` beside this file, instead of Spark's default profile
and its banner), ``SPARK_LOCAL_IP`` = 127.0.0.1 for a local master (else Spark
warns when the host name resolves to a loopback address), and the JVM's
"Using incubator modules" line dropped from its stderr (Spark's launcher adds
that module to every JVM; everything else the JVM prints passes through);
pyspark's import-time warning about pandas 3 is not printed (below).
Without Java it raises :class:`~.errors.JavaMissing` (a
:class:`sqlanon.errors.CannotOpen`) saying what to install.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import warnings
from pathlib import Path

from pyspark import SparkConf, SparkContext
from pyspark.errors import PySparkRuntimeError
from pyspark.sql import SparkSession
from pyspark.sql import types as T

from .errors import JavaMissing

# pyspark.testing.utils warns at import that "PySpark does not yet fully support
# pandas >= 3.0.0"; pyspark imports it on its first call into the JVM (a Py4J
# converter asks it whether numpy is installed), so every session printed it,
# whatever the program does with pandas. sqlanon hands pandas to Spark through
# Arrow (SparkEngine.load), not pyspark's pandas conversion; the module is
# imported here with that one warning ignored (a program's own createDataFrame
# of a pandas frame or toPandas still gets pyspark's warning).
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
    import pyspark.testing.utils  # noqa: F401

LOG4J = Path(__file__).with_name("log4j2.properties")
#: what the JVM prints that says nothing to a user (dropped from its stderr)
NOISE = (b"WARNING: Using incubator modules",)
INSTALL = ("Spark needs Java 17 or later: install a JDK or JRE (e.g. `apt-get install openjdk-17-jre-headless`, "
           "or `brew install openjdk@17`) and put its `java` on PATH or set JAVA_HOME to it")


#: the JVM's just-in-time compiler for a local session: C1 only (a large code
#: cache, as C1 fills the default one). A small release is tens of statements
#: planned once each: the JVM spent more CPU compiling Spark's planner with C2
#: than running it (docs/spark.md, "Fixed cost and clean output")
QUICK_JIT = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m"


def session(master: str = "local[2]", *, quick_jit: bool | None = None, **conf) -> SparkSession:
    """A SparkSession with the settings sqlanon's SQL needs: non-ANSI semantics
    (a list index out of range is NULL, as in DuckDB), UTC, few shuffle
    partitions for a local run (give more with ``conf`` on a cluster); quiet
    (module docstring). Raises JavaMissing without a usable Java.

    ``quick_jit`` (default: for a ``local`` master) starts the driver's JVM
    with :data:`QUICK_JIT`: a release of a few thousand rows costs about half
    the CPU; a long run over millions of rows on one machine may want C2's
    faster code (``quick_jit=False``). Only the first session of a process
    starts a JVM."""
    settings = {"spark.sql.ansi.enabled": "false", "spark.sql.session.timeZone": "UTC",
                "spark.sql.shuffle.partitions": "4", "spark.ui.enabled": "false",
                "spark.ui.showConsoleProgress": "false", "spark.sql.adaptive.enabled": "true",
                # a UNION ALL of two checkpointed tables failed to plan in Spark 4.3 ("key not found" in
                # Union.rewriteConstraints); constraint propagation off, it plans (and long plans plan faster)
                "spark.sql.constraintPropagation.enabled": "false"}
    settings |= {k: str(v) for k, v in conf.items()}
    if quick_jit if quick_jit is not None else master.startswith("local"):  # (the caller's options after ours)
        settings["spark.driver.extraJavaOptions"] = " ".join(
            x for x in (QUICK_JIT, settings.get("spark.driver.extraJavaOptions")) if x)
    if SparkContext._active_spark_context is None:
        _start(master, settings)
    b = SparkSession.builder.master(master).appName("sqlanon")
    for k, v in settings.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _start(master: str, settings: dict[str, str]) -> None:
    """The JVM and the SparkContext, started quietly (module docstring)."""
    java = _java()
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    opts = f"-Dlog4j.configurationFile={LOG4J.as_uri()}"
    settings = settings | {"spark.driver.extraJavaOptions": " ".join(
        x for x in (opts, settings.get("spark.driver.extraJavaOptions")) if x)}
    sc_conf = SparkConf().setMaster(master).setAppName("sqlanon").setAll(list(settings.items()))
    from pyspark.java_gateway import launch_gateway

    r, w = os.pipe()  # the JVM's stderr, relayed (the launcher's own complaint, if it fails, quoted)
    try:
        gateway = launch_gateway(sc_conf, popen_kwargs={"stderr": w})
    except PySparkRuntimeError as exc:
        os.close(w)
        with os.fdopen(r, "rb") as f:
            said = [x for x in f.read().decode(errors="replace").splitlines() if x.strip()][-3:]
        raise JavaMissing(f"Spark did not start with {java}" + (f" ({' / '.join(said)})" if said else "")
                          + f"; {INSTALL}") from exc
    os.close(w)
    threading.Thread(target=_relay, args=(os.fdopen(r, "rb"),), name="sqlanon-jvm-stderr", daemon=True).start()
    SparkContext(conf=sc_conf, gateway=gateway)


def _java() -> str:
    """The java Spark's launcher will run (JAVA_HOME's, else PATH's), or JavaMissing."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not java or not os.access(java, os.X_OK):
        where = f"JAVA_HOME={home!r} has no bin/java" if home else "no `java` on PATH"
        raise JavaMissing(f"{INSTALL} ({where})")
    return java


def _relay(stream) -> None:
    """Copy the JVM's stderr to ours, without the :data:`NOISE` lines."""
    for line in iter(stream.readline, b""):
        if not line.startswith(NOISE):
            try:
                os.write(sys.__stderr__.fileno() if sys.__stderr__ else 2, line)
            except OSError:
                pass


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


