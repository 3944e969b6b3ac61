"""A release project as one value object: every table name it owns and whether
those tables exist (SPEC §9). Nothing else builds ``sqlanon_<project>_...``.

The names (docs/contracts.md, docs/publisher.md):

- the release contract's tables, read by whoever receives a release:
  ``sqlanon_<P>_qit``, ``_st``, ``_published`` (generalized output) and the
  private ``_membership`` (``PUBLIC``);
- the project's private state: ``sqlanon_<P>__ledger``, ``__groups``, ...
  (``PRIVATE``);
- per-release temporary tables ``sqlanon__<P>_<key>`` (dropped before COMMIT)
  and the scratch tables of tools that read a project (``sqlanon__<tool>_<P>...``).

DuckDB resolves table names case-insensitively, so projects ``ward`` and
``WARD`` are one project (one set of tables): :meth:`Project.exists` looks
names up the same way.

>>> p = Project("ward")
>>> p.table("qit"), p.table("ledger"), p.temp("pool")
('sqlanon_ward_qit', 'sqlanon_ward__ledger', 'sqlanon__ward_pool')
>>> p.ref("ledger")
'"sqlanon_ward__ledger"'
>>> import duckdb
>>> con = duckdb.connect()
>>> p.exists(con, "ledger")
False
>>> _ = con.execute("CREATE TABLE SQLANON_WARD__LEDGER (release INTEGER)")
>>> p.exists(con, "ledger")
True
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine import as_engine
from .ident import check_project, quote

#: the release contract's tables: key -> suffix of ``sqlanon_<P>``
PUBLIC = {"qit": "_qit", "st": "_st", "pub": "_published", "mem": "_membership"}
#: the project's private state: key -> suffix of ``sqlanon_<P>``
PRIVATE = {
    "groups": "__groups", "ledger": "__ledger", "rows": "__rows", "entries": "__entries", "chains": "__chains",
    "held": "__held", "gone": "__gone", "persons": "__persons", "secret": "__secret", "lock": "__lock",
    "vals": "__values",
}


@dataclass(frozen=True)
class Project:
    """The tables of release project ``name`` (letters, digits and ``_``,
    starting with a letter; checked by :func:`sqlanon.ident.check_project`)."""

    name: str

    def __post_init__(self) -> None:
        check_project(self.name)

    # ------------------------------------------------------------------ names
    def table(self, key: str) -> str:
        """The (unquoted) name of table ``key`` (a key of ``PUBLIC`` or ``PRIVATE``).
        Private state lives next to the contract tables for now; moving it to a
        schema of its own is a change here (and in :meth:`ref`, :meth:`exists`)."""
        if key in PUBLIC:
            return f"sqlanon_{self.name}{PUBLIC[key]}"
        if key in PRIVATE:
            return f"sqlanon_{self.name}{PRIVATE[key]}"
        raise KeyError(f"no project table {key!r}; known: {', '.join([*PUBLIC, *PRIVATE])}")

    def ref(self, key: str) -> str:
        """Table ``key`` as it is written in SQL (quoted)."""
        return quote(self.table(key))

    def tables(self) -> dict[str, str]:
        """Every table of the project: key -> name (contract tables first)."""
        return {k: self.table(k) for k in (*PUBLIC, *PRIVATE)}

    def refs(self) -> dict[str, str]:
        """Every table of the project: key -> quoted name (for templates' ``T``)."""
        return {k: self.ref(k) for k in (*PUBLIC, *PRIVATE)}

    def temp(self, key: str) -> str:
        """The name of a release's temporary table or view ``key``."""
        return f"sqlanon__{self.name}_{key}"

    def scratch(self, tool: str, suffix: str = "") -> str:
        """The name of a temporary table a tool (``audit``, ``naive``) makes
        while it reads or writes the project."""
        return f"sqlanon__{tool}_{self.name}{suffix}"

    def placeholders(self) -> dict[str, str]:
        """The parts of this project's table names that carry its name -> the
        same with a placeholder (NUL) for the name: rendered templates that
        differ only in them are one (:func:`sqlanon.templates.render`'s ``vary``).

        >>> Project("ward").placeholders()
        {'sqlanon_ward_': 'sqlanon_\\x00_', 'sqlanon__ward_': 'sqlanon__\\x00_'}
        """
        return {f"sqlanon_{self.name}_": "sqlanon_\x00_", f"sqlanon__{self.name}_": "sqlanon__\x00_"}

    # -------------------------------------------------------------- catalog
    def exists(self, con, key: str) -> bool:
        """Whether table ``key`` is there: a table or view of that name, in any
        case, in the catalog of ``con`` (a connection or an engine; temporary
        objects do not count)."""
        return as_engine(con).exists(self.table(key))

    def locate(self, con, key: str, where: tuple[str, str, str] | None = None) -> tuple[str, str, str] | None:
        """(database, schema, name) of table ``key`` as the catalog of ``con``
        spells it, or None; with ``where`` (an earlier answer) only that exact
        place counts (a release asks a fresh cursor whether a table it saw is
        committed)."""
        return as_engine(con).locate(self.table(key), where)
