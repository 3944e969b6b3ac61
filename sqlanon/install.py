"""Install sqlanon into a DuckDB connection: every macro file, then the UDFs.

The order of macro files is the order of the ``.read`` lines in
``macros/sqlanon.sql``, the same file a DuckDB shell user reads, so the shell
and Python get exactly the same definitions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from . import udfs
from ._resources import macros_dir

_READ_RE = re.compile(r"^\s*\.read\s+(\S+)\s*$")


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


def install(con: duckdb.DuckDBPyConnection) -> Installed:
    """Load every ``sqlanon_`` macro and register the Python UDFs on ``con``.

    Idempotent: macros use ``CREATE OR REPLACE``, UDFs already registered on this
    connection are replaced. Returns the names installed.
    """
    for path in macro_files():
        con.execute(path.read_text())
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


def connect(path: str | Path | None = None, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open a DuckDB database (in memory when ``path`` is None) with sqlanon installed."""
    con = duckdb.connect(":memory:" if path is None else str(path), read_only=read_only)
    install(con)
    return con
