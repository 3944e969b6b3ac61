"""Install sqlanon into a DuckDB connection: every macro file, then the UDFs.

The order of macro files is the order of the ``.read`` lines in
``macros/sqlanon.sql``, the same file a DuckDB shell user reads, so the shell
and Python get exactly the same definitions.

Database files are created with DuckDB storage version ``SHELL_STORAGE_VERSION``
so that the DuckDB shell users can install (``pip install duckdb-cli``, 1.5.x)
opens them; docs/shell.md explains the choice and what to do with a file that
an unconfigured DuckDB 2.0 created.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from . import udfs
from ._resources import macros_dir

_READ_RE = re.compile(r"^\s*\.read\s+(\S+)\s*$")
# every macro file defines its macros with this statement head (test_install checks it)
_CREATE_MACRO = re.compile(r"^(\s*CREATE\s+OR\s+REPLACE\s+)MACRO\b", re.I | re.M)

#: Storage version of the database files sqlanon.connect creates: v1.5.0 is the
#: newest that the DuckDB shell on PyPI (duckdb-cli 1.5.x, storage versions up to
#: 68) reads. A file keeps the version it was created with.
SHELL_STORAGE_VERSION = "v1.5.0"


def macro_files() -> list[Path]:
    """Macro files in load order, as listed in ``macros/sqlanon.sql``."""
    folder = macros_dir()
    files = []
    for line in (folder / "sqlanon.sql").read_text().splitlines():
        m = _READ_RE.match(line)
        if m:
            files.append(folder / Path(m.group(1)).name)
    return files


def bundle() -> str:
    """All macro files concatenated: one script for ``duckdb < file`` or
    ``.read file`` from any working directory (``sqlanon macros`` prints it)."""
    parts = []
    for path in macro_files():
        parts.append(f"-- ===== {path.name} =====\n{path.read_text().rstrip()}\n")
    return "\n".join(parts)


@dataclass
class Installed:
    """What :func:`install` put into the connection."""

    macros: list[str] = field(default_factory=list)
    udfs: list[str] = field(default_factory=list)

    def __iter__(self):
        yield from self.macros
        yield from self.udfs


def _read_only(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(con.execute("SELECT readonly FROM duckdb_databases() WHERE database_name = current_database()")
                .fetchall()[0][0])


def install(con: duckdb.DuckDBPyConnection) -> Installed:
    """Load every ``sqlanon_`` macro and register the Python UDFs of
    :mod:`sqlanon.udfs` on ``con`` (there are none today: every check is a SQL
    macro, so the DuckDB shell has them all).

    Idempotent: macros use ``CREATE OR REPLACE``, UDFs already registered on this
    connection are replaced. On a read-only database the macros are created as
    TEMPORARY macros (they live as long as the connection; the file is not
    touched). Returns the names installed.
    """
    temporary = _read_only(con)
    for path in macro_files():
        sql = path.read_text()
        con.execute(_CREATE_MACRO.sub(r"\1TEMP MACRO", sql) if temporary else sql)
    registered = udfs.register_all(con)
    names = [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT function_name FROM duckdb_functions() "
            "WHERE function_name LIKE 'sqlanon\\_%' ESCAPE '\\' AND function_type LIKE '%macro' "
            "ORDER BY 1"
        ).fetchall()
    ]
    return Installed(macros=names, udfs=registered)


def connect(path: str | Path | None = None, *, read_only: bool = False,
            storage_version: str | None = SHELL_STORAGE_VERSION) -> duckdb.DuckDBPyConnection:
    """Open a DuckDB database (in memory when ``path`` is None) with sqlanon installed.

    A new file is created with DuckDB storage version ``storage_version`` (default
    ``SHELL_STORAGE_VERSION``, readable by the DuckDB 1.5 shell; None: DuckDB's
    own default, which only DuckDB 2.0 reads); an existing file keeps its version.
    ``read_only=True`` installs the macros as temporary macros."""
    config = {"storage_compatibility_version": storage_version} if storage_version and path is not None else {}
    if path is not None:
        require_database_file(path)
    con = duckdb.connect(":memory:" if path is None else str(path), read_only=read_only, config=config)
    try:
        install(con)
    except BaseException:
        con.close()
        raise
    return con


def require_database_file(path: str | Path) -> None:
    """Refuse an existing file that is not a DuckDB database (issue 33): DuckDB
    opens a CSV or Parquet file given as a database as a temporary view of it,
    so a release "made" there is printed and kept nowhere. A DuckDB file has
    the magic ``DUCK`` at byte 8; an empty or missing file is a new database."""
    from .errors import SqlanonError

    p = Path(path)
    if not p.is_file() or p.stat().st_size == 0:
        return
    with p.open("rb") as f:
        head = f.read(12)
    if head[8:12] != b"DUCK":
        stem = re.sub(r"\W", "_", p.stem) or "t"
        raise SqlanonError(
            f"{str(path)!r} is not a DuckDB database file{' (a ' + p.suffix[1:].upper() + ' file?)' if p.suffix else ''}; "
            "give a DuckDB database, and load the file into it as a table first, e.g. duckdb DB.duckdb "
            f"\"CREATE TABLE {stem} AS FROM '{p.name}'\"; nothing was written")


def file_storage_version(con: duckdb.DuckDBPyConnection) -> str | None:
    """The storage version of the current database file as DuckDB reports it
    (e.g. ``v1.5.0`` or ``v2.0.0+``), None in memory."""
    tags = con.execute("SELECT tags FROM duckdb_databases() WHERE database_name = current_database()").fetchall()
    return (tags[0][0] or {}).get("storage_version") if tags else None
