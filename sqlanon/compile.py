"""``sqlanon compile``: the next release of a project as one SQL script that the
DuckDB shell runs (``duckdb my.duckdb < release.sql``) to the same tables as
``sqlanon run`` (SPEC §10, issue 17 item 1).

Why a dry run and not a rendering: a release's SQL cannot be rendered ahead of
its execution. Several pieces of it are decided on intermediate results: the
eligibility plan (``Publisher._plan``: Python's Algorithm 1 over the pool's SA
counts, written as rows of the plan table), step 8's tree sizes (from the
pool's size), step 9's bit-mask QI
(``mask_qi``: from the lengths of step 6b's value lists), the release gate's
second template (``presence_same``: from the first's result) and whether the
gate refuses the release at all. So :func:`compile_release` runs the release
on the real data inside a transaction that it rolls back (nothing is
written), records every statement that writes or checks (DDL, DML, the
templates' ``error()`` checks) with its parameters inlined as typed
literals, and writes them between ``BEGIN`` and ``COMMIT``. Statements that
only read for Python (catalog lookups, counts) are left out.

The script is exact for the database as it was compiled: it starts with
guards that stop it (``.bail on``, nothing written) when the project's last
release or the source (row count and the digest behind the ledger's
fingerprint) changed since. The project secret never appears in it: the
first release's secret is drawn in SQL (two ``gen_random_uuid()``), and the
ledger's fingerprint is computed in SQL from the secret.
"""

from __future__ import annotations

import datetime
import decimal
import uuid

import duckdb
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType

from . import __version__
from .engines import DuckDBEngine
from .errors import SqlanonError
from .ident import quote
from .project import Project, shared_refs

_DUCKDB = Dialect.get_or_raise("duckdb")
_WRITES = {TokenType.CREATE, TokenType.INSERT, TokenType.UPDATE, TokenType.DELETE, TokenType.DROP, TokenType.ALTER,
           TokenType.BEGIN, TokenType.SET, TokenType.COMMIT, TokenType.COPY}
_SECRET_SQL = "(gen_random_uuid()::VARCHAR || gen_random_uuid()::VARCHAR)"


def _literal(v) -> str:
    """``v`` as a SQL literal of the type DuckDB's Python client binds it with."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        for typ, lo, hi in (("INTEGER", -2**31, 2**31), ("BIGINT", -2**63, 2**63), ("UBIGINT", 0, 2**64),
                            ("HUGEINT", -2**127, 2**127)):
            if lo <= v < hi:
                return f"{v}::{typ}"
        raise SqlanonError(f"sqlanon compile cannot write the integer parameter {v} as a literal")
    if isinstance(v, float):
        return f"{v!r}::DOUBLE"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, decimal.Decimal):
        return f"'{v}'::DECIMAL({max(len(v.as_tuple().digits), 1) + 1},{max(-v.as_tuple().exponent, 0)})"
    if isinstance(v, datetime.datetime):
        return f"'{v.isoformat(sep=' ')}'::TIMESTAMP" + ("TZ" if v.tzinfo else "")
    if isinstance(v, datetime.date):
        return f"'{v.isoformat()}'::DATE"
    if isinstance(v, datetime.time):
        return f"'{v.isoformat()}'::TIME"
    if isinstance(v, uuid.UUID):
        return f"'{v}'::UUID"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_literal(x) for x in v) + "]"
    raise SqlanonError(f"sqlanon compile cannot write a parameter of Python type {type(v).__name__} as a literal")


def inline(sql: str, params=None, special: dict | None = None) -> str:
    """``sql`` with its ``$name`` and ``?`` parameters replaced by literals
    (``special``: name -> SQL text to use instead of a value's literal)."""
    if not params:
        return sql
    special = special or {}
    out, last, k = [], 0, 0
    tokens = list(_DUCKDB.tokenize(sql))
    for i, tok in enumerate(tokens):
        if (tok.token_type == TokenType.PLACEHOLDER and tok.text == "?") or tok.token_type == TokenType.QDCOLON:
            # `?::T` is one token to the tokenizer (its TRY_CAST operator); the ? is a parameter
            out += [sql[last:tok.start], f"({_literal(params[k])})" + tok.text[1:]]
            last, k = tok.end + 1, k + 1
        elif (tok.token_type == TokenType.PARAMETER and tok.text == "$" and i + 1 < len(tokens)
              and tokens[i + 1].start == tok.end + 1):
            name = tokens[i + 1].text
            text = special.get(name) or _literal(params[name])
            out += [sql[last:tok.start], text]
            last = tokens[i + 1].end + 1
    return "".join(out) + sql[last:]


# settings that change how fast a statement runs, never what it writes: the
# publisher runs a small release on one thread, and a script for another
# machine should not pin its thread count
_RESOURCE_SETTINGS = ("threads", "memory_limit")


def _kind(sql: str) -> str:
    """'write' (DDL, DML, transaction), 'check' (a query with error()), or 'read'
    (queries, and SET of a resource setting)."""
    tokens = list(_DUCKDB.tokenize(sql))
    if not tokens:
        return "read"
    if tokens[0].text.upper() == "SET" and len(tokens) > 1 and tokens[1].text.lower() in _RESOURCE_SETTINGS:
        return "read"
    if tokens[0].token_type in _WRITES or tokens[0].text.upper() in ("BEGIN", "COMMIT", "SET"):
        return "write"
    if any(t.text.lower() == "error" and j + 1 < len(tokens) and tokens[j + 1].token_type == TokenType.L_PAREN
           for j, t in enumerate(tokens)):
        return "check"
    return "read"


class _Recorder:
    """A connection that records what a release writes and turns its COMMIT
    into a ROLLBACK (everything else goes to the real connection)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, project: Project) -> None:
        # the project's secret and the database's key of the shared persons' digests (sql/_shared/)
        self._con, self._secret, self._key = con, project.ref("secret"), shared_refs()["key"]
        self.statements: list[str] = []
        self.committed = False

    def execute(self, sql: str, params=None):
        text = sql.strip()
        if text.rstrip(";").strip().upper() == "COMMIT":
            self.statements.append("COMMIT;")
            self.committed = True
            return self._con.execute("ROLLBACK")
        result = self._con.execute(sql) if params is None else self._con.execute(sql, params)
        if _kind(text) != "read":
            special = ({"key": _SECRET_SQL, "persons_key": _SECRET_SQL}
                       if (self._secret in text or self._key in text) and isinstance(params, dict) else None)
            stmt = inline(text, params, special)
            self.statements.append(stmt if stmt.endswith(";") else stmt + ";")
        return result

    def executemany(self, sql: str, rows):
        for row in rows:
            self.execute(sql, list(row))
        return self._con

    def __getattr__(self, name):
        return getattr(self._con, name)


def compile_release(con: duckdb.DuckDBPyConnection, project: str, **publisher_arguments) -> str:
    """The next release of ``project`` as a DuckDB shell script (see the module
    doc). ``publisher_arguments``: as for :class:`sqlanon.Publisher` (for an
    existing project they may be left out: the ledger's are used). The
    database is left as it was; a release that would fail (bad input, the
    release gate) fails here with its error."""
    from .publisher import Publisher, source_digest

    p = Project(project)
    # the Publisher runs on an engine over the recorder: its reads pass through, its writes are recorded
    recorder = _Recorder(con, p)
    engine = DuckDBEngine(recorder)
    if publisher_arguments.get("source") is None:
        if not p.exists(con, "ledger"):
            raise SqlanonError(f"project {project!r} has no releases in this database: compiling its first release "
                               "needs its source, id, qi, sa and parameters (a project file, sqlanon.toml)")
        pub = Publisher.open(engine, project, **publisher_arguments)
    else:
        pub = Publisher(engine, project, **publisher_arguments)
    r = pub.last_release() + 1
    digest_sql = source_digest([quote(c) for c in [pub.id, pub.sa, *pub.qi]])
    rows, digest = con.execute(f"SELECT count({quote(pub.id)}), {digest_sql} FROM {pub._src()}").fetchall()[0]
    if recorder.statements:  # pragma: no cover - nothing above writes
        raise SqlanonError("sqlanon compile: a statement was written before the release began")
    result = pub.release()
    if not recorder.committed:  # pragma: no cover - release() returns only after COMMIT
        raise SqlanonError("sqlanon compile: the release did not reach its COMMIT; nothing to write")
    ledger = p.ref("ledger")
    if r == 1:
        schema, name = p.place("ledger")
        last = (f"SELECT CASE WHEN {DuckDBEngine.exists_sql(name, schema=schema)} THEN error('sqlanon: project {project} has releases "
                "since this script was compiled (it makes release 1); compile it again') END;")
    else:
        last = (f"SELECT CASE WHEN (SELECT max(release) FROM {ledger}) IS DISTINCT FROM {r - 1} THEN "
                f"error('sqlanon: project {project} is not at release {r - 1} any more (this script makes release "
                f"{r}); compile it again') END;")
    source = (f"SELECT CASE WHEN (SELECT count({quote(pub.id)}) <> {int(rows)} OR {digest_sql} "
              f"<> {int(digest)}::UBIGINT FROM {pub._src()}) THEN error('sqlanon: source {pub.source} changed since "
              "this script was compiled; compile it again') END;")
    begin, *body = recorder.statements
    mem = p.ref("mem")
    summary = [
        "-- what was released (the statements above print nothing: .mode trash)",
        ".mode list",
        ".headers off",
        f"SELECT 'sqlanon: release {r} of project {project}: ' || count(*) || ' published rows (' "
        "|| count(*) FILTER (WHERE NOT coalesce(is_counterfeit, false) AND id IS NOT NULL) || ' real, ' "
        "|| count(*) FILTER (WHERE coalesce(is_counterfeit, false) OR id IS NULL) || ' counterfeits) in ' "
        f"|| count(DISTINCT group_id) || ' groups' FROM {mem} WHERE last_release IS NULL;",
    ]
    head = [
        f"-- sqlanon {__version__} compile: release {r} of project {project} (model {pub.model}, "
        f"{pub.spec.parameter} = {pub.m}), {result.published} published rows ({result.counterfeits} counterfeits) in {result.groups} groups when "
        "compiled.",
        "-- Run it on the database it was compiled from: duckdb my.duckdb < release.sql",
        "-- It stops, writing nothing, if the project or its source changed since.",
        ".bail on",
        ".mode trash",
    ]
    return "\n".join([*head, begin, "-- guards: the project and the source are as they were compiled", last, source,
                      *body, *summary, ""])


def shell_readable(path) -> str | None:
    """None when the DuckDB 1.5 shell can open database file ``path``, else its
    storage version (a file in DuckDB 2.0's format, e.g. ``v2.0.0+``). Opens the
    file read-only, so it is not changed."""
    from .install import file_storage_version

    from .engines.duckdb import open_database

    con = open_database(path, read_only=True)  # its errors: LockHeld, CannotOpen (SqlanonError)
    try:
        version = file_storage_version(con) or ""
    finally:
        con.close()
    return version if version.startswith("v2") else None
