"""The DuckDB engine: sqlanon's default database, and the only module that
knows DuckDB's exception types and messages (it raises the typed errors of
:mod:`sqlanon.errors` in their place) and queries DuckDB's catalog
(``duckdb_tables()``, ``duckdb_views()``, ``DESCRIBE``).

A ``duckdb.DuckDBPyConnection`` passed where an engine is expected keeps
working: :func:`sqlanon.engines.as_engine` wraps it.

>>> import duckdb
>>> eng = DuckDBEngine(duckdb.connect())
>>> eng.name, eng.macro_file, eng.signature_values
('duckdb', '_lib/duckdb.sql.j2', 128)
>>> eng.execute("CREATE TABLE Ward (id INTEGER, disease VARCHAR)")
>>> eng.exists("ward"), eng.exists("nope")
(True, False)
>>> eng.columns("Ward")
{'id': 'INTEGER', 'disease': 'VARCHAR'}
>>> with eng.transaction():
...     eng.execute("INSERT INTO Ward VALUES ($i, 'flu')", {"i": 1})
>>> eng.fetch("SELECT * FROM Ward")
[(1, 'flu')]
>>> eng.fetch("SELECT * FROM nope")
Traceback (most recent call last):
...
sqlanon.errors.MissingObject: Catalog Error: Table with name nope does not exist!
...
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from pathlib import Path

import duckdb

from ..errors import CannotOpen, Conflict, EngineError, LockHeld, MissingObject, ReadOnly, SqlanonError
from .base import Dialect, Engine, quote


class DuckDBDialect(Dialect):
    """DuckDB's constants: 128-bit masks (UHUGEINT; the signed HUGEINT holds
    127 values), tables kept in insertion order, bitmap aggregates."""

    name = "duckdb"
    mask_values = 127
    signature_values = 128
    rowid_order = True
    bitmaps = True


_LOCK_PID = re.compile(r"\(PID (\d+)\)")


def typed(exc: BaseException) -> BaseException:
    """The typed error (sqlanon.errors) for a DuckDB exception; anything else as it is."""
    if not isinstance(exc, duckdb.Error):
        return exc
    text = str(exc)
    if isinstance(exc, duckdb.TransactionException) and "onflict" in text:
        cls: type[EngineError] = Conflict
    elif "read-only" in text:
        cls = ReadOnly
    elif isinstance(exc, duckdb.CatalogException):
        cls = MissingObject
    elif isinstance(exc, duckdb.IOException) and "Could not set lock" in text:
        cls = LockHeld
    else:
        cls = EngineError
    out = cls(text)
    out.__cause__ = exc
    return out


@contextlib.contextmanager
def _typed_errors():
    try:
        yield
    except duckdb.Error as exc:
        raise typed(exc) from exc


def open_error(path: str | Path, exc: BaseException) -> BaseException:
    """What went wrong opening database file ``path``, as our error (LockHeld or
    CannotOpen) naming the file and what to do; anything else as it is."""
    if not isinstance(exc, duckdb.Error):
        return exc
    text = str(exc)
    db = str(path)
    if "Could not set lock" in text:
        pid = _LOCK_PID.search(text)
        who = f"another process (PID {pid.group(1)})" if pid else "another process"
        return LockHeld(f"cannot open database {db!r}: it is in use by {who} (DuckDB lets one process write a "
                        "database file); close it there, or wait until that release has finished; nothing was "
                        "written")
    if "not a valid DuckDB database" in text:
        why = "it is not a DuckDB database file"
    elif "No such file or directory" in text or "does not exist" in text:
        why = "the file or its directory does not exist"
    elif "ermission denied" in text or "ead-only file system" in text:
        why = "permission denied (open it where you may write, or copy it)"
    else:
        why = f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"
    return CannotOpen(f"cannot open database {db!r}: {why}")


def open_database(path: str | Path | None, *, read_only: bool = False, config: dict | None = None,
                  ) -> duckdb.DuckDBPyConnection:
    """``duckdb.connect`` (in memory when ``path`` is None), its errors as
    :func:`open_error` says."""
    target = ":memory:" if path is None else str(path)
    try:
        return duckdb.connect(target, read_only=read_only, config=config or {})
    except duckdb.Error as exc:
        raise open_error(target, exc) from exc


def attach(con: duckdb.DuckDBPyConnection, path: str | Path, alias: str) -> None:
    """Attach database file ``path`` read-only as ``alias`` (an identifier the
    caller chose), its errors as :func:`open_error` says."""
    try:
        con.execute(f"ATTACH ? AS {quote(alias)} (READ_ONLY)", [str(path)])
    except duckdb.Error as exc:
        raise open_error(path, exc) from exc


def _exists_sql(temporary: bool, schema: bool) -> str:
    """DuckDBEngine.exists's statement: $1 the name, $2 the schema (only when ``schema``); each
    condition only when needed (a condition costs planning time, here a good part of the call)."""
    cols = (", schema_name AS s" if schema else "") + ("" if temporary else ", temporary AS t")
    cond = (" AND lower(s) = lower($2)" if schema else "") + ("" if temporary else " AND NOT t")
    return (f"SELECT count(*) FILTER (lower(n) = lower($1){cond}) FROM (SELECT table_name AS n{cols} FROM "
            f"duckdb_tables() UNION ALL SELECT view_name{cols} FROM duckdb_views())")


class DuckDBEngine(DuckDBDialect, Engine):
    """The DuckDB engine over one ``duckdb.DuckDBPyConnection`` (``con``, kept
    for code that needs the connection itself)."""

    #: DuckDB's own errors (what SQL on the raw connection raises)
    raw_errors = (duckdb.Error,)

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con

    def __repr__(self) -> str:
        return f"DuckDBEngine({self.con!r})"

    def typed(self, exc: BaseException) -> BaseException:
        return typed(exc)

    def execute(self, sql: str, params=None) -> None:
        with _typed_errors():
            self.con.execute(sql, params or [])

    def fetch(self, sql: str, params=None) -> list[tuple]:
        with _typed_errors():
            return self.con.execute(sql, params or []).fetchall()

    def executemany(self, sql: str, rows: Sequence[Sequence]) -> None:
        with _typed_errors():
            self.con.executemany(sql, rows)

    def last_columns(self) -> list[str]:
        return [d[0] for d in self.con.description or []]

    def df(self, sql: str, params=None):
        """The result as a pandas DataFrame."""
        with _typed_errors():
            return self.con.execute(sql, params or []).df()

    @contextlib.contextmanager
    def release_scope(self, large, settings=None):
        """Step 8 reads positions from a table stored in ORDER BY order
        (DuckDB's default, preserve_insertion_order): a session that turned it
        off gets it back after the release. A small source (``large()`` false)
        is released on one thread: read before the transaction; setting the
        threads to 1 and back for a large source cost 0.17 s at 10M rows.
        ``settings``: (preserve_insertion_order, threads) when the caller has
        read them (current_setting's values; one statement fewer)."""
        keep_order, keep_threads = settings or self.settings(["preserve_insertion_order", "threads"])
        if not keep_order:
            self.execute("SET preserve_insertion_order = true")
        one_thread = int(keep_threads) != 1 and not large()
        if one_thread:
            self.execute("SET threads = 1")
        try:
            yield
        finally:
            if not keep_order:
                self.execute("SET preserve_insertion_order = false")
            if one_thread:
                self.execute(f"SET threads = {int(keep_threads)}")

    # Catalog look-ups read duckdb_tables()/duckdb_views() instead of running a
    # statement that may fail: a failed statement aborts the caller's open
    # transaction (a release looks tables up inside one). The existence test is an
    # aggregate's FILTER over the two catalogs' names, not a WHERE: the same rows
    # counted, 0.48 ms of CPU a call instead of 0.76 (a WHERE over these table
    # functions costs more planning; issue 35, seventh round).
    _EXISTS_SQL = {(tmp, sch): _exists_sql(tmp, sch) for tmp in (True, False) for sch in (True, False)}

    def exists(self, name: str, *, temporary: bool = False, schema: str | None = None) -> bool:
        """Whether a table or view has this exact name (dots included), in any
        case (DuckDB resolves names case-insensitively), in ``schema`` (any
        schema when None); temporary ones count only with ``temporary=True``."""
        with_schema = schema is not None
        return bool(self.fetch(self._EXISTS_SQL[bool(temporary), with_schema],
                               [name, schema] if with_schema else [name])[0][0])

    def locate(self, name: str, *, schema: str | None = None) -> tuple[str, str, str] | None:
        """(database, schema, name) of the non-temporary table ``name`` (any
        case; in ``schema`` when given) as the catalog spells it, or None."""
        rows = self.fetch("SELECT database_name, schema_name, table_name FROM duckdb_tables() "
                          "WHERE lower(table_name) = lower(?) AND NOT temporary "
                          "AND (lower(schema_name) = lower(?) OR ? IS NULL)", [name, schema, schema])
        return tuple(rows[0]) if rows else None

    @staticmethod
    def exists_sql(name: str, *, schema: str) -> str:
        """A SQL expression, for a script this engine runs later (``sqlanon
        compile``), that is true when table ``name`` exists in ``schema``
        (names as literals: project names hold no quote)."""
        return (f"(SELECT count(*) FROM duckdb_tables() WHERE schema_name = '{schema}' AND "
                f"lower(table_name) = lower('{name}')) > 0")

    def find_tables(self, names: Sequence[str], *, schema: str) -> list[str]:
        """The non-temporary tables of the current database in ``schema`` whose
        names are among ``names`` (any case), as the catalog spells them."""
        return [r[0] for r in self.fetch(
            "SELECT table_name FROM duckdb_tables() WHERE NOT temporary AND database_name = current_database() "
            "AND lower(schema_name) = lower(?) AND lower(table_name) IN (SELECT lower(unnest(?))) ORDER BY 1",
            [schema, list(names)])]

    def relations(self, *, current_database: bool = False) -> list[str]:
        """Names of the non-temporary, non-internal tables and views (of the
        current database only with ``current_database``)."""
        w = " AND database_name = current_database()" if current_database else ""
        return [r[0] for r in self.fetch(
            f"SELECT table_name FROM duckdb_tables() WHERE NOT temporary{w} UNION ALL "
            f"SELECT view_name FROM duckdb_views() WHERE NOT internal AND NOT temporary{w}")]

    def schema_relations(self) -> list[tuple[str, str]]:
        """(schema, name) of every non-temporary, non-internal table and view."""
        return [tuple(r) for r in self.fetch(
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE NOT temporary UNION ALL "
            "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal AND NOT temporary")]

    def drop_temporary(self, names: Sequence[str]) -> None:
        """Drop the temporary views and tables among ``names`` that exist (views
        first, each kind in the order given): one catalog query instead of a
        DROP ... IF EXISTS per name."""
        found = dict(self.fetch(
            "SELECT lower(view_name), 'VIEW' FROM duckdb_views() WHERE temporary AND lower(view_name) IN "
            "(SELECT lower(unnest($n))) UNION ALL SELECT lower(table_name), 'TABLE' FROM duckdb_tables() "
            "WHERE temporary AND lower(table_name) IN (SELECT lower(unnest($n)))", {"n": list(names)}))
        for kind in ("VIEW", "TABLE"):
            for n in names:
                if found.get(n.lower()) == kind:
                    self.execute(f"DROP {kind} {quote(n)}")

    def relation(self, table: str) -> str:
        """``table`` as written in SQL: one quoted name if a table or view has
        exactly that name (dots included), else ``schema.table`` quoted by parts."""
        if "." not in table or self.exists(table, temporary=True):
            return quote(table)
        return ".".join(quote(p) for p in table.split("."))

    def columns(self, table: str) -> dict[str, str]:
        """Column name -> DuckDB type of ``table`` (a table or view name,
        unqualified or ``schema.table``). Raises SqlanonError naming the table
        if it is missing."""
        try:
            rows = self.fetch(f"DESCRIBE {self.relation(table)}")
        except EngineError as exc:
            raise SqlanonError(
                f"table {table!r} does not exist; create it first or check the name (names are case-sensitive "
                "when quoted)") from exc
        return {r[0]: r[1] for r in rows}

    def setting(self, name: str):
        return self.fetch("SELECT current_setting(?)", [name])[0][0]

    def current_database(self) -> str:
        return self.fetch("SELECT current_database()")[0][0]

    def settings(self, names: Sequence[str]) -> list:
        """The values of several settings, in one statement."""
        return list(self.fetch(f"SELECT {', '.join('current_setting(?)' for _ in names)}", list(names))[0])

    def cursor(self) -> "DuckDBEngine":
        with _typed_errors():
            return DuckDBEngine(self.con.cursor())

    def close(self) -> None:
        self.con.close()

    @staticmethod
    def is_connection(con) -> bool:
        return isinstance(con, duckdb.DuckDBPyConnection)
