"""HTML for notebooks and reports: the ``_repr_html_`` of release results,
check reports and audit reports, and the tables of ``sqlanon report``.

Every value is escaped (``html.escape``): table, column and project names
come from users and must not become markup. The HTML is plain tables with a
few inline styles, so it renders the same in Jupyter, in a browser and in
an e-mail client, and needs no script or stylesheet from outside.

>>> print(table([{"release": 1, "verdict": "<safe>"}]))
<table class="sqlanon"><thead><tr><th>release</th><th>verdict</th></tr></thead><tbody><tr><td>1</td><td>&lt;safe&gt;</td></tr></tbody></table>
"""

from __future__ import annotations

import html
import math
from dataclasses import asdict

#: inline style of every table (no external CSS, so a report stays one file)
_STYLE = ("<style>table.sqlanon{border-collapse:collapse;font-family:sans-serif;font-size:13px;margin:4px 0}"
          "table.sqlanon th,table.sqlanon td{border:1px solid #ccc;padding:2px 8px;text-align:right}"
          "table.sqlanon th{background:#f3f3f3}table.sqlanon caption{text-align:left;font-weight:bold}"
          ".sqlanon-safe{color:#1a7f37;font-weight:bold}.sqlanon-unsafe{color:#c62828;font-weight:bold}</style>")


def esc(value) -> str:
    """``value`` as HTML text: None/NaN/NA as an empty cell, floats with 3 decimals."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.3f}".rstrip("0").rstrip(".")
    try:
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return ""
    except ImportError:  # pragma: no cover - pandas is a dependency
        pass
    if isinstance(value, (list, tuple)):
        return html.escape(", ".join(str(v) for v in value))
    return html.escape(str(value))


def table(rows, columns=None, caption: str | None = None) -> str:
    """An HTML table of ``rows`` (dicts, or a DataFrame) with ``columns`` (default: the keys of the first row)."""
    if hasattr(rows, "to_dict"):  # a DataFrame
        columns = columns or list(rows.columns)
        rows = rows.to_dict(orient="records")
    rows = list(rows)
    if columns is None:
        columns = list(rows[0]) if rows else []
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{esc(r.get(c))}</td>" for c in columns) + "</tr>" for r in rows)
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f'<table class="sqlanon">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def pairs(mapping: dict, caption: str | None = None) -> str:
    """A two-column (name, value) HTML table of ``mapping``."""
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in mapping.items())
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f'<table class="sqlanon">{cap}<tbody>{rows}</tbody></table>'


def verdict(text: str) -> str:
    """The audit verdict, coloured (green safe, red unsafe)."""
    cls = "sqlanon-safe" if text == "safe" else "sqlanon-unsafe"
    return f'<span class="{cls}">{esc(text)}</span>'


def release_html(result) -> str:
    """A :class:`sqlanon.ReleaseResult` as one row of the ledger's columns."""
    d = asdict(result)
    if d.get("dl") is None:  # m-invariance: the anatomy models' columns say nothing
        d.pop("dl")
        if not d["suppressed"]:  # (sliced-bucket: its updates held over)
            d.pop("suppressed")
    note = ""
    if result.unsafe_baseline:
        note = '<p class="sqlanon-unsafe">unsafe baseline: releases of this model can be compared to narrow persons</p>'
    if result.exposed:
        note += f'<p class="sqlanon-unsafe">{result.exposed} persons exposed (committed by an unsafe option)</p>'
    return _STYLE + table([d], caption=f"release {result.release}") + note


def check_html(name: str, values: dict) -> str:
    """A check report (``sqlanon.checks``' dicts) as a two-column table."""
    return _STYLE + pairs(values, caption=name)


def audit_summary_rows(report) -> list[dict]:
    """One row per check of an :class:`sqlanon.AuditReport`: findings or why it was skipped."""
    rows = []
    for check, n in report.counts.items():
        rows.append({"check": check, "findings": "" if check in report.skipped else n,
                     "note": ("skipped - " + report.skipped[check]) if check in report.skipped else ""})
    if report.kinds:
        detail = ", ".join(f"{k} {v}" for k, v in sorted(report.kinds.items()))
        for row in rows:
            if row["check"] == "comparison":
                row["note"] = detail
    return rows


def audit_html(report) -> str:
    """An :class:`sqlanon.AuditReport`: verdict, disclosures and the findings per check."""
    rel = report.releases
    span = f"releases {rel[0]}..{rel[-1]}" if rel else "no releases"
    head = (f"<p>audit of project <b>{esc(report.project)}</b>, m = {report.m}, {esc(span)}: verdict "
            f"{verdict(report.verdict)}, {report.n_disclosures} disclosures (SA narrowed to one value)</p>")
    return _STYLE + head + table(audit_summary_rows(report), columns=["check", "findings", "note"])


def style() -> str:
    """The inline stylesheet the tables use (once per document)."""
    return _STYLE
