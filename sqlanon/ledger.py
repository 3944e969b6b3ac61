"""A project's release ledger (docs/publisher.md): its columns (the one
definition, for a new ledger and for those an older version made), the row
a release writes, the source digest behind its fingerprint, and
:func:`status` (the ledger as a DataFrame).

>>> COUNTS[:3], COUNTS[-3:]
(('published', 'groups', 'counterfeits'), ('suppressed', 'dl', 'exposed'))
"""

from __future__ import annotations

import json

from . import __version__
from .engines import as_engine
from .errors import SqlanonError
from .project import Project

#: the columns of a ledger (name, type); an older version's ledger lacks the
#: ones of ``ADDED`` (made before the optional counts, the release gate and the
#: provenance columns) and gets them at the next release
COLUMNS = (("release", "INTEGER"), ("made_at", "TIMESTAMP"), ("params", "VARCHAR"), ("source_schema", "VARCHAR"),
           ("fingerprint", "UBIGINT"), ("published", "BIGINT"), ("groups", "BIGINT"), ("counterfeits", "BIGINT"),
           ("survivors", "BIGINT"), ("new", "BIGINT"), ("deleted", "BIGINT"), ("reinserted", "BIGINT"),
           ("updated", "BIGINT"), ("held", "BIGINT"), ("ncp", "DOUBLE"), ("seconds", "DOUBLE"),
           ("suppressed", "BIGINT"), ("dl", "BIGINT"), ("exposed", "BIGINT"), ("sqlanon_version", "VARCHAR"),
           ("template_sha256", "VARCHAR"), ("template_overrides", "VARCHAR"), ("shared_persons", "VARCHAR"))
ADDED = COLUMNS[16:]
#: the counts of :class:`sqlanon.ReleaseResult` a ledger row holds, in its column order
COUNTS = ("published", "groups", "counterfeits", "survivors", "new", "deleted", "reinserted", "updated",
          "held", "ncp", "seconds", "suppressed", "dl", "exposed")
#: the ledger's JSON columns, which :func:`status` leaves out
JSON_COLUMNS = ("params", "source_schema", "template_sha256", "template_overrides")


def definition() -> str:
    """The column list of a new ledger (CREATE TABLE ... (this))."""
    return ", ".join(f"{c} {t}" for c, t in COLUMNS)


def insert(ledger: str, fingerprint: str) -> str:
    """The INSERT of one release's row into ``ledger`` (quoted), with
    ``fingerprint`` (SQL with two positional parameters, the digest and the
    row count); its parameters: :func:`row`."""
    return (f"INSERT INTO {ledger} (release, made_at, params, source_schema, fingerprint, "
            f"{', '.join(COUNTS)}, sqlanon_version, template_sha256, template_overrides, shared_persons) "
            f"VALUES (?, now()::TIMESTAMP, ?, ?, {fingerprint}, {', '.join('?' for _ in COUNTS)}, ?, ?, ?, ?)")


def row(release: int, params: dict, schema: dict, digest, rows, counts: dict, sha: dict, overridden: list,
        shared: str | None) -> list:
    """The parameters of :func:`insert`."""
    return [release, json.dumps(params), json.dumps(schema), digest, rows, *[counts[k] for k in COUNTS],
            __version__, json.dumps(sha), json.dumps(overridden), shared]


def source_digest(columns) -> str:
    """SQL: the source's digest behind the ledger's fingerprint and sqlanon
    compile's guard (the one definition): the XOR of every row's hash of
    ``columns`` (quoted: id, SA, then the QI), 0 for no rows."""
    return f"coalesce(bit_xor(hash({', '.join(columns)})), 0)"


def status(con: object, project: str):
    """The release ledger of ``project`` as a DataFrame."""
    proj = Project(project)
    if not proj.exists(con, "ledger"):
        raise SqlanonError(f"project {project!r} has no releases in this database (no table {proj.table('ledger')!r})")
    hide = list(JSON_COLUMNS)  # read the ledger for them
    return as_engine(con).df(f"SELECT COLUMNS(lambda c: NOT list_contains($hide, c)) FROM {proj.ref('ledger')} "
                             "ORDER BY release", {"hide": hide})
