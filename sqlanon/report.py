"""``sqlanon report``: one self-contained HTML file (and JSON) per project with
its ledger, the checks of its last release, the audit's verdict and findings,
and the plots of :mod:`sqlanon.plot` embedded as base64 PNG images, styled to
read in a browser (a sans-serif font, tables that fit a 1,280 px page;
docs/notebooks.md) and written as any new file (:meth:`Report.write`).

The file needs nothing from outside (no script, stylesheet or image link), so
it can be mailed or archived next to the database. It holds aggregates only:
the ledger (counts, parameters, times, the source's keyed fingerprint), checks of the published groups and the
number of findings per check; never a person id or an SA value (the findings
themselves stay in ``sqlanon audit --csv``). It is still the data holder's
document, not a publication: the ledger's counts (persons deleted, updated,
held per release) and the audit's findings describe private state.
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import __version__, display
from .errors import SqlanonError
from .ident import quote
from .project import Project

#: ledger columns in the report's JSON (params and source schema are shown once)
LEDGER_COLUMNS = ["release", "made_at", "published", "groups", "counterfeits", "survivors", "new", "deleted",
                  "reinserted", "updated", "held", "ncp", "seconds", "suppressed", "dl", "exposed"]
#: and in its HTML: the fingerprint (keyed: it only tells whether two releases read the same source) shortened
HTML_LEDGER_COLUMNS = LEDGER_COLUMNS[:2] + ["fingerprint"] + LEDGER_COLUMNS[2:]


@dataclass
class Report:
    """What :func:`build` gathered; :meth:`to_html` and :meth:`to_dict` render it."""

    project: str
    m: int  # the privacy parameter: the model's first, m or l (``parameter``)
    parameters: dict
    ledger: pd.DataFrame
    checks: dict
    audit: object  # sqlanon.AuditReport
    per_release: pd.DataFrame
    plots: dict[str, bytes] = field(default_factory=dict)  # title -> PNG
    plot_note: str | None = None  # why there are no plots
    parameter: str = "m"

    @property
    def last_release(self) -> int:
        return int(self.ledger["release"].max())

    def to_dict(self) -> dict:
        """The report as JSON-ready data (no plots)."""
        a = self.audit
        ledger = self.ledger[[c for c in LEDGER_COLUMNS if c in self.ledger.columns]]
        return {
            "project": self.project, "m": self.m, "parameter": self.parameter, "sqlanon_version": __version__, "parameters": self.parameters,
            "ledger": json.loads(ledger.to_json(orient="records", date_format="iso")),
            "checks": {"release": self.last_release, **{k: _plain(v) for k, v in self.checks.items()}},
            "audit": {"verdict": a.verdict, "n_disclosures": a.n_disclosures, "counts": a.counts,
                      "comparison_kinds": a.kinds, "skipped": a.skipped, "releases": a.releases},
            "per_release": json.loads(self.per_release.to_json(orient="records")),
            "plots": list(self.plots),
        }

    def to_html(self) -> str:
        """One self-contained HTML document."""
        title = f"sqlanon report: project {self.project}"
        return "\n".join(["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
                          '<meta name="viewport" content="width=device-width, initial-scale=1">',
                          f"<title>{html.escape(title)}</title>", display.page_style(), display.style(),
                          "</head><body>",
                          f"<h1>{html.escape(title)}</h1>", self._body(), "</body></html>"])

    def shares_text(self) -> str:
        """The fake and stale shares of the last release and their trend over the
        last five releases (issue 32; sqlanon.publisher.shares)."""
        from .publisher import shares

        sh = shares(self.ledger.sort_values("release"))
        last, first = sh.iloc[-1], sh.iloc[max(0, len(sh) - 6)]
        span = f"since release {int(first['release'])}"
        return (f"release {int(last['release'])}: counterfeits {last['fake_share']:.1%} of the published rows "
                f"({100 * (last['fake_share'] - first['fake_share']):+.1f} points {span}), stale rows "
                f"{last['stale_share']:.1%} of the source's persons "
                f"({100 * (last['stale_share'] - first['stale_share']):+.1f} points {span}); "
                "docs/projects.md, \"Fake and stale shares\"")

    def _body(self) -> str:
        a = self.audit
        parts = [
            f"<p>{len(self.ledger)} releases, {self.parameter} = {self.m}; made by sqlanon "
            f"{html.escape(__version__)}. This file holds counts and parameters only, no person id or SA value; "
            "the counts describe the data holder's private state: do not publish it.</p>",
            '<h2 id="audit">Audit</h2>',
            f'<p id="verdict">verdict: {display.verdict(a.verdict)} - {a.n_disclosures} disclosures (SA narrowed '
            f"to one value), against an adversary holding releases {html.escape(_span(a.releases))} "
            f"(docs/threat_model.md)</p>",
            display.table(display.audit_summary_rows(a), columns=["check", "findings", "note"],
                          caption="findings per check"),
            display.table(self.per_release, caption="per release (findings at the last release they use)"),
            '<h2 id="ledger">Ledger</h2>',
            f'<p id="shares">{html.escape(self.shares_text())}</p>',
            display.ledger_html(self.ledger, caption=Project(self.project).table("ledger"),
                                columns=HTML_LEDGER_COLUMNS),
            display.pairs(self.parameters, caption="parameters"),
            f'<h2 id="checks">Checks of release {self.last_release}</h2>',
            "<p>The published groups of the last release (counterfeits included, as published): group sizes "
            "(k), SA values per group (l), m-uniqueness.</p>",
            display.pairs({k: _plain(v) for k, v in self.checks.items()}, caption=f"release {self.last_release}"),
            '<h2 id="plots">Plots</h2>',
        ]
        for name, png in self.plots.items():
            data = base64.b64encode(png).decode("ascii")
            parts.append(f'<figure><img alt="{html.escape(name)}" src="data:image/png;base64,{data}">'
                         f"<figcaption>{html.escape(name)}</figcaption></figure>")
        if self.plot_note:
            parts.append(f'<p class="sqlanon-note">{html.escape(self.plot_note)}</p>')
        return "\n".join(parts)

    def write(self, path) -> Path:
        """Write :meth:`to_html` to ``path`` as any program writes a new file: mode
        0666 less the umask (0644 under the usual umask 022), or the mode of the
        file it replaces. The text goes to a new file beside ``path``, renamed
        over it when complete, so a failure leaves no partial file."""
        target = Path(path)
        data = self.to_html().encode("utf-8")
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = None
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as to open(path, "w")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            if mode is not None:
                os.chmod(tmp, mode)
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return target

    def _repr_html_(self) -> str:  # notebooks: the body, without the document around it
        return display.style() + self._body()


def _span(releases: list[int]) -> str:
    return f"{releases[0]}..{releases[-1]}" if releases else "(none)"


def _plain(value):
    """numpy scalars as Python numbers (JSON)."""
    return value.item() if hasattr(value, "item") else value


def _release_checks(con, pub, release: int) -> dict:
    """k, l, m-uniqueness of the groups of ``release`` as published (``sqlanon_published_st``, one row per count)."""
    from . import checks

    view = f"sqlanon__report_{pub.project}"
    sa = quote(pub.sa)
    con.execute(f"CREATE OR REPLACE TEMP TABLE {quote(view)} AS SELECT group_id, {sa} FROM "
                f"(SELECT group_id, {sa}, unnest(range(count)) FROM sqlanon_published_st($p, $r))",
                {"p": pub.project, "r": release})
    try:
        out = dict(checks.profile(con, view, ["group_id"], pub.sa))
        out.update({f"m_uniqueness_{k}": v for k, v in checks.m_uniqueness(con, view, ["group_id"], pub.sa,
                                                                            pub.m).items()})
    finally:
        con.execute(f"DROP TABLE IF EXISTS temp.{quote(view)}")
    return out


def build(con, project: str, *, plots: bool = True) -> Report:
    """Gather the report of ``project`` (a project of sqlanon's publisher, with
    a ledger): the audit runs with the ledger's m. Plots need matplotlib; without
    it the report says so (``plot_note``) instead of failing."""
    from .audit import audit
    from .publisher import Publisher

    from .audit import ledger_m

    if ledger_m(con, project) is None:
        raise SqlanonError(f"project {project!r} has no ledger ({Project(project).table('ledger')}) in this database: a report "
                           "needs a project made by sqlanon's publisher; check the project name, or audit releases "
                           "made by another tool with sqlanon audit DB PROJECT --m M")
    pub = Publisher.open(con, project)
    ledger = pub.ledger()
    if ledger.empty:  # pragma: no cover - open() refuses projects without a ledger
        raise SqlanonError(f"project {project!r} has no releases")
    last = int(ledger["release"].max())
    checks = _release_checks(con, pub, last)
    report = audit(con, project, pub.m)
    from .plot import per_release

    rep = Report(project=project, m=pub.m, parameters=pub.params(), ledger=ledger, checks=checks, audit=report,
                 per_release=per_release(con, project, report), parameter=pub.spec.parameter)
    if plots:
        try:
            from . import plot

            fig = plot.releases(con, project, report)
        except SqlanonError as exc:  # matplotlib missing
            rep.plot_note = f"no plots: {exc}"
        else:
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=100)
            rep.plots["counterfeits, held rows, NCP and audit findings per release"] = buf.getvalue()
    return rep
