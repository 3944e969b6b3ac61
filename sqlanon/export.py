"""Export a project's published tables as files (Parquet or CSV).

Only the tables of ``sqlanon.project.PUBLIC`` (``sqlanon_<P>_qit``, ``_st``,
``_published``, main schema) can be exported: the membership and the rest of
the private state live in schema ``sqlanon_private`` and have no key here, so
this module cannot name them.

Each file is written in an order of its own public columns (the order the
publisher stores them in, docs/publisher.md "Storage order"), never in the
order the rows happen to be stored: a file's row order is a function of its
published content, so it cannot disclose an SA value that the content does
not (issue 19 item 1; tests/test_export.py).

>>> import sqlanon, tempfile
>>> con = sqlanon.connect()
>>> _ = con.execute("CREATE TABLE src AS SELECT range AS id, range % 7 AS age, 'd' || (range % 4) AS disease FROM range(40)")
>>> _ = sqlanon.Publisher(con, "demo", source="src", id="id", qi=["age"], sa="disease", m=3, seed=1).release()
>>> [(p.name, n) for p, n in export(con, "demo", tempfile.mkdtemp(), format="csv")]
[('sqlanon_demo_qit.csv', 40), ('sqlanon_demo_st.csv', 40)]
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from .engines import ERRORS, as_engine
from .errors import SqlanonError
from .ident import quote
from .project import PUBLIC, Project

FORMATS = {"parquet": "(FORMAT parquet)", "csv": "(FORMAT csv, HEADER)"}
_RESERVED = {"release", "group_id", "count"}


def _order(con: duckdb.DuckDBPyConnection, table: str, key: str) -> str:
    """ORDER BY of table ``key``: release, group, then (qit) an unkeyed hash of
    the QI values and the values, (st, _published) the SA value, then every
    other column (ties are then identical rows)."""
    cols = list(as_engine(con).columns(table))
    rest = [c for c in cols if c not in _RESERVED]
    if key == "qit":
        keys = ["release", "group_id", f"hash({', '.join(quote(c) for c in rest)})", *map(quote, rest)]
    elif key == "st":
        keys = ["release", "group_id", *map(quote, rest), "count"]
    else:  # published: the SA is the last column
        keys = ["release", "group_id", quote(rest[-1]), *map(quote, rest[:-1])]
    return ", ".join(keys)


def export(con: duckdb.DuckDBPyConnection, project: str, to, *, format: str = "parquet",
           tables=None) -> list[tuple[Path, int]]:
    """Write the published tables of ``project`` (``tables``: keys of
    ``PUBLIC``, default all that exist) into folder ``to`` (created if missing)
    as ``<table>.<format>``; returns (path, rows) per file. Files are written
    next to their place and renamed, so a failure leaves no partial file."""
    p = Project(project)
    if format not in FORMATS:
        raise SqlanonError(f"unknown export format {format!r}; use 'parquet' or 'csv'")
    keys = list(PUBLIC) if tables is None else list(tables)
    bad = [k for k in keys if k not in PUBLIC]
    if bad:
        raise SqlanonError(f"cannot export {bad[0]!r}: only the published tables can be exported "
                           f"({', '.join(PUBLIC)}); the membership and the project's state are private")
    if not p.exists(con, "ledger") and not p.exists(con, "qit") and not p.exists(con, "st"):
        raise SqlanonError(f"project {project!r} has no releases in this database; nothing to export")
    keys = [k for k in keys if p.exists(con, k)]
    if not keys:
        raise SqlanonError(f"project {project!r} has none of the tables asked for ({', '.join(tables or PUBLIC)})")
    folder = Path(to)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SqlanonError(f"cannot create export folder {str(folder)!r} ({exc.strerror or exc})") from exc
    # COPY of an ORDER BY query writes in that order only with insertion order kept
    keep = con.execute("SELECT current_setting('preserve_insertion_order')").fetchall()[0][0]
    if not keep:
        con.execute("SET preserve_insertion_order = true")
    try:
        return _write(con, p, keys, folder, format)
    finally:
        if not keep:
            con.execute("SET preserve_insertion_order = false")


def _write(con, p: Project, keys: list[str], folder: Path, format: str) -> list[tuple[Path, int]]:
    out = []
    for key in keys:
        schema, name = p.place(key)
        assert schema is None  # published tables only (main schema)
        ref = p.ref(key)
        target = folder / f"{name}.{format}"
        part = folder / f".{name}.{format}.part"
        query = f"SELECT * FROM {ref} ORDER BY {_order(con, name, key)}"
        try:
            con.execute(f"COPY ({query}) TO '{_literal(part)}' {FORMATS[format]}")
            part.replace(target)
        except (*ERRORS, OSError) as exc:
            part.unlink(missing_ok=True)
            raise SqlanonError(f"cannot write {str(target)!r} ({type(exc).__name__}); may you write "
                               "there?") from exc
        n = con.execute(f"SELECT count(*) FROM {ref}").fetchall()[0][0]
        out.append((target, int(n)))
    return out


def _literal(path: Path) -> str:
    """A file path inside a SQL string literal (COPY takes no parameter)."""
    return str(path).replace("'", "''")
