"""The Spark engine (issue 16, docs/spark.md): sqlanon's releases, checks and
audit on Apache Spark, for microdata that outgrows one machine.

sqlanon's SQL is written once, in DuckDB's dialect (sql/, macros/). This
engine takes each statement as the library renders it and runs it on a
SparkSession:

* **queries** are translated to Spark SQL (:mod:`.passes`: sqlglot's Spark
  dialect after a few passes of rewrites, sqlanon's SQL macros inlined from
  their one definition in macros/*.sql by :mod:`.macros`); parameters
  (``$release``, ``?``) are bound by sqlglot as typed literals in the parsed
  tree (never pasted into SQL text);
* **tables** are DataFrames: a table written in a transaction is a
  checkpointed DataFrame registered as a temporary view, so a temporary table
  can be INSERTed into, UPDATEd and DELETEd from (:mod:`.statements`: each
  rewritten as a SELECT of the new content); recursive CTEs run as driver
  loops (:mod:`.recursive`);
* **state** (the project's published and private tables) is Parquet under the
  ``warehouse`` folder, committed under a manifest (:mod:`.storage`).

Errors: the engine raises the typed errors of :mod:`sqlanon.errors`
(SparkBusy, a LockHeld, when another engine holds the warehouse).

>>> import tempfile                                           # doctest: +SKIP
>>> eng = SparkEngine(tempfile.mkdtemp())                     # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence

import sqlglot
from py4j.protocol import Py4JJavaError
from pyspark.errors import AnalysisException, PySparkException
from pyspark.sql import DataFrame, SparkSession
from sqlglot import exp

from ...errors import EngineError, MissingObject, SqlanonError
from ..base import Engine
from .dialect import SparkDialect
from .errors import SparkBusy, SparkMissing, SparkSQLError
from .macros import scalar_macros, table_macros
from .recursive import RecursiveCTEs
from .sparksession import duck_type, session
from .statements import Statements
from .storage import MAIN, Warehouse
from .passes import _bind, translate


#: the session's SQL settings for a transaction over small tables (docs/spark.md,
#: "Fixed cost and clean output"): a release of a few thousand rows is tens of
#: statements, each a few Spark jobs over a handful of rows, and its time went
#: to compiling code for them (Janino, then the JIT), not to running it;
#: expressions are interpreted instead, and one shuffle partition does
SMALL_SETTINGS = {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN",
                  "spark.sql.shuffle.partitions": "1"}
#: bytes of the warehouse's committed tables (Parquet, as Spark estimates them)
#: up to which a transaction runs with SMALL_SETTINGS
SMALL_BYTES = 2 << 20


class SparkEngine(SparkDialect, Statements, RecursiveCTEs, Engine):
    """sqlanon's engine on a SparkSession, state under ``warehouse`` (a folder
    path; on a cluster, a path every executor reaches; :mod:`.storage`).

    ``small``: a transaction begun while the warehouse's committed tables
    hold at most this many bytes runs with :data:`SMALL_SETTINGS` (0: never);
    a larger one with the session's own settings. The results are the same."""

    def __init__(self, warehouse: str | os.PathLike, spark: SparkSession | None = None, *,
                 small: int = SMALL_BYTES) -> None:
        self.store = Warehouse(warehouse)
        self.warehouse = self.store.root
        self.spark = spark or session()
        self.small = int(small)
        self._own = {k: self._conf(k) for k in SMALL_SETTINGS}  # the session's settings, restored for big data
        self._small_now, self._small_at = False, (-1, False)
        self._macros = scalar_macros()
        self._tmacros = table_macros()
        self._schemas = {MAIN}
        self._tables: dict[tuple[str, str], DataFrame] = {}  # committed or in-transaction, (schema, name) lower
        self._names: dict[tuple[str, str], tuple[str, str]] = {}  # key -> spelled (schema, name)
        self._paths: dict[tuple[str, str], str] = {}  # key -> committed version directory
        self._temps: dict[str, DataFrame | None] = {}  # temp tables (DataFrames) and temp views (None)
        self._txn: dict | None = None
        self._last_columns: list[str] = []
        self._load()

    def __repr__(self) -> str:
        return f"SparkEngine({str(self.warehouse)!r})"

    # ---------------------------------------------------------------- state
    def _load(self) -> None:
        """Register the committed tables; delete version directories that no
        manifest names (what a driver killed mid-commit left)."""
        man = self.store.manifest()
        self._seq = man["seq"]
        for ent in man["tables"]:
            key = (ent["schema"].lower(), ent["name"].lower())
            self._names[key] = (ent["schema"], ent["name"])
            self._paths[key] = ent["path"]
            self._schemas.add(key[0])
            self._tables[key] = self.spark.read.parquet(self.store.path(ent["path"]))
            self._register(key)
        for extra in man.get("schemas", []):
            self._schemas.add(extra.lower())
        self.store.sweep(self._paths.values())

    @staticmethod
    def _view(key: tuple[str, str]) -> str:
        return key[1] if key[0] == MAIN else f"{key[0]}__{key[1]}"

    def _register(self, key) -> None:
        self._tables[key].createOrReplaceTempView(self._view(key))

    def _checkpoint(self, df: DataFrame) -> DataFrame:
        """``df`` computed once and kept (a local checkpoint), as a relation
        without a size estimate of its own. A checkpointed DataFrame carries the
        estimate of the plan that made it, and Spark estimates a join as the
        product of its inputs' sizes: through a release's chain of statements the
        estimates grew to numbers of millions of digits, and an m-invariance
        release of 1,200 rows ran the driver out of heap multiplying them. The
        fresh relation (the same rows, not copied) is estimated at
        spark.sql.defaultSizeInBytes, as any RDD is; adaptive execution still
        sees the real sizes at run time. (internalCreateDataFrame is Spark's own
        constructor of such a relation; pyspark has no public one that does not
        copy the rows through Python.)"""
        df = df.localCheckpoint(eager=True)
        jdf = self.spark._jsparkSession.internalCreateDataFrame(df._jdf.queryExecution().toRdd(), df._jdf.schema(),
                                                                False)
        return DataFrame(jdf, self.spark)

    def _set(self, key, df: DataFrame, *, checkpoint: bool = True) -> None:
        """Table ``key`` now holds ``df`` (materialized: later statements read it
        many times, and its lineage must not grow with every INSERT)."""
        if checkpoint:
            df = self._checkpoint(df)
        if isinstance(key, str):
            self._temps[key] = df
            df.createOrReplaceTempView(key)
            return
        if self._txn is None:
            raise SparkSQLError("internal: a table write outside a transaction")
        self._tables[key] = df
        self._txn["dirty"].add(key)
        self._register(key)

    # ------------------------------------------------------ small or large
    def _conf(self, key: str) -> str | None:
        try:
            return self.spark.conf.get(key)
        except Exception:  # (unset, no default)
            return None

    def committed_bytes(self) -> int:
        """The size of the committed tables as Spark estimates it (their Parquet
        files; no job runs)."""
        total = 0
        for key in self._paths:
            if key in self._tables:
                total += int(str(self._tables[key]._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()))
        return total

    def _is_small(self) -> bool:
        if self._small_at[0] != self._seq:
            self._small_at = (self._seq, bool(self.small) and self.committed_bytes() <= self.small)
        return self._small_at[1]

    def _settings(self, small: bool) -> None:
        """:data:`SMALL_SETTINGS` (``small``) or the session's own, set on the
        session for this engine's statements (the session's own are back when a
        transaction or a statement outside one ends)."""
        if small == self._small_now:
            return
        for k, v in (SMALL_SETTINGS if small else self._own).items():
            if v is None:
                self.spark.conf.unset(k)
            else:
                self.spark.conf.set(k, v)
        self._small_now = small

    # --------------------------------------------------------- transactions
    def begin(self) -> None:
        if self._txn is not None:
            raise SparkSQLError("a transaction is already open on this Spark engine")
        self.store.lock()
        try:
            if self.store.manifest()["seq"] != self._seq:  # another engine committed: read its state
                self._reload()
            self._settings(self._is_small())
        except BaseException:
            self.store.unlock()
            raise
        self._txn = {"tables": dict(self._tables), "names": dict(self._names), "schemas": set(self._schemas),
                     "dirty": set(), "dropped": set()}

    def _reload(self) -> None:
        for key in list(self._tables):
            with contextlib.suppress(Exception):
                self.spark.catalog.dropTempView(self._view(key))
        self._tables.clear(), self._names.clear(), self._paths.clear()
        self._load()

    def rollback(self) -> None:
        if self._txn is None:
            return
        for key in set(self._tables) - set(self._txn["tables"]):
            with contextlib.suppress(Exception):
                self.spark.catalog.dropTempView(self._view(key))
        self._tables, self._names, self._schemas = self._txn["tables"], self._txn["names"], self._txn["schemas"]
        for key in self._tables:
            self._register(key)
        self._txn = None
        self._settings(False)
        self.store.unlock()

    def commit(self) -> None:
        if self._txn is None:
            return
        try:
            if self.store.manifest()["seq"] != self._seq:
                raise SparkBusy(f"another engine committed to {str(self.warehouse)!r} since this transaction began; "
                                "nothing was written")
            version = self.store.new_version()
            written = {}
            for key in sorted(self._txn["dirty"]):
                if key not in self._tables:
                    continue
                rel = self.store.version_dir(key, version)
                self._write(self._tables[key], rel)
                written[key] = rel
            paths = {k: p for k, p in self._paths.items() if k in self._tables} | written
            man = {"seq": self._seq + 1, "schemas": sorted(self._schemas),
                   "tables": [{"schema": self._names[k][0], "name": self._names[k][1], "path": p}
                              for k, p in sorted(paths.items())]}
            self.store.publish(man, version)  # the commit
        except BaseException:
            self.rollback()
            raise
        old = {p for k, p in self._paths.items() if paths.get(k) != p}
        self._paths, self._seq, self._txn = paths, self._seq + 1, None
        for key, rel in written.items():  # read back from Parquet: frees the checkpoints
            self._tables[key] = self.spark.read.parquet(self.store.path(rel))
            self._register(key)
        self.store.remove(old)
        self._settings(False)
        self.store.unlock()

    def _write(self, df: DataFrame, rel: str) -> None:
        """Write one table version as Parquet (the only write to the warehouse besides the manifest)."""
        df.write.mode("errorifexists").parquet(self.store.path(rel))

    @contextlib.contextmanager
    def _autocommit(self):
        if self._txn is not None:
            yield
            return
        self.begin()
        try:
            yield
        except BaseException:
            self.rollback()
            raise
        self.commit()

    # ------------------------------------------------------------ statements
    def typed(self, exc: BaseException) -> BaseException:
        """Spark's and the JVM's errors as EngineError (MissingObject for a
        table or view Spark cannot find)."""
        if not isinstance(exc, (PySparkException, Py4JJavaError)):
            return exc
        kind = MissingObject if "TABLE_OR_VIEW_NOT_FOUND" in str(exc) else EngineError
        out = kind(str(exc))
        out.__cause__ = exc
        return out

    def execute(self, sql: str, params=None) -> None:
        self.fetch(sql, params)

    def fetch(self, sql: str, params=None) -> list[tuple]:
        rows: list[tuple] = []
        if self._txn is None:
            self._settings(self._is_small())
        try:
            for tree in sqlglot.parse(sql, read="duckdb"):
                if tree is not None:
                    rows = self._statement(tree, params)
        except (PySparkException, Py4JJavaError) as exc:
            raise self.typed(exc) from exc
        finally:
            if self._txn is None:
                self._settings(False)
        return rows

    def last_columns(self) -> list[str]:
        return list(self._last_columns)

    def sql(self, tree: exp.Expression, params=None) -> str:
        """The Spark SQL of a parsed DuckDB statement or query."""
        return self._prepare(tree, params).sql(dialect="spark")

    def _query(self, tree: exp.Expression, params) -> DataFrame:
        tree, views = self._recursive_ctes(self._prepare(tree, params))
        try:
            return self.spark.sql(tree.sql(dialect="spark"))  # (analysed now: the views can go)
        finally:
            for v in views:
                self.spark.catalog.dropTempView(v)

    def _statement(self, tree: exp.Expression, params) -> list[tuple]:
        if isinstance(tree, exp.Query):
            df = self._query(tree, params)
            self._last_columns = df.columns
            return [tuple(r) for r in df.collect()]
        if isinstance(tree, exp.Transaction):
            self.begin()
        elif isinstance(tree, exp.Commit):
            self.commit()
        elif isinstance(tree, exp.Rollback):
            self.rollback()
        elif isinstance(tree, exp.Set):
            pass  # DuckDB settings (threads, insertion order) have no Spark meaning
        elif isinstance(tree, exp.Create):
            self._create(tree, params)
        elif isinstance(tree, exp.Insert):
            self._insert(tree, params)
        elif isinstance(tree, exp.Update):
            self._update(tree, params)
        elif isinstance(tree, exp.Delete):
            self._delete(tree, params)
        elif isinstance(tree, exp.Drop):
            self._drop(tree)
        elif isinstance(tree, exp.Alter):
            self._alter(tree)
        else:
            raise SparkSQLError(f"the Spark engine cannot run this statement: {tree.sql('duckdb')[:120]}")
        self._last_columns = []
        return []

    # ---- table references
    def _key(self, table: exp.Table) -> tuple[str, str] | str | None:
        """What a table reference names: a temp table (its name), a state
        table (schema, name), or None (a table of the Spark catalog)."""
        name, db = table.name.lower(), table.text("db").lower()
        if db in ("", "temp") and name in self._temps:  # (DuckDB's temp schema)
            return name
        key = (db or MAIN, name)
        return key if key in self._tables else None

    def _target(self, table: exp.Table, what: str):
        key = self._key(table)
        if key is None:
            raise SparkMissing(f"{what}: table {table.sql('duckdb')!r} does not exist")
        return key

    def _content(self, key) -> DataFrame:
        return self._temps[key] if isinstance(key, str) else self._tables[key]

    def _prepare(self, tree: exp.Expression, params) -> exp.Expression:
        """The tree for Spark (:func:`translate`), state tables resolved to their views."""
        def resolve(n: exp.Table) -> exp.Table | None:
            key = self._key(n)
            if isinstance(key, tuple) or (key is not None and n.args.get("db")):
                alias = n.args.get("alias") or exp.TableAlias(this=exp.to_identifier(n.name))
                view = self._view(key) if isinstance(key, tuple) else key
                return exp.Table(this=exp.to_identifier(view), alias=alias.copy())
            return None
        return translate(tree, params, resolve=resolve, macros=self._macros, tmacros=self._tmacros,
                         columns_of=lambda t: self._frame(".".join(p.name for p in t.parts)).columns)

    # ---------------------------------------------------------------- catalog
    def exists(self, name: str, *, temporary: bool = False, schema: str | None = None) -> bool:
        if temporary and schema is None and name.lower() in self._temps:
            return True
        if schema is None:
            if any(k[1] == name.lower() for k in self._tables):
                return True
            return (name.lower() not in self._temps
                    and self.spark.catalog.tableExists(name) if "." not in name else False)
        return (schema.lower(), name.lower()) in self._tables

    def locate(self, name: str, *, schema: str | None = None):
        for k, (s, n) in self._names.items():
            if k in self._tables and k[1] == name.lower() and (schema is None or k[0] == schema.lower()):
                return ("spark", s, n)
        return None

    def find_tables(self, names: Sequence[str], *, schema: str) -> list[str]:
        want = {n.lower() for n in names}
        return sorted(self._names[k][1] for k in self._tables if k[0] == schema.lower() and k[1] in want)

    def current_database(self) -> str:
        return "spark"

    def setting(self, name: str):
        """``threads``: the session's default parallelism; no other DuckDB setting."""
        if name == "threads":
            return self.spark.sparkContext.defaultParallelism
        raise SparkSQLError(f"the Spark engine has no setting {name!r}")

    def columns(self, table: str) -> dict[str, str]:
        df = self._frame(table)
        return {f.name: duck_type(f.dataType) for f in df.schema.fields}

    def _frame(self, table: str) -> DataFrame:
        """The content of a table named as the library names it (``schema.table``
        or a plain name: a temp, state or Spark catalog table)."""
        parts = table.split(".")
        key = (parts[0].lower(), parts[1].lower()) if len(parts) == 2 else None
        if key is not None and key in self._tables:
            return self._tables[key]
        if len(parts) == 1:
            if table.lower() in self._temps and self._temps[table.lower()] is not None:
                return self._temps[table.lower()]
            if (MAIN, table.lower()) in self._tables:
                return self._tables[(MAIN, table.lower())]
        try:
            return self.spark.table(table)
        except AnalysisException as exc:
            raise SqlanonError(f"table {table!r} does not exist; create it first or check the name") from exc

    def table(self, table: str) -> DataFrame:
        """A table (a published one: ``sqlanon_<P>_qit``) as a Spark DataFrame."""
        return self._frame(table)

    def relations(self, *, current_database: bool = False) -> list[str]:
        return [self._names[k][1] for k in self._tables]

    def schema_relations(self) -> list[tuple[str, str]]:
        return [self._names[k] for k in self._tables]

    def drop_temporary(self, names: Sequence[str]) -> None:
        for n in names:
            if n.lower() in self._temps:
                self._temps.pop(n.lower())
                self.spark.catalog.dropTempView(n)

    def cursor(self) -> "_Committed":
        return _Committed(self)

    def close(self) -> None:
        self.rollback()

    def load(self, name: str, data, *, schema: str = MAIN) -> None:
        """Create or replace state-free table ``name`` (a source) from a pandas
        DataFrame or a Spark DataFrame, committed to the warehouse."""
        if not isinstance(data, DataFrame):
            # through Arrow: pyspark's pandas path warns on pandas 3 (a FutureWarning per call)
            import pyarrow as pa

            data = self.spark.createDataFrame(pa.Table.from_pandas(data, preserve_index=False))
        df = data
        key = (schema.lower(), name.lower())
        with self._autocommit():
            self._schemas.add(key[0])
            self._names[key] = (schema, name)
            self._set(key, df)


class _Committed:
    """A read-only view of the committed state (what the publisher's last check
    before COMMIT reads: has another engine released meanwhile?)."""

    def __init__(self, eng: SparkEngine) -> None:
        self.eng = eng

    def fetch(self, sql: str, params=None) -> list[tuple]:
        man = self.eng.store.manifest()
        paths = {(t["schema"].lower(), t["name"].lower()): t["path"] for t in man["tables"]}
        tree = _bind(sqlglot.parse_one(sql, read="duckdb"), params)

        def fix(n):
            if isinstance(n, exp.Table) and n.name:
                key = (n.text("db").lower() or MAIN, n.name.lower())
                if key not in paths:
                    raise SparkMissing(f"table {n.sql('duckdb')!r} does not exist (committed)")
                p = self.eng.store.path(paths[key])
                return exp.Table(this=exp.to_identifier(p, quoted=True), db=exp.to_identifier("parquet"),
                                 alias=exp.TableAlias(this=exp.to_identifier(n.name)))
            return n
        try:
            return [tuple(r) for r in self.eng.spark.sql(tree.transform(fix).sql("spark")).collect()]
        except (PySparkException, Py4JJavaError) as exc:
            raise self.eng.typed(exc) from exc

    def close(self) -> None:
        pass


