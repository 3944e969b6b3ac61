"""A release project as one value object: every table name it owns and whether
those tables exist (SPEC §9). Nothing else builds ``sqlanon_<project>_...``.

The names (docs/contracts.md, docs/publisher.md):

- the published tables, in the database's default schema, read by whoever
  receives a release: ``sqlanon_<P>_qit``, ``_st``, ``_published`` (generalized
  output) (``PUBLIC``);
- everything that holds ids, true SA values, QI per person or secrets - the
  contract's membership and the project's private state - in a schema of its own,
  ``sqlanon_private``, under names that do not start with ``sqlanon_``:
  ``sqlanon_private.<P>_membership``, ``sqlanon_private.<P>__ledger``, ...
  (``PRIVATE``). A table-name pattern such as ``sqlanon_<P>_%`` (in any schema)
  finds only published tables, and ``SHOW TABLES`` lists only those;
- per-release temporary tables ``sqlanon__<P>_<key>`` (dropped before COMMIT)
  and the scratch tables of tools that read a project (``sqlanon__<tool>_<P>...``).

Files written before the private schema keep the private tables in the main
schema as ``sqlanon_<P>_membership`` and ``sqlanon_<P>__<x>``: every lookup
(:meth:`Project.exists`) refuses such a project with an error that says to run
``sqlanon migrate``, which moves them (:func:`migrate`, one transaction).

DuckDB resolves table names case-insensitively, so ``ward`` and ``WARD``
would be one set of tables: :meth:`Project.exists` looks names up the same
way, and a release under a name that differs only in case from an existing
project is refused, naming it (:meth:`Project.spelling`, docs/contracts.md).

>>> p = Project("ward")
>>> p.table("qit"), p.table("ledger"), p.temp("pool")
('sqlanon_ward_qit', 'sqlanon_private.ward__ledger', 'sqlanon__ward_pool')
>>> p.ref("ledger")
'"sqlanon_private"."ward__ledger"'
>>> import duckdb
>>> con = duckdb.connect()
>>> p.exists(con, "ledger")
False
>>> _ = con.execute("CREATE SCHEMA sqlanon_private; CREATE TABLE sqlanon_private.WARD__LEDGER (release INTEGER)")
>>> p.exists(con, "ledger")
True
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from .engines import as_engine
from .errors import EngineError, ReadOnly, SqlanonError
from .ident import check_project, quote

#: the schema of every project's private tables
PRIVATE_SCHEMA = "sqlanon_private"
#: the published tables (default schema): key -> suffix of ``sqlanon_<P>``
PUBLIC = {"qit": "_qit", "st": "_st", "pub": "_published"}
#: the contract's membership and the private state of the Publisher and the
#: release gate (schema ``sqlanon_private``): key -> suffix of ``<P>``; a model
#: adds its own state tables (``Model.tables``, :func:`private_tables`)
PRIVATE = {
    "mem": "_membership", "groups": "__groups", "ledger": "__ledger", "chains": "__chains",
    "held": "__held", "gone": "__gone", "persons": "__persons", "secret": "__secret", "lock": "__lock",
    "vals": "__values",
}


def private_tables() -> dict[str, str]:
    """``PRIVATE`` and the state tables every registered model declares
    (``Model.tables``): key -> suffix of ``<P>``.

    >>> private_tables()["entries"], private_tables()["rows"]
    ('__entries', '__rows')
    """
    from .models import MODELS  # (the models know nothing of projects)

    out = dict(PRIVATE)
    for model in MODELS.values():
        out.update(model.tables)
    return out
#: the database's record of the persons every project has had (issue 33 item 3,
#: sql/_shared/): one table for all projects, named with a leading ``_`` so that no
#: project's table (a project name starts with a letter) can take its name; it
#: outlives a project's tables until :func:`purge`
SHARED = {"persons": "_persons", "key": "_persons_key"}


def shared_refs() -> dict[str, str]:
    """The shared tables as written in SQL (for templates' ``R``)."""
    return {"schema": quote(PRIVATE_SCHEMA), **{k: f"{quote(PRIVATE_SCHEMA)}.{quote(v)}" for k, v in SHARED.items()}}


@dataclass(frozen=True)
class Project:
    """The tables of release project ``name`` (letters, digits and ``_``,
    starting with a letter; checked by :func:`sqlanon.ident.check_project`)."""

    name: str

    def __post_init__(self) -> None:
        check_project(self.name)

    # ------------------------------------------------------------------ names
    def place(self, key: str) -> tuple[str | None, str]:
        """(schema, name) of table ``key`` (a key of ``PUBLIC`` or ``PRIVATE``);
        schema None: the connection's default schema."""
        if key in PUBLIC:
            return None, f"sqlanon_{self.name}{PUBLIC[key]}"
        private = private_tables()
        if key in private:
            return PRIVATE_SCHEMA, f"{self.name}{private[key]}"
        raise KeyError(f"no project table {key!r}; known: {', '.join([*PUBLIC, *private])}")

    def table(self, key: str) -> str:
        """The (unquoted) name of table ``key``, schema-qualified for private tables:
        ``sqlanon_ward_qit``, ``sqlanon_private.ward_membership``."""
        schema, name = self.place(key)
        return name if schema is None else f"{schema}.{name}"

    def ref(self, key: str) -> str:
        """Table ``key`` as it is written in SQL (quoted)."""
        schema, name = self.place(key)
        return quote(name) if schema is None else f"{quote(schema)}.{quote(name)}"

    def legacy_name(self, key: str) -> str:
        """Where files written before the private schema keep private table
        ``key``: ``sqlanon_<P><suffix>`` in the main schema."""
        return f"sqlanon_{self.name}{private_tables()[key]}"

    def tables(self) -> dict[str, str]:
        """Every table of the project: key -> name (contract tables first)."""
        return {k: self.table(k) for k in (*PUBLIC, *private_tables())}

    def refs(self) -> dict[str, str]:
        """Every table of the project: key -> quoted name (for templates' ``T``)."""
        return {k: self.ref(k) for k in (*PUBLIC, *private_tables())}

    def temp(self, key: str) -> str:
        """The name of a release's temporary table or view ``key``."""
        return f"sqlanon__{self.name}_{key}"

    def scratch(self, tool: str, suffix: str = "") -> str:
        """The name of a temporary table a tool (``audit``, ``naive``) makes
        while it reads or writes the project."""
        return f"sqlanon__{tool}_{self.name}{suffix}"

    # -------------------------------------------------------------- catalog
    def exists(self, con, key: str) -> bool:
        """Whether table ``key`` is there: a table or view of that name, in any
        case, in its schema (private tables) in the catalog of ``con`` (a
        connection or an engine; temporary objects do not count). A project
        whose private tables are still in the main schema (an older file) is
        refused with an error that says how to migrate it."""
        eng = as_engine(con)
        if self.legacy_tables(eng):
            raise self.legacy_error()
        schema, name = self.place(key)
        return eng.exists(name, schema=schema)

    def legacy_error(self) -> SqlanonError:
        return SqlanonError(
            f"project {self.name!r} keeps its private tables (membership, ledger, ...) in the main schema next to "
            f"the published ones, as files written by an older sqlanon do; move them once into schema "
            f"{PRIVATE_SCHEMA} with `sqlanon migrate {self.name} --db FILE` (Python: "
            f"sqlanon.project.migrate(con, {self.name!r})), then run this again; nothing was changed")

    def per_release(self, con) -> bool:
        """Whether the membership is stored in the per-release shape an older
        sqlanon wrote (a ``release`` column) instead of intervals
        (``first_release``, ``last_release``; docs/contracts.md)."""
        eng = as_engine(con)
        schema, name = self.place("mem")
        if not eng.exists(name, schema=schema):
            return False
        return "release" in [c.lower() for c in eng.columns(self.table("mem"))]

    def check_shape(self, con) -> None:
        """Refuse to release on a membership of the per-release shape, naming the fix."""
        if self.per_release(con):
            raise SqlanonError(
                f"project {self.name!r} keeps its membership as one row set per release, as an older sqlanon wrote "
                f"it; convert it once to intervals of releases with `sqlanon migrate {self.name} --db FILE` "
                f"(Python: sqlanon.project.migrate(con, {self.name!r})), then release again; nothing was changed")

    def legacy_tables(self, con) -> list[str]:
        """Names of this project's private tables still in the main schema (an older file)."""
        return as_engine(con).find_tables([self.legacy_name(k) for k in private_tables()], schema="main")

    def placeholders(self) -> dict[str, str]:
        """The parts of this project's table names that carry its name -> the
        same with a placeholder (NUL) for the name: rendered templates that
        differ only in them are one (:func:`sqlanon.templates.render`'s ``vary``).

        >>> Project("ward").placeholders()  # doctest: +NORMALIZE_WHITESPACE
        {'sqlanon_ward_': 'sqlanon_\\x00_', 'sqlanon__ward_': 'sqlanon__\\x00_',
         '"sqlanon_private"."ward_': '"sqlanon_private"."\\x00_'}
        """
        return {f"sqlanon_{self.name}_": "sqlanon_\x00_", f"sqlanon__{self.name}_": "sqlanon__\x00_",
                f'"{PRIVATE_SCHEMA}"."{self.name}_': f'"{PRIVATE_SCHEMA}"."\x00_'}

    def spelling(self, con) -> str | None:
        """The name of the existing project whose tables this one's would be
        (its ledger's name as the catalog spells it, any case), or None."""
        found = self.locate(con, "ledger")
        return None if found is None else found[2][: -len(PRIVATE["ledger"])]

    def locate(self, con, key: str) -> tuple[str, str, str] | None:
        """(database, schema, name) of table ``key`` as the catalog of ``con``
        spells it, or None."""
        schema, name = self.place(key)
        return as_engine(con).locate(name, schema=schema)


def migrate(con: duckdb.DuckDBPyConnection, project: str) -> list[str]:
    """Bring a project written by an older sqlanon to the current storage, in
    one transaction: (1) move its private tables from the main schema
    (``sqlanon_<P>_membership``, ``sqlanon_<P>__<x>``) into schema
    ``sqlanon_private`` under their current names (rows, column names and
    types, and row order kept); (2) convert a membership stored as one row set
    per release (a ``release`` column) into intervals of releases
    (:func:`membership_intervals`; every release reads back the same rows). The
    published tables are not touched. Returns what was done: the names moved,
    and ``<membership> (intervals)`` when it was converted (empty: nothing to
    do). Raises when both places hold a table (restore the file from a
    backup)."""
    p = Project(project)
    con = as_engine(con)
    try:
        con.execute("BEGIN TRANSACTION")
    except EngineError as exc:
        raise SqlanonError(f"cannot migrate project {project!r}: this connection has an open transaction; commit "
                           "or roll it back first") from exc
    try:
        old = {n.lower(): n for n in p.legacy_tables(con)}
        moved = []
        if old:
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote(PRIVATE_SCHEMA)}")
        for key in private_tables():
            name = old.get(p.legacy_name(key).lower())
            if name is None:
                continue
            if p.locate(con, key):
                raise SqlanonError(f"cannot migrate project {project!r}: both {name} (main schema) and "
                                   f"{p.table(key)} exist; restore the file from a backup; nothing was changed")
            con.execute(f"CREATE TABLE {p.ref(key)} AS SELECT * FROM main.{quote(name)}")
            con.execute(f"DROP TABLE main.{quote(name)}")
            moved.append(name)
        if p.per_release(con):
            membership_intervals(con, p)
            moved.append(f"{p.table('mem')} (intervals)")
        con.execute("COMMIT")
    except BaseException as exc:
        con.execute("ROLLBACK")
        if isinstance(con.typed(exc), ReadOnly):
            raise SqlanonError(f"cannot migrate project {project!r}: the database is open read-only; open it "
                               "read-write; nothing was changed") from exc
        raise
    return moved


#: the membership's columns besides its SA column, per-release shape
_MEM_OLD = ("release", "id", "group_id", "is_counterfeit")


def membership_intervals(con, p: Project) -> None:
    """Rewrite the per-release membership of ``p`` (``release, id, group_id,
    is_counterfeit, <sa>``) as intervals (``id, group_id, is_counterfeit, <sa>,
    first_release, last_release``; docs/contracts.md), inside the caller's
    transaction. The k-th copy of a row value is in release r when r's rows hold
    the value at least k times; each maximal run of consecutive releases is one
    interval row, open (last_release NULL) when it reaches the last release;
    and one marker row per release (every other column NULL). The releases are
    the ledger's, or, without one, 1 .. the largest in the membership."""
    eng = as_engine(con)
    cols = list(eng.columns(p.table("mem")))
    sa = [c for c in cols if c.lower() not in _MEM_OLD]
    if len(sa) != 1:
        raise SqlanonError(f"cannot migrate project {p.name!r}: table {p.table('mem')} must have exactly one SA "
                           f"column besides {', '.join(_MEM_OLD)}, found {sa}; nothing was changed")
    s = quote(sa[0])
    mem = p.ref("mem")
    schema, name = p.place("ledger")
    last = (f"(SELECT max(release) FROM {p.ref('ledger')})" if eng.exists(name, schema=schema)
            else f"(SELECT max(release) FROM {mem})")
    tmp = quote(f"{p.place('mem')[1]}__migrating")
    eng.execute(f"""
        CREATE TABLE {quote(PRIVATE_SCHEMA)}.{tmp} AS
        WITH c AS (
            SELECT release, id, group_id, is_counterfeit, {s},
                   row_number() OVER (PARTITION BY release, id, group_id, is_counterfeit, {s}) AS k
            FROM {mem}
        ), isl AS (
            SELECT *, release - row_number() OVER (PARTITION BY id, group_id, is_counterfeit, {s}, k
                                                  ORDER BY release) AS run
            FROM c
        ), lr AS (SELECT coalesce({last}, 0) AS last)
        SELECT id, group_id, is_counterfeit, {s}, first_release,
               CASE WHEN last_release < lr.last THEN last_release END AS last_release
        FROM (SELECT id, group_id, is_counterfeit, {s}, min(release)::INTEGER AS first_release,
                     max(release)::INTEGER AS last_release
              FROM isl GROUP BY id, group_id, is_counterfeit, {s}, k, run), lr
        UNION ALL
        SELECT NULL, NULL, NULL, NULL, r::INTEGER, r::INTEGER
        FROM (SELECT unnest(range(1, coalesce({last}, 0) + 1)) AS r)
        ORDER BY first_release, group_id""")
    eng.execute(f"DROP TABLE {mem}")
    eng.execute(f"ALTER TABLE {quote(PRIVATE_SCHEMA)}.{tmp} RENAME TO {quote(p.place('mem')[1])}")


def projects(con) -> list[str]:
    """The release projects in ``con``'s database: every ``P`` with a ledger
    ``sqlanon_private.P__ledger`` or a membership table
    ``sqlanon_private.P_membership`` (sorted, lower case as DuckDB resolves them)."""
    found = set()
    for schema, name in as_engine(con).schema_relations():
        if schema.lower() != PRIVATE_SCHEMA:
            continue
        for key in ("ledger", "mem"):
            suffix = PRIVATE[key]
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                found.add(name[: -len(suffix)].lower())
    return sorted(found)


def purge(con, project: str) -> dict:
    """Forget project ``project`` (any case) for good, in one transaction: drop its
    tables (published and private) that are still there and delete the record of
    the persons it had (``sqlanon_private._persons``, every instance of that
    name), which a release of another project over the same persons is checked
    against (docs/threat_model.md, "Projects that share persons"). Copies of its
    releases that were exported or copied out of the database are not reached:
    whoever holds them can still compare them with a new project's releases.
    Returns ``{"tables": [...dropped], "persons": forgotten digests}``."""
    p = Project(project)
    eng = as_engine(con)
    try:
        eng.begin()
    except EngineError as exc:
        raise SqlanonError(f"cannot purge project {project!r}: this connection has an open transaction; commit "
                           "or roll it back first") from exc
    try:
        if p.legacy_tables(eng):
            raise p.legacy_error()
        dropped = []
        for key in (*PUBLIC, *private_tables()):
            found = p.locate(eng, key)
            if found is not None:
                eng.execute(f"DROP TABLE {quote(found[0])}.{quote(found[1])}.{quote(found[2])}")
                dropped.append(found[2] if key in PUBLIC else f"{found[1]}.{found[2]}")
        forgotten = 0
        if eng.exists(SHARED["persons"], schema=PRIVATE_SCHEMA):
            ref = shared_refs()["persons"]
            forgotten = eng.fetch(f"SELECT count(*) FROM {ref} WHERE lower(project) = lower(?)", [project])[0][0]
            eng.execute(f"DELETE FROM {ref} WHERE lower(project) = lower(?)", [project])
        if not dropped and not forgotten:
            raise SqlanonError(f"no project {project!r} in this database (no tables, no recorded persons); "
                               "nothing was changed")
        eng.commit()
    except BaseException as exc:
        eng.rollback()
        if isinstance(eng.typed(exc), ReadOnly):
            raise SqlanonError(f"cannot purge project {project!r}: the database is open read-only; open it "
                               "read-write; nothing was changed") from exc
        raise
    return {"tables": dropped, "persons": int(forgotten)}
