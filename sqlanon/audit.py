"""The audit: the adversary's view of a project's releases, as one report.

Every check is a SQL macro (macros/audit_history.sql, macros/audit_comparison.sql);
this module only runs them and summarizes the result (sizes bounded by the
number of findings). Releases are read only through the release contract
(docs/contracts.md), so releases made by any tool can be audited.

>>> import sqlanon
>>> con = sqlanon.connect()
>>> _ = con.execute('''
...     CREATE TABLE sqlanon_fig1_membership AS SELECT * FROM (VALUES
...         (1, 1, 1, false, 'HIV'), (1, 2, 1, false, 'FLU'),
...         (2, 1, 1, false, 'HIV'), (2, 3, 1, false, 'ACNE'),
...         (2, 2, 2, false, 'FLU'), (2, 4, 2, false, 'COUCH'))
...         t(release, id, group_id, is_counterfeit, disease);
...     CREATE TABLE sqlanon_fig1_st AS SELECT release, group_id, disease, count(*) AS count
...         FROM sqlanon_fig1_membership GROUP BY ALL''')
>>> report = sqlanon.audit(con, "fig1", m=2)
>>> report.verdict
'unsafe'
>>> report.n_disclosures
2
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
import pandas as pd

from .errors import SqlanonError
from .ident import check_project, quote, require_m

FINDING_COLUMNS = ["check", "kind", "id", "releases", "groups", "targets", "values", "disclosed"]

#: macro name -> check name in the findings table
CHECKS = {
    "intersection": "sqlanon_intersection_attack",
    "collusion": "sqlanon_collusion_violations",
    "signature": "sqlanon_signature_violations",
    "comparison": "sqlanon_comparison_attacks",
}


@dataclass
class AuditReport:
    """What :func:`audit` found. ``findings`` has one row per finding (columns
    ``FINDING_COLUMNS``); ``results`` holds each macro's raw output."""

    project: str
    m: int
    releases: list[int]
    findings: pd.DataFrame
    results: dict[str, pd.DataFrame] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def n_disclosures(self) -> int:
        """Persons whose SA is narrowed to one value by the intersection attack,
        plus records whose SA a comparison attack narrows to one value."""
        if self.findings.empty:
            return 0
        f = self.findings
        inter = int(((f["check"] == "intersection") & f["disclosed"]).sum())
        comp = f[(f["check"] == "comparison") & f["disclosed"]]
        return inter + int(sum(len(t) for t in comp["targets"]))

    @property
    def verdict(self) -> str:
        """'safe' when no check found anything, else 'unsafe'."""
        return "safe" if self.findings.empty else "unsafe"

    @property
    def counts(self) -> dict[str, int]:
        """Number of findings per check."""
        return {c: int((self.findings["check"] == c).sum()) for c in CHECKS}

    def summary(self) -> str:
        """A short text summary."""
        lines = [
            f"audit of project {self.project!r}, m = {self.m}, releases {self.releases[:1] + self.releases[-1:] if len(self.releases) > 2 else self.releases}"
            f" ({len(self.releases)} releases)",
        ]
        c = self.counts
        lines.append(f"  intersection attack: {c['intersection']} persons left with fewer than {self.m} candidate values")
        lines.append(f"  collusion (seed 003 Def. 1): {c['collusion']} signature pairs sharing 1..{self.m - 1} values")
        lines.append(f"  m-invariance: {c['signature']} violations")
        if "comparison" in self.skipped:
            lines.append(f"  comparison attacks (seed 004): skipped - {self.skipped['comparison']}")
        else:
            kinds = self.findings.loc[self.findings["check"] == "comparison", "kind"].value_counts()
            detail = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "none"
            lines.append(f"  comparison attacks (seed 004): {c['comparison']} ({detail})")
        lines.append(
            f"verdict: {self.verdict}"
            + ("" if self.verdict == "safe" else f" - {self.n_disclosures} disclosures (SA narrowed to one value)")
        )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _table_exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return bool(
        con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [name]).fetchall()[0][0]
        or con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = ?", [name]).fetchall()[0][0]
    )


def _findings(name: str, df: pd.DataFrame) -> pd.DataFrame:
    if df.empty:
        return pd.DataFrame(columns=FINDING_COLUMNS)
    n = len(df)
    if name == "intersection":
        out = {
            "kind": df["disclosed"].map({True: "disclosed", False: "narrowed"}),
            "id": df["id"],
            "releases": df["releases"],
            "groups": [None] * n,
            "targets": [None] * n,
            "values": df["candidates"],
            "disclosed": df["disclosed"].astype(bool),
        }
    elif name == "collusion":
        out = {
            "kind": ["collusion"] * n,
            "id": df["id"],
            "releases": [list(a) + list(b) for a, b in zip(df["releases_a"], df["releases_b"])],
            "groups": [None] * n,
            "targets": [None] * n,
            "values": df["common"],
            "disclosed": [len(c) == 1 for c in df["common"]],
        }
    elif name == "signature":
        out = {
            "kind": df["violation"],
            "id": df["id"],
            "releases": [sorted({a, b}) for a, b in zip(df["release_from"], df["release_to"])],
            "groups": [None] * n,
            "targets": [None] * n,
            "values": df["signature_to"],
            "disclosed": [False] * n,
        }
    else:
        out = {
            "kind": df["attack"],
            "id": [None] * n,
            "releases": [[a, b] for a, b in zip(df["release_old"], df["release_new"])],
            "groups": [{"old": list(a), "new": list(b)} for a, b in zip(df["groups_old"], df["groups_new"])],
            "targets": df["targets"],
            "values": df["inferred"],
            "disclosed": [len(v) == 1 and k != "SVM" for v, k in zip(df["inferred"], df["attack"])],
        }
    res = pd.DataFrame(out)
    res.insert(0, "check", name)
    return res[FINDING_COLUMNS]


def audit(con: duckdb.DuckDBPyConnection, project: str, m: int) -> AuditReport:
    """Audit every release of ``project`` against an adversary who holds them all.

    Needs ``sqlanon_<project>_membership`` and the published SA per group:
    ``sqlanon_<project>_st``, or for a generalized-only project
    ``sqlanon_<project>_published`` (read through a temporary view). The seed 004
    comparison attacks need the QI table ``sqlanon_<project>_qit`` and are
    skipped without it. ``m`` is the privacy parameter (m of m-invariance, l of
    l-diversity for the comparison attacks). Nothing is written to the database."""
    check_project(project)
    m = require_m(m)
    p = f"sqlanon_{project}"
    if not _table_exists(con, p + "_membership"):
        raise SqlanonError(
            f"project {project!r} has no table {p}_membership; the audit needs the release contract's "
            "private membership table (docs/contracts.md) - publish a release first or check the project name"
        )
    temp_view = None
    if not _table_exists(con, p + "_st"):
        if not _table_exists(con, p + "_published"):
            raise SqlanonError(
                f"project {project!r} has neither {p}_st nor {p}_published; the audit needs the published SA per group"
            )
        cols = [r[0] for r in con.execute(f"DESCRIBE {quote(p + '_membership')}").fetchall()]
        sa = [c for c in cols if c not in ("release", "id", "group_id", "is_counterfeit")]
        if len(sa) != 1:
            raise SqlanonError(f"table {p}_membership must have exactly one SA column, found {sa}")
        temp_view = p + "_st"
        con.execute(
            f"CREATE TEMP VIEW {quote(temp_view)} AS SELECT release, group_id, {quote(sa[0])}, count(*) AS count "
            f"FROM {quote(p + '_published')} GROUP BY ALL"
        )
    try:
        releases = [
            r[0]
            for r in con.execute(f"SELECT DISTINCT release FROM {quote(p + '_st')} ORDER BY 1").fetchall()
        ]
        results: dict[str, pd.DataFrame] = {}
        skipped: dict[str, str] = {}
        for name, macro in CHECKS.items():
            if name == "comparison" and not _table_exists(con, p + "_qit"):
                skipped[name] = f"no QI table {p}_qit (not an anatomized release)"
                continue
            results[name] = con.execute(f"SELECT * FROM {macro}(?, ?)", [project, m]).df()
    finally:
        if temp_view is not None:
            con.execute(f"DROP VIEW IF EXISTS temp.{quote(temp_view)}")
    parts = [_findings(n, df) for n, df in results.items() if not df.empty]
    findings = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=FINDING_COLUMNS)
    return AuditReport(project=project, m=m, releases=releases, findings=findings, results=results, skipped=skipped)
