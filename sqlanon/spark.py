"""The Spark engine (issue 16, docs/spark.md): sqlanon's releases, checks and
audit on Apache Spark, for microdata that outgrows one machine.

sqlanon's SQL is written once, in DuckDB's dialect (sql/, macros/). This
engine takes each statement as the library renders it, parses it with sqlglot,
and runs it on a SparkSession:

* **queries** are transpiled to Spark SQL (sqlglot's Spark dialect) after a few
  rewrites sqlglot does not do (``list(x ORDER BY x)`` is a sorted
  ``collect_list``, ``error`` is ``raise_error``, sqlanon's scalar SQL macros
  are inlined from their one definition in macros/*.sql);
* **parameters** (``$release``, ``?``) are bound by sqlglot as typed literals
  in the parsed tree (never pasted into SQL text);
* **tables** are DataFrames: a table written in a transaction is a
  checkpointed DataFrame registered as a temporary view, so a temporary table
  can be INSERTed into, UPDATEd and DELETEd from (rewritten as a SELECT of the
  new content: Spark's Parquet tables have no UPDATE or DELETE);
* **state** (the project's published and private tables) is Parquet under the
  ``warehouse`` folder, one directory per table version, and a manifest
  (``<warehouse>/manifest.json``) lists the committed version of every table.

Atomicity without multi-statement transactions: a transaction's writes stay in
the session until COMMIT, which writes each changed table to a new version
directory and then replaces the manifest (write a temporary file, fsync,
rename: one atomic step on a POSIX file system). The manifest is the commit
marker: a driver killed before the rename leaves version directories no
manifest names, and the next engine on that warehouse deletes them. One writer
at a time: a transaction holds an exclusive lock on ``<warehouse>/.lock``, and
COMMIT fails if the manifest changed since BEGIN.

>>> import tempfile                                           # doctest: +SKIP
>>> eng = SparkEngine(tempfile.mkdtemp())                     # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path

import sqlglot
from py4j.protocol import Py4JJavaError
from pyspark.errors import AnalysisException, PySparkException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T
from sqlglot import exp

from ._resources import macros_dir
from .engine import Engine
from .errors import SqlanonError

MAIN = "main"
MANIFEST = "manifest.json"


class SparkSQLError(SqlanonError):
    """A statement the Spark engine cannot run (named in the message)."""


class SparkBusy(SparkSQLError):
    """Another engine holds the warehouse's write lock or committed since BEGIN."""


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


# ------------------------------------------------------------------- types
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


# ------------------------------------------------------------------ macros
_MACRO = re.compile(r"CREATE\s+OR\s+REPLACE\s+MACRO\s+(\w+)\s*\(([^)]*)\)\s+AS\s+(?!TABLE\b)(.*?);\s*$",
                    re.S | re.M | re.I)


def scalar_macros() -> dict[str, tuple[list[str], exp.Expression]]:
    """sqlanon's scalar SQL macros (macros/*.sql), name -> (parameters, body),
    parsed once: the Spark engine inlines a call by substituting the arguments
    into the body, so the one definition serves both engines."""
    out: dict[str, tuple[list[str], exp.Expression]] = {}
    for f in sorted(macros_dir().glob("*.sql")):
        text = re.sub(r"--[^\n]*", "", f.read_text())
        for m in _MACRO.finditer(text):
            params = [p.split(":=")[0].strip() for p in m.group(2).split(",") if p.strip()]
            try:
                out[m.group(1).lower()] = (params, sqlglot.parse_one(m.group(3), read="duckdb"))
            except sqlglot.errors.ParseError:
                continue  # a macro sqlglot cannot read is not inlined (and fails on Spark if called)
    return out


_TABLE_MACRO = re.compile(r"CREATE\s+OR\s+REPLACE\s+MACRO\s+(\w+)\s*\(([^)]*)\)\s+AS\s+TABLE\b(.*?);\s*$",
                          re.S | re.M | re.I)


def table_macros() -> dict[str, tuple[list[tuple[str, exp.Expression | None]], exp.Expression]]:
    """sqlanon's table macros (macros/*.sql), name -> ([(parameter, default)],
    query): the Spark engine inlines a call as a subquery (the checks and the
    audit keep one definition for both engines)."""
    out = {}
    for f in sorted(macros_dir().glob("*.sql")):
        text = re.sub(r"--[^\n]*", "", f.read_text())
        for m in _TABLE_MACRO.finditer(text):
            params = []
            for p in (p.strip() for p in m.group(2).split(",") if p.strip()):
                name, _, default = p.partition(":=")
                params.append((name.strip(), sqlglot.parse_one(default, read="duckdb") if default.strip() else None))
            try:
                out[m.group(1).lower()] = (params, sqlglot.parse_one(m.group(3), read="duckdb"))
            except sqlglot.errors.ParseError:
                continue
    return out


def _fold_text(e: exp.Expression) -> str:
    """The text of a constant string expression ('a' || 'b' || ...)."""
    if isinstance(e, exp.Literal) and e.is_string:
        return e.this
    if isinstance(e, exp.DPipe):
        return _fold_text(e.this) + _fold_text(e.expression)
    if isinstance(e, exp.Paren):
        return _fold_text(e.this)
    if isinstance(e, exp.Cast):
        return _fold_text(e.this)
    raise SparkSQLError(f"the Spark engine needs a constant table name here, not {e.sql('duckdb')}")


def inline_table_macros(tree: exp.Expression, tmacros, columns_of) -> exp.Expression:
    """Calls of sqlanon's table macros in FROM as subqueries (arguments
    substituted for the parameters), ``query_table('...')`` of a constant name
    as that table, and DuckDB's ``COLUMNS(lambda c: ...)`` star as the columns
    of the FROM table (``columns_of(table) -> names``) it selects."""
    def call(n):
        if isinstance(n, exp.Table) and isinstance(n.this, exp.Anonymous):
            name = str(n.this.this).lower()
            if name == "query_table":
                parts = _fold_text(n.this.expressions[0]).split(".")
                t = exp.to_table(".".join(exp.to_identifier(x).sql("duckdb") for x in parts), dialect="duckdb")
                if n.args.get("alias"):
                    t.set("alias", n.args["alias"].copy())
                return t
            if name in tmacros:
                params, body = tmacros[name]
                args = list(n.this.expressions)
                given = {}
                for (pname, default), i in zip(params, range(len(params))):
                    kw = next((a for a in args if isinstance(a, exp.PropertyEQ) and a.this.name == pname), None)
                    if kw is not None:
                        given[pname] = kw.expression
                    elif i < len(args) and not isinstance(args[i], exp.PropertyEQ):
                        given[pname] = args[i]
                    else:
                        given[pname] = default
                new = body.copy().transform(lambda c: given[c.name].copy()
                                            if isinstance(c, exp.Column) and not c.table and c.name in given
                                            and given[c.name] is not None else c)
                alias = n.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name))
                return exp.Subquery(this=inline_table_macros(new, tmacros, columns_of), alias=alias.copy())
        return n
    tree = tree.transform(call)
    # COLUMNS(lambda c: pred): the FROM table's columns that satisfy pred
    for sel in list(tree.find_all(exp.Select)):
        stars = [c for c in sel.expressions for c in c.find_all(exp.Columns)
                 if c.find_ancestor(exp.Select) is sel]
        if not stars:
            continue
        src = sel.args.get("from_") or sel.args.get("from")
        if src is None or not isinstance(src.this, exp.Table) or sel.args.get("joins"):
            raise SparkSQLError("the Spark engine expands COLUMNS(...) only over one table")
        names = columns_of(src.this)
        for star in stars:
            lam = star.this
            var = lam.expressions[0].name
            keep = []
            for cname in names:
                if _lambda_test(lam.this, var, cname):
                    keep.append(exp.column(cname, quoted=True))
            if not keep:
                raise SparkSQLError(f"COLUMNS(...) selects no column of {src.this.sql('duckdb')}")
            if star.args.get("unpack"):
                parent = star.parent
                i = parent.expressions.index(star)
                parent.set("expressions", parent.expressions[:i] + keep + parent.expressions[i + 1:])
            elif len(keep) == 1:
                star.replace(keep[0])
            else:
                raise SparkSQLError("COLUMNS(...) outside a function call must select one column on Spark")
    return tree


def _lambda_test(e: exp.Expression, var: str, name: str):
    """The value of a COLUMNS lambda's predicate for column ``name`` (the forms
    sqlanon's macros use: =, <>, IN, NOT, AND, OR over the variable and string
    literals)."""
    if isinstance(e, exp.Paren):
        return _lambda_test(e.this, var, name)
    if isinstance(e, (exp.Identifier, exp.Column)) and e.name == var:
        return name
    if isinstance(e, exp.Literal):
        return e.this
    if isinstance(e, exp.Not):
        return not _lambda_test(e.this, var, name)
    if isinstance(e, exp.And):
        return _lambda_test(e.this, var, name) and _lambda_test(e.expression, var, name)
    if isinstance(e, exp.Or):
        return _lambda_test(e.this, var, name) or _lambda_test(e.expression, var, name)
    if isinstance(e, exp.EQ):
        return _lambda_test(e.this, var, name) == _lambda_test(e.expression, var, name)
    if isinstance(e, exp.NEQ):
        return _lambda_test(e.this, var, name) != _lambda_test(e.expression, var, name)
    if isinstance(e, exp.In):
        return _lambda_test(e.this, var, name) in [_lambda_test(x, var, name) for x in e.expressions]
    raise SparkSQLError(f"the Spark engine cannot evaluate COLUMNS(lambda ...): {e.sql('duckdb')}")


def _inline(node: exp.Expression, macros) -> exp.Expression:
    if isinstance(node, exp.Anonymous) and str(node.this).lower() in macros:
        params, body = macros[str(node.this).lower()]
        args = dict(zip(params, node.expressions))
        new = body.copy()
        new = new.transform(lambda n: args[n.name].copy()
                            if isinstance(n, exp.Column) and not n.table and n.name in args else n)
        return exp.Paren(this=new.transform(lambda n: _inline(n, macros)))
    return node


# ------------------------------------------------------------------ engine
class SparkEngine(Engine):
    """sqlanon's engine on a SparkSession, state under ``warehouse`` (a folder
    path; on a cluster, a path every executor reaches)."""

    name = "spark"
    Error = (PySparkException, Py4JJavaError, SparkSQLError)
    MissingTable = SparkSQLError
    MissingMacro = SparkSQLError

    @staticmethod
    def hex_u64(expr: str) -> str:
        return f"CAST(conv({expr}, 16, 10) AS DECIMAL(20, 0))"

    def __init__(self, warehouse: str | os.PathLike, spark: SparkSession | None = None) -> None:
        self.warehouse = Path(warehouse).absolute()
        (self.warehouse / "tables").mkdir(parents=True, exist_ok=True)
        self.spark = spark or session()
        self._macros = scalar_macros()
        self._tmacros = table_macros()
        self._schemas = {MAIN}
        self._tables: dict[tuple[str, str], DataFrame] = {}  # committed or in-transaction, (schema, name) lower
        self._names: dict[tuple[str, str], tuple[str, str]] = {}  # key -> spelled (schema, name)
        self._paths: dict[tuple[str, str], str] = {}  # key -> committed version directory
        self._temps: dict[str, DataFrame | None] = {}  # temp tables (DataFrames) and temp views (None)
        self._txn: dict | None = None
        self._lockf = None
        self._last_columns: list[str] = []
        self._load()

    def __repr__(self) -> str:
        return f"SparkEngine({str(self.warehouse)!r})"

    # ---------------------------------------------------------------- state
    def _manifest(self) -> dict:
        p = self.warehouse / MANIFEST
        return json.loads(p.read_text()) if p.exists() else {"seq": 0, "tables": []}

    def _load(self) -> None:
        """Register the committed tables; delete version directories that no
        manifest names (what a driver killed mid-commit left)."""
        man = self._manifest()
        self._seq = man["seq"]
        for ent in man["tables"]:
            key = (ent["schema"].lower(), ent["name"].lower())
            self._names[key] = (ent["schema"], ent["name"])
            self._paths[key] = ent["path"]
            self._schemas.add(key[0])
            self._tables[key] = self.spark.read.parquet(str(self.warehouse / ent["path"]))
            self._register(key)
        for extra in man.get("schemas", []):
            self._schemas.add(extra.lower())
        with self._locked(wait=False) as got:
            if got:
                keep = set(self._paths.values())
                for d in (self.warehouse / "tables").glob("*/*/*"):
                    if d.is_dir() and str(d.relative_to(self.warehouse)) not in keep:
                        shutil.rmtree(d, ignore_errors=True)

    @contextlib.contextmanager
    def _locked(self, wait: bool):
        f = open(self.warehouse / ".lock", "a+")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            f.close()
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
            f.close()

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

    # --------------------------------------------------------- transactions
    def begin(self) -> None:
        if self._txn is not None:
            raise SparkSQLError("a transaction is already open on this Spark engine")
        f = open(self.warehouse / ".lock", "a+")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.close()
            raise SparkBusy(f"the warehouse {str(self.warehouse)!r} is being written by another Spark engine; "
                            "run again when it has finished") from None
        self._lockf = f
        if self._manifest()["seq"] != self._seq:  # another engine committed: read its state
            self._reload()
        self._txn = {"tables": dict(self._tables), "names": dict(self._names), "schemas": set(self._schemas),
                     "dirty": set(), "dropped": set()}

    def _reload(self) -> None:
        for key in list(self._tables):
            with contextlib.suppress(Exception):
                self.spark.catalog.dropTempView(self._view(key))
        self._tables.clear(), self._names.clear(), self._paths.clear()
        self._load()

    def _release_lock(self) -> None:
        if self._lockf is not None:
            fcntl.flock(self._lockf, fcntl.LOCK_UN)
            self._lockf.close()
            self._lockf = None

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
        self._release_lock()

    def commit(self) -> None:
        if self._txn is None:
            return
        try:
            if self._manifest()["seq"] != self._seq:
                raise SparkBusy(f"another engine committed to {str(self.warehouse)!r} since this transaction began; "
                                "nothing was written")
            version = uuid.uuid4().hex[:12]
            written = {}
            for key in sorted(self._txn["dirty"]):
                if key not in self._tables:
                    continue
                rel = f"tables/{key[0]}/{key[1]}/{version}"
                self._write(self._tables[key], rel)
                written[key] = rel
            paths = {k: p for k, p in self._paths.items() if k in self._tables} | written
            man = {"seq": self._seq + 1, "schemas": sorted(self._schemas),
                   "tables": [{"schema": self._names[k][0], "name": self._names[k][1], "path": p}
                              for k, p in sorted(paths.items())]}
            tmp = self.warehouse / f".{MANIFEST}.{version}"
            with open(tmp, "w") as f:
                json.dump(man, f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.warehouse / MANIFEST)  # the commit
        except BaseException:
            self.rollback()
            raise
        old = {p for k, p in self._paths.items() if paths.get(k) != p}
        self._paths, self._seq, self._txn = paths, self._seq + 1, None
        for key, rel in written.items():  # read back from Parquet: frees the checkpoints
            self._tables[key] = self.spark.read.parquet(str(self.warehouse / rel))
            self._register(key)
        for rel in old:
            shutil.rmtree(self.warehouse / rel, ignore_errors=True)
        self._release_lock()

    def _write(self, df: DataFrame, rel: str) -> None:
        """Write one table version as Parquet (the only write to the warehouse besides the manifest)."""
        df.write.mode("errorifexists").parquet(str(self.warehouse / rel))

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
    def execute(self, sql: str, params=None) -> None:
        self.fetch(sql, params)

    def fetch(self, sql: str, params=None) -> list[tuple]:
        rows: list[tuple] = []
        for tree in sqlglot.parse(sql, read="duckdb"):
            if tree is not None:
                rows = self._statement(tree, params)
        return rows

    def df(self, sql: str, params=None):
        """The result as a pandas DataFrame."""
        import pandas as pd
        rows = self.fetch(sql, params)
        return pd.DataFrame([list(r) for r in rows], columns=self._last_columns)

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

    def _recursive_ctes(self, tree: exp.Expression) -> tuple[exp.Expression, list[str]]:
        """``tree`` with the CTEs of every ``WITH RECURSIVE`` computed in the
        driver, each into a temp view that the query then reads. Spark's own
        recursive CTEs take only ``UNION ALL``; the library's (the audit's
        comparison attacks, macros/audit_comparison.sql) use DuckDB's two other
        kinds too, on graphs with cycles: ``UNION`` (each row once: the
        iteration adds only rows not found before, and ends when none is new)
        and ``USING KEY (k)`` (the CTE holds one row per key, a later row of a
        key replacing the earlier; the step reads the rows of the last round as
        the CTE and all rows as ``recurring.<name>``; it ends when a round gives
        no row). Each round is one Spark job over the rows of the round before.
        Returns the tree and the temp views it reads."""
        made: list[str] = []
        while (w := next((w for w in tree.find_all(exp.With) if w.args.get("recursive")), None)) is not None:
            views: dict[str, str] = {}
            for cte in w.expressions:
                name = cte.alias_or_name.lower()
                cols = [c.name for c in cte.args["alias"].columns] if cte.args["alias"].columns else None
                view = f"sqlanon__cte{uuid.uuid4().hex[:8]}_{name}"
                body = _rename_tables(cte.this, views)
                own = [t for t in body.find_all(exp.Table) if t.name.lower() == name and not t.args.get("db")]
                if own and isinstance(body, exp.Union):
                    df = self._fixpoint(body, name, cols, [k.name for k in cte.args.get("key_expressions") or []])
                else:
                    df = self.spark.sql(body.sql(dialect="spark"))
                    df = self._checkpoint(df.toDF(*cols) if cols else df)
                df.createOrReplaceTempView(view)
                made.append(view)
                views[name] = view
            outer = w.parent
            outer.set("with_", None)
            new = _rename_tables(outer, views)
            if outer is tree:
                tree = new
            else:
                outer.replace(new)
        return tree, made

    def _fixpoint(self, body: exp.Union, name: str, cols, key: list[str]) -> DataFrame:
        """The rows of recursive CTE ``name`` (see _recursive_ctes)."""
        def run(q: exp.Expression, work: str | None = None, allr: str | None = None) -> DataFrame:
            q = q.copy()
            for t in list(q.find_all(exp.Table)):
                if t.name.lower() == name and work and (t.text("db").lower() in ("", "recurring")):
                    view = allr if t.text("db").lower() == "recurring" else work
                    alias = t.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name))
                    t.replace(exp.Table(this=exp.to_identifier(view), alias=alias.copy()))
            df = self.spark.sql(q.sql(dialect="spark"))
            return df.toDF(*cols) if cols else df
        distinct = bool(body.args.get("distinct"))
        base = run(body.this)
        found = self._checkpoint(base.distinct() if distinct or key else base)
        work = found
        tag = uuid.uuid4().hex[:8]
        for _ in range(100_000):
            work.createOrReplaceTempView(f"sqlanon__w{tag}")
            found.createOrReplaceTempView(f"sqlanon__r{tag}")
            new = run(body.expression, f"sqlanon__w{tag}", f"sqlanon__r{tag}")
            if distinct and not key:
                new = new.distinct().subtract(found)
            new = self._checkpoint(new)
            if new.isEmpty():
                break
            if key:
                found = found.join(new.select(*key), on=key, how="left_anti").unionByName(new)
            else:
                found = found.unionByName(new)
            found, work = self._checkpoint(found), new
        else:
            raise SparkSQLError(f"recursive CTE {name!r} did not end in 100,000 rounds")
        self.spark.catalog.dropTempView(f"sqlanon__w{tag}")
        self.spark.catalog.dropTempView(f"sqlanon__r{tag}")
        return found

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
            raise SparkSQLError(f"{what}: table {table.sql('duckdb')!r} does not exist")
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

    # ---- writes
    def _create(self, tree: exp.Create, params) -> None:
        kind = (tree.args.get("kind") or "").upper()
        if kind == "SCHEMA":
            name = tree.this.text("db") or tree.this.name
            if self._txn is not None:
                self._schemas.add(name.lower())
            else:
                with self._autocommit():
                    self._schemas.add(name.lower())
            return
        props = tree.args.get("properties")
        temporary = bool(props and any(isinstance(p, exp.TemporaryProperty) for p in props.expressions))
        table = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        name, db = table.name, table.text("db")
        if kind == "VIEW" and temporary:
            q = tree.expression
            sql = f"CREATE OR REPLACE TEMPORARY VIEW `{name}` AS {self.sql(q, params)}"
            self.spark.sql(sql)
            self._temps[name.lower()] = None
            return
        if kind != "TABLE":
            raise SparkSQLError(f"the Spark engine cannot run CREATE {kind}: {tree.sql('duckdb')[:100]}")
        if isinstance(tree.this, exp.Schema):
            cols = [c for c in tree.this.expressions if isinstance(c, exp.ColumnDef)]
            sel = ", ".join(f"CAST(NULL AS {spark_type(c.args['kind'].sql('duckdb'))}) AS `{c.name}`" for c in cols)
            df = self.spark.sql(f"SELECT {sel} WHERE false")
        else:
            df = self._query(tree.expression, params)
        if temporary:
            if name.lower() in self._temps and not tree.args.get("replace"):
                if tree.args.get("exists"):
                    return
                raise SparkSQLError(f"temporary table {name!r} already exists")
            self._set(name.lower(), df)
            return
        key = ((db or MAIN).lower(), name.lower())
        if key[0] not in self._schemas:
            raise SparkSQLError(f"schema {db!r} does not exist; create it first")
        if key in self._tables and not tree.args.get("replace"):
            if tree.args.get("exists"):
                return
            raise SparkSQLError(f"table {table.sql('duckdb')!r} already exists")
        with self._autocommit():
            self._names[key] = (db or MAIN, name)
            self._set(key, df)

    def _insert(self, tree: exp.Insert, params) -> None:
        target = tree.this
        cols = None
        if isinstance(target, exp.Schema):
            cols = [c.name for c in target.expressions]
            target = target.this
        key = self._target(target, "INSERT")
        old = self._content(key)
        src = tree.expression
        if isinstance(src, exp.Values):  # rows as SELECTs: Spark's VALUES takes no scalar subquery
            rows = [exp.select(*[e.copy() for e in t.expressions]) for t in src.expressions]
            src = rows[0]
            for r in rows[1:]:
                src = exp.union(src, r, distinct=False)
        q = self.sql(src, params)
        width = len(self.spark.sql(q).columns)  # (analysis only)
        names = old.columns
        if tree.args.get("by_name"):
            cols = list(self.spark.sql(q).columns)
            missing = [c for c in cols if c.lower() not in {n.lower() for n in names}]
            if missing:
                raise SparkSQLError(f"INSERT BY NAME into {target.sql('duckdb')!r}: no column {missing[0]!r}")
        if cols is None:
            cols = names[:width]
        if len(cols) != width:
            raise SparkSQLError(f"INSERT into {target.sql('duckdb')!r}: {width} values for {len(cols)} columns")
        # one SQL union (the old rows, the new ones by position cast to the table's types): built with the
        # DataFrame API instead, Spark 4 failed to checkpoint some of these plans ("key not found")
        pos = {c.lower(): i for i, c in enumerate(cols)}
        types = dict(old.dtypes)
        sel = ", ".join(f"CAST({f'sqlanon__c{pos[c.lower()]}' if c.lower() in pos else 'NULL'} AS {types[c]}) "
                        f"AS {_bq(c)}" for c in names)
        aliases = ", ".join(f"sqlanon__c{i}" for i in range(width))
        view = key if isinstance(key, str) else self._view(key)
        with self._autocommit():
            self._set(key, self.spark.sql(f"SELECT * FROM {_bq(view)} UNION ALL "
                                          f"SELECT {sel} FROM ({q}) AS sqlanon__new({aliases})"))

    def _update(self, tree: exp.Update, params) -> None:
        table = tree.this
        key = self._target(table, "UPDATE")
        alias = table.alias_or_name
        old = self._content(key)
        sets = {e.this.name.lower(): e.expression for e in tree.expressions}
        where = tree.args.get("where")
        cond = where.this if where else exp.true()
        src = tree.args.get("from") or tree.args.get("from_")
        tgt = exp.Table(this=exp.to_identifier("sqlanon__upd_old"), alias=exp.TableAlias(this=exp.to_identifier(alias)))
        old.createOrReplaceTempView("sqlanon__upd_old")
        hit = cond
        q = exp.select().from_(tgt)
        if src is not None:
            other = src.this
            oalias = other.alias_or_name
            joined = exp.Subquery(this=exp.select("*", exp.alias_(exp.true(), "sqlanon__hit")).from_(other.copy()),
                                  alias=exp.TableAlias(this=exp.to_identifier(oalias)))
            q = q.join(joined, on=cond, join_type="LEFT")
            hit = exp.column("sqlanon__hit", oalias).is_(exp.true())
        for c in old.columns:
            col = exp.column(c, alias, quoted=True)
            if c.lower() in sets:
                val = exp.Case(ifs=[exp.If(this=hit.copy(), true=exp.cast(sets[c.lower()].copy(),
                                                                       _dtype(old.schema[c].dataType)))],
                               default=col)
                q = q.select(exp.alias_(val, c, quoted=True))
            else:
                q = q.select(exp.alias_(col, c, quoted=True))
        new = self._query(q, params)
        if src is not None:
            n0, n1 = old.count(), new.count()
            if n0 != n1:
                raise SparkSQLError(f"UPDATE of {table.sql('duckdb')!r}: a row matched more than one row of FROM")
        with self._autocommit():
            self._set(key, new)

    def _delete(self, tree: exp.Delete, params) -> None:
        table = tree.this
        key = self._target(table, "DELETE")
        old = self._content(key)
        old.createOrReplaceTempView("sqlanon__del_old")
        where = tree.args.get("where")
        tgt = exp.Table(this=exp.to_identifier("sqlanon__del_old"),
                        alias=exp.TableAlias(this=exp.to_identifier(table.alias_or_name)))
        q = exp.select("*").from_(tgt)
        if where is not None:
            q = q.where(exp.not_(exp.Coalesce(this=exp.Paren(this=where.this.copy()), expressions=[exp.false()])))
        else:
            q = q.where(exp.false())
        with self._autocommit():
            self._set(key, self._query(q, params))

    def _drop(self, tree: exp.Drop) -> None:
        for t in tree.args.get("tables") or tree.expressions or [tree.this]:
            key = self._key(t)
            if key is None:
                if tree.args.get("exists"):
                    continue
                raise SparkSQLError(f"DROP: {t.sql('duckdb')!r} does not exist")
            if isinstance(key, str):
                self._temps.pop(key)
                self.spark.catalog.dropTempView(key)
            else:
                with self._autocommit():
                    self._tables.pop(key)
                    self.spark.catalog.dropTempView(self._view(key))
                    self._txn["dirty"].add(key)

    def _alter(self, tree: exp.Alter) -> None:
        from pyspark.sql import functions as F
        key = self._target(tree.this, "ALTER TABLE")
        df = self._content(key)
        for a in tree.args.get("actions") or []:
            if not isinstance(a, exp.ColumnDef):
                raise SparkSQLError(f"ALTER TABLE: only ADD COLUMN is supported, not {a.sql('duckdb')}")
            if a.name.lower() in (c.lower() for c in df.columns):
                if a.args.get("exists"):
                    continue
                raise SparkSQLError(f"ALTER TABLE: column {a.name!r} exists")
            df = df.withColumn(a.name, F.lit(None).cast(spark_type(a.args["kind"].sql("duckdb"))))
        with self._autocommit():
            self._set(key, df)

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
        df = data if isinstance(data, DataFrame) else self.spark.createDataFrame(data)
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
        man = self.eng._manifest()
        paths = {(t["schema"].lower(), t["name"].lower()): t["path"] for t in man["tables"]}
        tree = _bind(sqlglot.parse_one(sql, read="duckdb"), params)

        def fix(n):
            if isinstance(n, exp.Table) and n.name:
                key = (n.text("db").lower() or MAIN, n.name.lower())
                if key not in paths:
                    raise SparkSQLError(f"table {n.sql('duckdb')!r} does not exist (committed)")
                p = str(self.eng.warehouse / paths[key])
                return exp.Table(this=exp.to_identifier(p, quoted=True), db=exp.to_identifier("parquet"),
                                 alias=exp.TableAlias(this=exp.to_identifier(n.name)))
            return n
        return [tuple(r) for r in self.eng.spark.sql(tree.transform(fix).sql("spark")).collect()]

    def close(self) -> None:
        pass


def translate(tree: exp.Expression | str, params=None, *, resolve=None, macros=None, tmacros=None,
              columns_of=None) -> exp.Expression:
    """A statement in sqlanon's SQL (DuckDB's dialect; text or a sqlglot tree)
    as a sqlglot tree that writes Spark SQL (``.sql("spark")``): parameters
    bound as literals, ``resolve(table)`` -> a replacement table node (or None),
    scalar ``macros`` (:func:`scalar_macros`) inlined, and the DuckDB constructs
    that sqlglot's Spark dialect writes wrong rewritten. Needs no SparkSession
    (tests/test_transpile.py checks every template through it)."""
    tree = sqlglot.parse_one(tree, read="duckdb") if isinstance(tree, str) else tree.copy()
    tree = _bind(tree, params)
    macros = scalar_macros() if macros is None else macros
    if columns_of is not None and any(isinstance(n, exp.Columns) or (isinstance(n, exp.Table) and isinstance(
            n.this, exp.Anonymous)) for n in tree.walk()):
        tree = inline_table_macros(tree, table_macros() if tmacros is None else tmacros, columns_of)

    def fix(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Table) and n.name and not isinstance(n.parent, (exp.Create, exp.Drop)):
            return (resolve(n) if resolve else None) or n
        if isinstance(n, exp.ArrayAgg) and isinstance(n.this, exp.Order):
            return _ordered_list(n.this.copy().transform(fix))
        if isinstance(n, exp.Bracket) and len(n.expressions) == 1 and isinstance(n.expressions[0], exp.Slice):
            # DuckDB's 1-based inclusive slice x[a:b] (a, b optional) is slice(x, a, b - a + 1)
            # (transform does not descend into a node it replaced: the parts are fixed here)
            sl, arr = n.expressions[0], n.this.copy().transform(fix)
            a = sl.this.copy().transform(fix) if sl.this is not None else exp.Literal.number(1)
            b = sl.expression.copy().transform(fix) if sl.expression is not None else exp.func("size", arr.copy(), dialect="spark")
            length = exp.func("greatest", exp.Sub(this=exp.Paren(this=b), expression=exp.Paren(this=a.copy())) + 1,
                              exp.Literal.number(0))
            return exp.Anonymous(this="slice", expressions=[arr.copy(), a, length])
        if (isinstance(n, exp.Bracket) and len(n.expressions) == 1
                and not (isinstance(n.expressions[0], exp.Literal) and n.expressions[0].is_string)):
            # a list element x[i]: DuckDB's index is 1-based, Spark's x[i] 0-based, and sqlglot shifts a
            # literal index only (when parsing: the tree holds it 0-based); element_at is 1-based (negative
            # from the end, NULL out of range: as DuckDB)
            i = n.expressions[0]
            lit = i.this if isinstance(i, exp.Neg) else i
            if isinstance(lit, exp.Literal) and not lit.is_string:
                i = exp.Literal.number((-1 if i is not lit else 1) * int(lit.this) + 1)
            else:
                i = exp.cast(i.copy().transform(fix), "int")  # (element_at takes an INT index)
            return exp.Anonymous(this="element_at", expressions=[n.this.copy().transform(fix), i])
        if (isinstance(n, exp.Lambda) and len(n.expressions) == 2
                and isinstance(n.parent, (exp.ArrayFilter, exp.Transform))):
            # DuckDB's element index in list_filter / list_transform is 1-based, Spark's 0-based
            i = n.expressions[1].name
            body = n.this.copy().transform(
                lambda c: exp.Paren(this=exp.Add(this=exp.column(i), expression=exp.Literal.number(1)))
                if isinstance(c, exp.Column) and not c.table and c.name == i else c)
            return exp.Lambda(this=body.transform(fix), expressions=[e.copy() for e in n.expressions])
        if isinstance(n, exp.CTE) and n.args.get("materialized") is not None:
            n = n.copy()
            n.set("materialized", None)  # (DuckDB's MATERIALIZED hint; Spark plans CTEs itself)
            return n.transform(fix)
        if isinstance(n, exp.Cast) and _is_row(n.this) and n.to.is_type("text", "varchar"):
            # DuckDB's text of an unnamed struct: (v1, v2, NULL)
            parts = [exp.func("coalesce", exp.cast(e.copy().transform(fix), "text"), exp.Literal.string("NULL"))
                     for e in n.this.expressions]
            return exp.Anonymous(this="concat", expressions=[
                exp.Literal.string("("), exp.Anonymous(this="concat_ws", expressions=[exp.Literal.string(", "), *parts]),
                exp.Literal.string(")")])
        if _is_row(n):
            return exp.Anonymous(this="struct", expressions=[e.copy().transform(fix) for e in n.expressions])
        if isinstance(n, exp.Anonymous) and str(n.this).lower() == "list_reduce":
            # DuckDB's reduce from the first element: aggregate over the rest, starting at the first
            arr, lam = (e.copy().transform(fix) for e in n.expressions)
            rest = exp.Anonymous(this="slice", expressions=[arr.copy(), exp.Literal.number(2), exp.func(
                "greatest", exp.Sub(this=exp.func("size", arr.copy(), dialect="spark"),
                                    expression=exp.Literal.number(1)), exp.Literal.number(0))])
            return exp.Anonymous(this="aggregate", expressions=[
                rest, exp.Anonymous(this="element_at", expressions=[arr.copy(), exp.Literal.number(1)]), lam])
        if isinstance(n, exp.ArrayOverlaps):  # (sqlglot writes &&, which Spark does not parse)
            return exp.Anonymous(this="arrays_overlap",
                                 expressions=[n.this.copy().transform(fix), n.expression.copy().transform(fix)])
        if isinstance(n, exp.Anonymous) and str(n.this).lower() in _RENAMED:
            return exp.Anonymous(this=_RENAMED[str(n.this).lower()],
                                 expressions=[e.copy().transform(fix) for e in n.expressions])
        if isinstance(n, exp.Anonymous) and str(n.this).lower() in macros:
            return _inline(n, macros).transform(fix)
        return n


    return tree.transform(fix)


def _rename_tables(tree: exp.Expression, views: dict[str, str]) -> exp.Expression:
    """``tree`` with its references to the CTEs ``views`` (name -> view) read
    from the views (aliased by the CTE's name, so qualified columns still bind)."""
    def swap(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Table) and not n.args.get("db") and n.name.lower() in views:
            alias = n.args.get("alias") or exp.TableAlias(this=exp.to_identifier(n.name))
            return exp.Table(this=exp.to_identifier(views[n.name.lower()]), alias=alias.copy())
        return n
    return tree.copy().transform(swap) if views else tree.copy()


# DuckDB functions that Spark has under another name (same arguments, same
# result). hash: what the templates still hash with DuckDB's hash() is a join or
# grouping key or a storage order, never what a release publishes (that is the
# portable hash, sql/_lib/hash.sql.j2); xxhash64 keeps such keys 64-bit (Spark's
# hash() is 32-bit: 10^6 distinct keys would collide about a hundred times).
_RENAMED = {"list_intersect": "array_intersect", "list_position": "array_position", "error": "raise_error",
            "hash": "xxhash64"}


def _is_row(n: exp.Expression) -> bool:
    return isinstance(n, exp.Anonymous) and str(n.this).lower() == "row"


def _ordered_list(order: exp.Order) -> exp.Expression:
    """DuckDB's ``list(x ORDER BY k1 [DESC], ...)`` in Spark: the structs (k1, ...,
    x) collected, sorted by a comparator (each key ascending or descending,
    NULLs last as in DuckDB), then x of each."""
    keys = order.expressions
    fields = ", ".join(f"'k{i}', {k.this.sql('spark')}" for i, k in enumerate(keys))
    cmp = "0"
    for i in reversed(range(len(keys))):
        d = -1 if keys[i].args.get("desc") else 1
        a, b = f"l.k{i}", f"r.k{i}"
        cmp = (f"CASE WHEN {a} IS NULL AND {b} IS NULL THEN {cmp} WHEN {a} IS NULL THEN 1 WHEN {b} IS NULL THEN -1 "
               f"WHEN {a} < {b} THEN {-d} WHEN {a} > {b} THEN {d} ELSE {cmp} END")
    sql = (f"transform(array_sort(collect_list(named_struct({fields}, 'v', {order.this.sql('spark')})), "
           f"(l, r) -> {cmp}), s -> s.v)")
    return sqlglot.parse_one(sql, read="spark")


def _bq(name: str) -> str:
    """A Spark SQL identifier in backticks."""
    return "`" + name.replace("`", "``") + "`"


def _dtype(t: T.DataType) -> exp.DataType:
    return exp.DataType.build(t.simpleString(), dialect="spark")


def _bind(tree: exp.Expression, params) -> exp.Expression:
    """Parameters as typed literals in the tree: ``$name`` from a dict, ``?`` and
    ``$1`` from a list."""
    if not params:
        return tree
    pos = iter(params) if isinstance(params, (list, tuple)) else None

    def lit(v):
        if isinstance(v, (list, tuple)):
            return exp.Array(expressions=[lit(x) for x in v])
        return exp.convert(v)

    def fix(n):
        if isinstance(n, exp.Placeholder):
            name = n.name
            if isinstance(params, dict):
                if name not in params:
                    raise SparkSQLError(f"parameter ${name} has no value")
                return lit(params[name])
            if name and name.isdigit():
                return lit(params[int(name) - 1])
            return lit(next(pos))
        return n
    return tree.transform(fix)
