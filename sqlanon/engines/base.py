"""The engine protocol: what sqlanon needs from a database (SPEC §9,
docs/architecture.md "How to add an engine").

A :class:`Dialect` is what the SQL text of an engine differs in: its name
(which picks the Jinja macro file ``sql/_lib/<name>.sql.j2`` whose macros
override the defaults of ``sql/_lib/default.sql.j2``) and its constants (how
many SA values a bit mask holds, whether a table keeps its stored row order),
read by Python as attributes and by the templates as ``lib.<name>``.

An :class:`Engine` is a dialect that runs SQL: execute, fetch, a DataFrame,
catalog look-ups, temporary tables, the transaction. Its database's own
exceptions never leave it: it raises the typed errors of :mod:`sqlanon.errors`
(:class:`~sqlanon.errors.MissingObject`, :class:`~sqlanon.errors.Conflict`,
:class:`~sqlanon.errors.ReadOnly`, :class:`~sqlanon.errors.LockHeld`, else
:class:`~sqlanon.errors.EngineError`), and :meth:`Engine.typed` maps one
that escaped through a raw connection.

>>> class Toy(Dialect):
...     name = "toy"
>>> Toy().macro_file, Toy.constants()["signature_values"]
('_lib/toy.sql.j2', 0)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

from ..errors import EngineError, MissingObject, SqlanonError


def quote(name: str) -> str:
    '''Quote one identifier for sqlanon's SQL (DuckDB's dialect, which the
    Spark engine translates), doubling embedded double quotes. The one
    definition; the library reaches it as :func:`sqlanon.ident.quote`.

    >>> quote('adult')
    '"adult"'
    >>> quote('x"; DROP TABLE t; --')
    '"x""; DROP TABLE t; --"'
    '''
    if not isinstance(name, str) or name == "":
        raise SqlanonError(f"identifier must be a non-empty string, got {name!r}")
    return '"' + name.replace('"', '""') + '"'


class Dialect:
    """The SQL an engine speaks: its name and constants (class attributes)."""

    name = "base"
    #: SA values a signed bit mask holds (the release gate's candidate sets)
    mask_values = 0
    #: SA values an unsigned signature mask holds (the publisher's limit)
    signature_values = 0
    #: whether a table made by CREATE TABLE ... AS SELECT ... ORDER BY keeps
    #: that order, so that a row's position is its rowid (step 8 ranks by a
    #: window where it does not)
    rowid_order = False
    #: whether the engine has bitmap aggregates (the publisher's duplicate-id check)
    bitmaps = False

    #: the constants the templates read as ``lib.<name>``
    CONSTANTS = ("mask_values", "signature_values", "rowid_order")

    @classmethod
    def constants(cls) -> dict:
        return {k: getattr(cls, k) for k in cls.CONSTANTS}

    @property
    def macro_file(self) -> str:
        return f"_lib/{self.name}.sql.j2"

    @staticmethod
    def hex_u64(expr: str) -> str:
        """SQL: the unsigned 64-bit number written by the 16 hex digits ``expr``."""
        return f"('0x' || {expr})::UBIGINT"


class Engine(Dialect):
    """What sqlanon needs from a database. ``Error`` is the base of the typed
    errors the engine raises; ``MissingTable`` / ``MissingMacro`` the error of
    a statement naming a table / macro that does not exist."""

    Error: type[BaseException] | tuple = EngineError
    MissingTable: type[BaseException] | tuple = MissingObject
    MissingMacro: type[BaseException] | tuple = MissingObject

    def typed(self, exc: BaseException) -> BaseException:
        """The typed error (sqlanon.errors) for ``exc``, an exception of this
        engine's database that escaped through a raw connection; anything else
        as it is."""
        return exc

    # --------------------------------------------------------------- statements
    def execute(self, sql: str, params=None) -> None:
        raise NotImplementedError

    def fetch(self, sql: str, params=None) -> list[tuple]:
        raise NotImplementedError

    def fetch_one(self, sql: str, params=None) -> tuple | None:
        rows = self.fetch(sql, params)
        return rows[0] if rows else None

    def df(self, sql: str, params=None):
        """The result as a pandas DataFrame."""
        import pandas as pd

        rows = self.fetch(sql, params)
        return pd.DataFrame([list(r) for r in rows], columns=self.last_columns())

    def executemany(self, sql: str, rows: Sequence[Sequence]) -> None:
        for r in rows:
            self.execute(sql, list(r))

    def last_columns(self) -> list[str]:
        """The column names of the last query's result."""
        raise NotImplementedError

    @contextlib.contextmanager
    def release_scope(self, large: "Callable[[], bool]", settings=None):
        """Settings a release runs under (none by default); ``large()`` says
        whether the source is large (read only if the engine needs to know);
        ``settings``: the engine's settings the caller has read (engine-specific)."""
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

    # ------------------------------------------------------------ temporaries
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
