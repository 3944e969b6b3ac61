"""The audit: the adversary's view of a project's releases, as one report.

Every check is a SQL macro (macros/audit_history.sql, macros/audit_comparison.sql);
this module only runs them and summarizes the result (sizes bounded by the
number of findings). Releases are read only through the release contract
(docs/contracts.md), so releases made by any tool can be audited.

>>> import sqlanon
>>> con = sqlanon.connect()
>>> _ = con.execute('''
...     CREATE SCHEMA sqlanon_private;
...     CREATE TABLE sqlanon_private.fig1_membership AS SELECT * FROM (VALUES
...         (1, 1, 1, false, 'HIV'), (1, 2, 1, false, 'FLU'),
...         (2, 1, 1, false, 'HIV'), (2, 3, 1, false, 'ACNE'),
...         (2, 2, 2, false, 'FLU'), (2, 4, 2, false, 'COUCH'))
...         t(release, id, group_id, is_counterfeit, disease);
...     CREATE TABLE sqlanon_fig1_st AS SELECT release, group_id, disease, count(*) AS count
...         FROM sqlanon_private.fig1_membership GROUP BY ALL''')
>>> report = sqlanon.audit(con, "fig1", m=2)
>>> report.verdict
'unsafe'
>>> report.n_disclosures
2
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field

import duckdb
import pandas as pd

from .engines import as_engine
from .errors import SqlanonError
from .ident import quote, require_m
from .project import Project

FINDING_COLUMNS = ["check", "kind", "id", "releases", "groups", "targets", "values", "disclosed", "n_disclosed",
                   "real"]

#: check name -> the macro that implements it
CHECKS = {
    "intersection": "sqlanon_intersection_attack",
    "collusion": "sqlanon_collusion_violations",
    "signature": "sqlanon_signature_violations",
    "comparison": "sqlanon_comparison_attacks",
}

_serial = itertools.count(1)

#: the checks of the SPEC §6b adversary (macros/audit_linking.sql: they need the private gate state)
LINKING_CHECKS = ("qi_linking", "absence")


def _findings_sql(check: str) -> str:
    """The findings of one check (columns ``FINDING_COLUMNS``): its macro
    ``sqlanon__findings_<check>`` (macros/audit_linking.sql), the one definition
    that ``sqlanon_audit`` in the shell runs too. Project and m are parameters."""
    return f"SELECT * FROM sqlanon__findings_{check}(?, ?)"


def _linking_missing(con, p: Project) -> str | None:
    """Why the linking checks cannot run on project ``p`` (None: they can)."""
    missing = [k for k in ("qit", "persons", "held", "gone") if not p.exists(con, k)]
    if missing:
        return (f"no table {p.table(missing[0])} (releases not made by sqlanon's publisher, or made before the "
                "release gate)")
    return None


@dataclass
class AuditReport:
    """What :func:`audit` found.

    ``counts`` (findings per check), ``n_disclosures``, ``verdict`` and
    :meth:`summary` are computed in SQL when the audit runs. ``findings`` (one row
    per finding, columns ``FINDING_COLUMNS``) is fetched into pandas on first use
    from a temporary table of the audit's connection (it can hold millions of
    rows for a naive publisher); :meth:`to_csv` writes it without pandas."""

    project: str
    m: int
    releases: list[int]
    counts: dict[str, int]
    kinds: dict[str, int]
    n_disclosures: int
    skipped: dict[str, str] = field(default_factory=dict)
    _con: object | None = field(default=None, repr=False)  # the engine (sqlanon.engines) the findings table is on
    _table: str | None = field(default=None, repr=False)
    _findings: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def verdict(self) -> str:
        """'safe' when no check found anything, else 'unsafe'."""
        return "safe" if sum(self.counts.values()) == 0 else "unsafe"

    @property
    def findings(self) -> pd.DataFrame:
        """All findings as a DataFrame (fetched once, then cached)."""
        if self._findings is None:
            if self._table is None:
                self._findings = pd.DataFrame(columns=FINDING_COLUMNS)
            else:
                self._findings = self._con.df(f"SELECT * FROM temp.{quote(self._table)} ORDER BY ALL")
        return self._findings

    def to_csv(self, path: str) -> None:
        """Write the findings to a CSV file (DuckDB COPY, no pandas)."""
        if self._table is None:
            pd.DataFrame(columns=FINDING_COLUMNS).to_csv(path, index=False)
            return
        if self._con.name != "duckdb":
            self.findings.to_csv(path, index=False)
            return
        self._con.execute(f"COPY (SELECT * FROM temp.{quote(self._table)} ORDER BY ALL) TO '{_sql_str(path)}' (HEADER)")

    def close(self) -> None:
        """Drop the temporary findings table (also dropped when the connection closes)."""
        if self._table is not None and self._con is not None:
            try:
                self._con.execute(f"DROP TABLE IF EXISTS temp.{quote(self._table)}")
            except self._con.Error:  # connection already closed
                pass
        self._table = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def summary(self) -> str:
        """A short text summary."""
        rel = self.releases
        span = f"releases {rel[0]}..{rel[-1]} ({len(rel)})" if rel else "no releases"
        c = self.counts
        lines = [
            f"audit of project {self.project!r}, m = {self.m}, {span}",
            f"  intersection attack: {c['intersection']} persons left with fewer than {self.m} candidate values",
            f"  collusion (seed 003 Def. 1): {c['collusion']} signature pairs sharing 1..{self.m - 1} values",
            f"  m-invariance: {c['signature']} violations",
        ]
        for name, what in (("qi_linking", "linking by QI over all releases (any start)"),
                           ("absence", "absence (present, matching no group)")):
            if name in self.skipped:
                lines.append(f"  {what}: skipped - {self.skipped[name]}")
            else:
                lines.append(f"  {what}: {c[name]} persons narrowed below {self.m} values")
        if "comparison" in self.skipped:
            lines.append(f"  comparison attacks (seed 004): skipped - {self.skipped['comparison']}")
        else:
            detail = ", ".join(f"{k} {v}" for k, v in sorted(self.kinds.items())) or "none"
            lines.append(f"  comparison attacks (seed 004): {c['comparison']} ({detail})")
        lines.append(
            f"verdict: {self.verdict}"
            + ("" if self.verdict == "safe" else f" - {self.n_disclosures} disclosures (SA narrowed to one value)")
        )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:  # notebooks (sqlanon/display.py)
        from .display import audit_html

        return audit_html(self)

    def findings_per_release(self) -> pd.DataFrame:
        """Findings counted per check at the last release each one uses (the
        release from which an adversary holding the history can make it):
        columns ``release, check, findings, disclosures`` (sqlanon.plot)."""
        if self._table is None:
            return pd.DataFrame(columns=["release", "check", "findings", "disclosures"])
        return self._con.df(f'SELECT list_max(releases) AS release, "check", count(*) AS findings, '
                            f'sum(n_disclosed)::BIGINT AS disclosures FROM temp.{quote(self._table)} '
                            'GROUP BY ALL ORDER BY ALL')


def _sql_str(text: str) -> str:
    return str(text).replace("'", "''")


def audit(con: duckdb.DuckDBPyConnection, project: str, m: int) -> AuditReport:
    """Audit every release of ``project`` against an adversary who holds them all.

    Needs ``sqlanon_private.<project>_membership`` and the published SA per group:
    ``sqlanon_<project>_st``, or for a generalized-only project
    ``sqlanon_<project>_published`` (read through a temporary view). The seed 004
    comparison attacks need the QI table ``sqlanon_<project>_qit`` and are
    skipped without it. ``m`` is the privacy parameter (m of m-invariance, l of
    l-diversity for the comparison attacks). Only temporary objects are created."""
    p = Project(project)
    m = require_m(m)
    con = as_engine(con)  # a connection or an engine (the Spark engine inlines the table macros)
    if not p.exists(con, "mem"):
        raise SqlanonError(
            f"project {project!r} has no table {p.table('mem')}; the audit needs the release contract's "
            "private membership table (docs/contracts.md) - publish a release first or check the project name"
        )
    temp_view = None
    if not p.exists(con, "st"):
        if not p.exists(con, "pub"):
            raise SqlanonError(
                f"project {project!r} has neither {p.table('st')} nor {p.table('pub')}; the audit needs the "
                "published SA per group"
            )
        cols = list(as_engine(con).columns(p.table("mem")))
        sa = [c for c in cols if c not in ("release", "id", "group_id", "is_counterfeit", "first_release", "last_release")]
        if len(sa) != 1:
            raise SqlanonError(f"table {p.table('mem')} must have exactly one SA column, found {sa}")
        temp_view = p.table("st")
        con.execute(
            f"CREATE TEMP VIEW {quote(temp_view)} AS SELECT release, group_id, {quote(sa[0])}, count(*) AS count "
            f"FROM {p.ref('pub')} GROUP BY ALL"
        )
    table = p.scratch("audit", f"_{next(_serial)}")
    try:
        releases = [r[0] for r in con.fetch("SELECT DISTINCT release FROM sqlanon__st_rows(?) ORDER BY 1", [project])]
        skipped: dict[str, str] = {}
        parts, params = [], []
        for name in CHECKS:
            if name == "comparison" and not p.exists(con, "qit"):
                skipped[name] = f"no QI table {p.table('qit')} (not an anatomized release)"
                continue
            parts.append(_findings_sql(name))
            params += [project, m]
        why = _linking_missing(con, p)
        if why:
            skipped.update({name: why for name in LINKING_CHECKS})
        else:  # both from one pass over the candidates
            parts.append(_findings_sql("linking"))
            params += [project, m]
        con.execute(f"CREATE TEMP TABLE {quote(table)} AS " + "\nUNION ALL\n".join(parts), params)
        agg = con.fetch(f'SELECT "check", kind, count(*), sum(n_disclosed) FROM temp.{quote(table)} GROUP BY ALL')
    except BaseException:
        con.execute(f"DROP TABLE IF EXISTS temp.{quote(table)}")
        raise
    finally:
        if temp_view is not None:
            con.execute(f"DROP VIEW IF EXISTS temp.{quote(temp_view)}")
    counts = {c: 0 for c in (*CHECKS, *LINKING_CHECKS)}
    kinds: dict[str, int] = {}
    n_disclosures = 0
    for check, kind, n, nd in agg:
        counts[check] += n
        n_disclosures += int(nd or 0)
        if check == "comparison":
            kinds[kind] = n
    return AuditReport(
        project=project, m=m, releases=releases, counts=counts, kinds=kinds, n_disclosures=n_disclosures,
        skipped=skipped, _con=con, _table=table,
    )


def ledger_m(con: duckdb.DuckDBPyConnection, project: str) -> int | None:
    """The privacy parameter a project was published with (``m``, or ``l`` for
    the anatomy models), read from its ledger ``sqlanon_private.<project>__ledger``;
    None when the project has no ledger (releases made by another tool)."""
    p = Project(project)
    con = as_engine(con)
    if not p.exists(con, "ledger"):
        return None
    params = json.loads(con.fetch(f"SELECT params FROM {p.ref('ledger')} ORDER BY release LIMIT 1")[0][0])
    value = params.get("m", params.get("l"))
    return None if value is None else int(value)
