"""Identifiers: the one place where names become SQL.

Every table or column name that reaches SQL text goes through :func:`quote`
(defined with the engines' dialect, :func:`sqlanon.engines.base.quote`, which
the engines use too: this module imports the engines, never the reverse);
every value goes in as a parameter. :func:`require_table` and
:func:`require_columns` check names against the catalog (through the engine)
first, so a typo gets an error that names the table or column and lists what
exists.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from typing import TYPE_CHECKING

from .engines import as_engine
from .engines.base import quote
from .errors import SqlanonError

if TYPE_CHECKING:  # annotations only: `sqlanon --help` does not import DuckDB
    import duckdb

_PROJECT_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,62}$")
#: DuckDB's integer and floating-point type names, as table_columns reports them
INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
                 "UHUGEINT")
FLOAT_TYPES = ("FLOAT", "DOUBLE")


def quote_list(names: Iterable[str]) -> str:
    """Comma-separated quoted identifiers."""
    return ", ".join(quote(n) for n in names)


def check_project(project: str) -> str:
    """Project names become parts of table names (``sqlanon_<project>_qit``), so
    they are restricted to letters, digits and ``_`` (starting with a letter)."""
    if not isinstance(project, str) or not _PROJECT_RE.match(project):
        raise SqlanonError(
            f"project name {project!r} is not valid: use 1-63 letters, digits or '_', starting with a letter"
        )
    return project


def table_columns(con, table: str) -> dict[str, str]:
    """Column name -> type of ``table`` (a table or view name, unqualified or
    ``schema.table``) in ``con`` (a connection or an engine, see
    :meth:`sqlanon.engines.duckdb.DuckDBEngine.columns`). Raises SqlanonError naming
    the table if it is missing."""
    require_not_file(con, table)
    return as_engine(con).columns(table)


def require_not_file(con, table: str) -> None:
    """Refuse a table name that is not in the database but names a file
    (``patients.csv``): DuckDB would read the file in its place (a replacement
    scan), in one statement but not in another (issue 33). Load it first."""
    import os

    if not os.path.isfile(table):
        return
    eng = as_engine(con)
    schema, _, name = table.rpartition(".")
    if eng.exists(table, temporary=True) or (schema and eng.exists(name, schema=schema)):
        return
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(table))[0]) or "t"
    raise SqlanonError(f"{table!r} is a file, not a table of the database; load it as a table first, e.g. CREATE "
                       f"TABLE {stem} AS FROM '{table}' (DuckDB shell or Python), and give that table's name")


def _exists(con, table: str) -> bool:
    """Whether a table or view has exactly this name (dots included; temporary
    ones count), read from the engine's catalog."""
    return as_engine(con).exists(table, temporary=True)


def qualified(con, table: str) -> str:
    """Quoted relation name for ``table``, accepting ``schema.table``."""
    return as_engine(con).relation(table)


def require_table(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    """Like :func:`table_columns`; the name says what it is for."""
    return table_columns(con, table)


def require_columns(
    con: duckdb.DuckDBPyConnection, table: str, columns: Sequence[str], *, role: str = "column",
    cols: dict[str, str] | None = None,
) -> dict[str, str]:
    """Check that every name in ``columns`` is a column of ``table``; return the
    table's columns. ``role`` (e.g. "QI column", "SA column") goes in the error.
    ``cols``: the table's columns when the caller has read them (not read again)."""
    cols = table_columns(con, table) if cols is None else cols
    if isinstance(columns, str):
        columns = [columns]
    missing = [c for c in columns if c not in cols]
    if missing:
        raise SqlanonError(
            f"{role} {missing[0]!r} is not a column of table {table!r}; its columns are: {', '.join(cols)}"
        )
    return cols


def require_qi(con: duckdb.DuckDBPyConnection, table: str, qi: Sequence[str], *,
               cols: dict[str, str] | None = None) -> list[str]:
    """Validate a QI list: non-empty, no duplicates, every column present (``cols``: the
    table's columns when the caller has read them)."""
    if isinstance(qi, str):
        qi = [qi]
    qi = list(qi)
    if not qi:
        raise SqlanonError(f"the QI column list for table {table!r} is empty; name at least one quasi-identifier")
    dup = {c for c in qi if qi.count(c) > 1}
    if dup:
        raise SqlanonError(f"QI column {sorted(dup)[0]!r} is listed twice for table {table!r}")
    require_columns(con, table, qi, role="QI column", cols=cols)
    return qi


def require_m(m, *, name: str = "m") -> int:
    """m (or l) must be an integer >= 2."""
    if isinstance(m, bool) or not isinstance(m, int):
        if isinstance(m, float) and m.is_integer():
            m = int(m)
        else:
            raise SqlanonError(f"{name} must be an integer >= 2, got {m!r}")
    if m < 2:
        raise SqlanonError(f"{name} must be an integer >= 2, got {m}")
    return m
