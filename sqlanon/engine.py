"""The database engine behind a release, a check or an audit: one object that
executes SQL, fetches rows, looks tables and columns up in the catalog and
runs a transaction (SPEC §9, docs/architecture.md "how to add an engine").

Everything that depends on the engine lives here or in the engine's Jinja
macro file ``sql/_lib/<name>.sql.j2`` (imported by every template as ``lib``,
see :mod:`sqlanon.templates`): a second engine is a subclass of
:class:`Engine` plus one macro file, not a copy of each template. Nothing
outside this module queries the catalog (``duckdb_tables()``,
``duckdb_views()``, ``DESCRIBE``).

A ``duckdb.DuckDBPyConnection`` passed where an engine is expected keeps
working: :func:`as_engine` wraps it.

>>> import duckdb
>>> eng = as_engine(duckdb.connect())
>>> eng.name, eng.macro_file
('duckdb', '_lib/duckdb.sql.j2')
>>> eng.execute("CREATE TABLE Ward (id INTEGER, disease VARCHAR)")
>>> eng.exists("ward"), eng.exists("nope")
(True, False)
>>> eng.columns("Ward")
{'id': 'INTEGER', 'disease': 'VARCHAR'}
>>> with eng.transaction():
...     eng.execute("INSERT INTO Ward VALUES ($i, 'flu')", {"i": 1})
>>> eng.fetch("SELECT * FROM Ward")
[(1, 'flu')]
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

import duckdb

from .errors import SqlanonError
from .ident import quote


class Engine:
    """What sqlanon needs from a database. ``name`` picks the macro file
    ``sql/_lib/<name>.sql.j2``; ``Error`` is the class of the engine's own
    errors (mapped to SqlanonError by the callers that know what failed)."""

    name = "base"
    Error: type[BaseException] = Exception
    #: the engine's error for a statement naming a table that does not exist
    MissingTable: type[BaseException] = Exception
    #: the engine's error for a call of a SQL macro that is not installed
    MissingMacro: type[BaseException] = Exception
    #: whether the engine has bitmap aggregates (DuckDB's bitstring_agg), for
    #: the publisher's duplicate-id check
    bitmaps = False

    @property
    def macro_file(self) -> str:
        return f"_lib/{self.name}.sql.j2"

    # --------------------------------------------------------------- statements
    def execute(self, sql: str, params=None) -> None:
        raise NotImplementedError

    def fetch(self, sql: str, params=None) -> list[tuple]:
        raise NotImplementedError

    def fetch_one(self, sql: str, params=None) -> tuple | None:
        rows = self.fetch(sql, params)
        return rows[0] if rows else None

    def executemany(self, sql: str, rows: Sequence[Sequence]) -> None:
        for r in rows:
            self.execute(sql, list(r))

    def last_columns(self) -> list[str]:
        """The column names of the last query's result."""
        raise NotImplementedError

    @staticmethod
    def hex_u64(expr: str) -> str:
        """SQL: the unsigned 64-bit number written by the 16 hex digits ``expr``."""
        return f"('0x' || {expr})::UBIGINT"

    @contextlib.contextmanager
    def release_scope(self, large: "Callable[[], bool]"):
        """Settings a release runs under (none by default); ``large()`` says
        whether the source is large (read only if the engine needs to know)."""
        yield

    # ------------------------------------------------------------------ catalog
    def exists(self, name: str, *, temporary: bool = False, schema: str | None = None) -> bool:
        raise NotImplementedError

    def locate(self, name: str, *, schema: str | None = None) -> tuple[str, str, str] | None:
        raise NotImplementedError

    def find_tables(self, names: Sequence[str], *, schema: str) -> list[str]:
        raise NotImplementedError

    def current_database(self) -> str:
        raise NotImplementedError

    def setting(self, name: str):
        raise NotImplementedError

    def settings(self, names: Sequence[str]) -> list:
        """The values of several settings."""
        return [self.setting(n) for n in names]

    def columns(self, table: str) -> dict[str, str]:
        raise NotImplementedError

    def relations(self, *, current_database: bool = False) -> list[str]:
        raise NotImplementedError

    def schema_relations(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    def drop_temporary(self, names: Sequence[str]) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------- transactions
    def begin(self) -> None:
        self.execute("BEGIN TRANSACTION")

    def commit(self) -> None:
        self.execute("COMMIT")

    def rollback(self) -> None:
        self.execute("ROLLBACK")

    @contextlib.contextmanager
    def transaction(self) -> Iterator["Engine"]:
        """BEGIN; COMMIT on success, ROLLBACK (and re-raise) on any error."""
        self.begin()
        try:
            yield self
        except BaseException:
            with contextlib.suppress(self.Error):
                self.rollback()
            raise
        self.commit()

    def cursor(self) -> "Engine":
        """An engine on a second cursor of the same database (its own transaction)."""
        raise NotImplementedError

    def close(self) -> None:
        pass


class DuckDBEngine(Engine):
    """The DuckDB engine over one ``duckdb.DuckDBPyConnection`` (``con``, kept
    for code that needs the connection itself, e.g. ``.df()``)."""

    name = "duckdb"
    Error = duckdb.Error
    MissingTable = duckdb.CatalogException
    MissingMacro = duckdb.CatalogException
    bitmaps = True

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con

    def __repr__(self) -> str:
        return f"DuckDBEngine({self.con!r})"

    def execute(self, sql: str, params=None) -> None:
        self.con.execute(sql, params or [])

    def fetch(self, sql: str, params=None) -> list[tuple]:
        return self.con.execute(sql, params or []).fetchall()

    def executemany(self, sql: str, rows: Sequence[Sequence]) -> None:
        self.con.executemany(sql, rows)

    def last_columns(self) -> list[str]:
        return [d[0] for d in self.con.description or []]

    @contextlib.contextmanager
    def release_scope(self, large):
        """Step 8 reads positions from a table stored in ORDER BY order
        (DuckDB's default, preserve_insertion_order): a session that turned it
        off gets it back after the release. A small source (``large()`` false)
        is released on one thread: read before the transaction; setting the
        threads to 1 and back for a large source cost 0.17 s at 10M rows."""
        keep_order, keep_threads = self.settings(["preserve_insertion_order", "threads"])
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

    def df(self, sql: str, params=None):
        """The result as a pandas DataFrame."""
        return self.con.execute(sql, params or []).df()

    # Catalog look-ups read duckdb_tables()/duckdb_views() instead of running a
    # statement that may fail: a failed statement aborts the caller's open
    # transaction (a release looks tables up inside one).
    _EXISTS = ("SELECT count(*) FROM (SELECT table_name AS n, schema_name AS s FROM duckdb_tables(){w} UNION ALL "
               "SELECT view_name, schema_name FROM duckdb_views(){w}) WHERE lower(n) = lower(?) "
               "AND (lower(s) = lower(?) OR ? IS NULL)")
    _EXISTS_SQL = {True: _EXISTS.format(w=""), False: _EXISTS.format(w=" WHERE NOT temporary")}

    def exists(self, name: str, *, temporary: bool = False, schema: str | None = None) -> bool:
        """Whether a table or view has this exact name (dots included), in any
        case (DuckDB resolves names case-insensitively), in ``schema`` (any
        schema when None); temporary ones count only with ``temporary=True``."""
        return bool(self.fetch(self._EXISTS_SQL[temporary], [name, schema, schema])[0][0])

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
        except duckdb.Error as exc:
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
        return DuckDBEngine(self.con.cursor())

    def close(self) -> None:
        self.con.close()


def as_engine(con) -> Engine:
    """``con`` as an engine: an Engine as it is, a DuckDB connection wrapped."""
    if isinstance(con, Engine):
        return con
    if isinstance(con, duckdb.DuckDBPyConnection):
        return DuckDBEngine(con)
    raise SqlanonError(f"expected a duckdb connection (sqlanon.connect()) or a sqlanon engine, got "
                       f"{type(con).__name__}")
