"""Locate the SQL that ships with sqlanon.

In a wheel, ``macros/`` and ``sql/`` are installed inside the package
(``sqlanon/macros``, ``sqlanon/sql``); in a source checkout they sit at the top
of the repository. Both layouts are tried, package first.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_PKG = Path(str(resources.files("sqlanon")))


def _find(name: str) -> Path:
    for candidate in (_PKG / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"sqlanon: cannot find its {name}/ folder next to {_PKG}; reinstall the package")


def macros_dir() -> Path:
    """Folder of the plain-SQL macro files (``macros/*.sql``)."""
    return _find("macros")


def sql_dir() -> Path:
    """Folder of the Jinja SQL templates (``sql/**.sql.j2``)."""
    return _find("sql")


def data_dir() -> Path:
    """Folder of bundled data (UCI Adult, CC BY 4.0; see ADULT_SOURCE.md)."""
    return _PKG / "data"
