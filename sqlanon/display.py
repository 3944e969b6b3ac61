"""HTML for notebooks and reports: the ``_repr_html_`` of release results,
check reports and audit reports, and the tables of ``sqlanon report``.

Every value is escaped (``html.escape``): table, column and project names
come from users and must not become markup. The HTML is plain tables with
one inline stylesheet (a sans-serif font, tables that fit their page), so it
renders the same in Jupyter, in a browser and in an e-mail client, and needs
no script or stylesheet from outside.

>>> print(table([{"release": 1, "verdict": "<safe>"}]))
<table class="sqlanon"><thead><tr><th>release</th><th>verdict</th></tr></thead><tbody><tr><td class="n">1</td><td class="t">&lt;safe&gt;</td></tr></tbody></table>
"""

from __future__ import annotations

import html
import math
from dataclasses import asdict

#: a readable sans-serif stack: the system's UI font where there is one, then
#: the common sans fonts of macOS, Windows, Android and Linux (DejaVu Sans last)
FONTS = ('system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans","Liberation Sans",'
         '"DejaVu Sans",sans-serif')

#: inline style of every table (no external CSS, so a report stays one file).
#: Tables never grow wider than their container: numbers stay on one line
#: (``td.n``), text wraps (``td.t``: anywhere, for a long name without spaces),
#: headers wrap after an underscore or at a soft hyphen (:func:`header`); the
#: values of a two-column table (:func:`pairs`) are left-aligned.
_STYLE = ("<style>table.sqlanon{border-collapse:collapse;font-family:" + FONTS + ";font-size:12.5px;"
          "margin:6px 0 14px;max-width:100%;font-variant-numeric:tabular-nums}"
          "table.sqlanon th,table.sqlanon td{border:1px solid #d0d7de;padding:2px 5px;text-align:right;"
          "vertical-align:top}"
          "table.sqlanon td.n{white-space:nowrap}table.sqlanon td.t{text-align:left;overflow-wrap:anywhere}"
          "table.sqlanon th{background:#f3f5f7;font-weight:600;font-size:12px;vertical-align:bottom}"
          "table.sqlanon tbody th{text-align:left;vertical-align:top}table.sqlanon th+td{text-align:left}"
          "table.sqlanon tbody tr:nth-child(even) td{background:#fafbfc}"
          "table.sqlanon caption{text-align:left;font-weight:600;padding:2px 0;overflow-wrap:anywhere}"
          "table.sqlanon abbr{text-decoration:underline dotted;cursor:help}.sqlanon .nw{white-space:nowrap}"
          ".sqlanon-safe{color:#1a7f37;font-weight:bold}.sqlanon-unsafe{color:#c62828;font-weight:bold}</style>")

#: the page around a report (``sqlanon report``): one column at most 1,200 px wide
_PAGE = ("<style>body{font-family:" + FONTS + ";font-size:15px;line-height:1.5;color:#1f2328;max-width:1200px;"
         "margin:0 auto;padding:8px 24px 40px;overflow-wrap:break-word}"
         "h1{font-size:26px;margin:18px 0 6px}h2{font-size:20px;margin:28px 0 6px;padding-bottom:3px;"
         "border-bottom:1px solid #d0d7de}p{margin:6px 0;max-width:90ch}"
         "figure{margin:10px 0}figure img{max-width:100%;height:auto;border:1px solid #d0d7de}"
         "figcaption{color:#59636e;font-size:13px}.sqlanon-note{color:#59636e}</style>")

#: characters of a long value shown on each side of the ellipsis (:func:`short`)
SHORT = 4


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


#: where the long words of the ledger's column names may break, with a hyphen
#: (a soft hyphen, shown only at a break), when a narrow page needs the room
HYPHENATED = {w.replace("-", ""): w.replace("-", "\u00ad") for w in (
    "pub-lished", "counter-feits", "sur-vivors", "re-inserted", "sup-pressed", "finger-print", "dis-closures")}


def header(name) -> str:
    """A column name as HTML that may break after an underscore (``<wbr>``) and
    in the long words of :data:`HYPHENATED` (with a hyphen), nowhere else.

    >>> header("m_uniqueness_min_group_size")
    'm_<wbr>uniqueness_<wbr>min_<wbr>group_<wbr>size'
    >>> header("counterfeits") == "counter\u00adfeits"
    True
    """
    return "_<wbr>".join(HYPHENATED.get(w, w) for w in esc(name).split("_"))


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) or type(value).__module__ == "numpy"


def _td(value, render=None) -> str:
    """One cell: numbers on one line (class ``n``), text left-aligned and wrapping (class ``t``)."""
    cls = "n" if _is_number(value) else "t"
    return f'<td class="{cls}">{(render or esc)(value)}</td>'


def table(rows, columns=None, caption: str | None = None, cells: dict | None = None) -> str:
    """An HTML table of ``rows`` (dicts, or a DataFrame) with ``columns`` (default: the keys of the first row);
    ``cells`` maps a column to the function that renders its values as HTML (default :func:`esc`)."""
    if hasattr(rows, "to_dict"):  # a DataFrame
        columns = columns or list(rows.columns)
        rows = rows.to_dict(orient="records")
    rows = list(rows)
    if columns is None:
        columns = list(rows[0]) if rows else []
    cells = cells or {}
    head = "".join(f"<th>{header(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_td(r.get(c), cells.get(c)) for c in columns) + "</tr>" for r in rows)
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f'<table class="sqlanon">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def short(value, keep: int = SHORT) -> str:
    """A long value as its first and last ``keep`` characters, the whole of it in
    the tooltip (``title``): the ledger's 19-digit fingerprint fits a narrow column.

    >>> short(13754973724212921486)
    '<abbr class="nw" title="13754973724212921486">1375…1486</abbr>'
    >>> short(42)
    '42'
    """
    text = html.unescape(esc(value))
    if len(text) <= 2 * keep + 1:
        return esc(value)
    shown = f"{html.escape(text[:keep])}…{html.escape(text[-keep:])}"
    return f'<abbr class="nw" title="{html.escape(text)}">{shown}</abbr>'


def _to_second(value) -> str:
    """A timestamp to the second (the whole value in the tooltip), breaking only between date and time."""
    text = esc(value)
    if len(text) >= 19 and text[10:11] in (" ", "T"):
        return (f'<abbr title="{text}"><span class="nw">{text[:10]}</span> '
                f'<span class="nw">{text[11:19]}</span></abbr>')
    return text


#: how the ledger's columns are shown by :func:`ledger_html`
LEDGER_CELLS = {"fingerprint": short, "made_at": _to_second}


#: ledger columns of some models only: left out of :func:`ledger_html` when 0 (or empty) in every release
OPTIONAL_LEDGER_COLUMNS = ("suppressed", "dl", "exposed")


def ledger_html(ledger, caption: str | None = None, columns=None) -> str:
    """A release ledger (``Publisher.ledger()``, ``sqlanon.publisher.status``)
    as a compact table: the fingerprint shortened and made_at to the second
    (each whole in its tooltip); a column empty in every release left out, and
    so are ``suppressed``, ``dl``, ``exposed`` (columns of some models only)
    when 0 in every release, and the sqlanon version when one made every
    release: the caption says which and their value."""
    columns = [c for c in (columns or list(ledger.columns)) if c in ledger.columns]
    notes = []
    if ledger.empty:  # no release: nothing to leave out
        return table(ledger, columns=columns, caption=caption, cells=LEDGER_CELLS)
    columns = [c for c in columns if not ledger[c].isna().all()]
    zero = [c for c in OPTIONAL_LEDGER_COLUMNS if c in columns and (ledger[c].fillna(0) == 0).all()]
    if zero:
        columns = [c for c in columns if c not in zero]
        notes.append(f"{', '.join(zero)}: 0 in every release")
    if "sqlanon_version" in columns and ledger["sqlanon_version"].nunique(dropna=False) == 1:
        columns.remove("sqlanon_version")
        notes.append(f"made by sqlanon {ledger['sqlanon_version'].iloc[0]}")
    caption = "; ".join(([caption] if caption else []) + notes) or None
    return table(ledger, columns=columns, caption=caption, cells=LEDGER_CELLS)


class Ledger:
    """A ledger DataFrame that shows compactly in a notebook (:func:`ledger_html`);
    ``.df`` is the DataFrame itself."""

    def __init__(self, df, caption: str | None = None) -> None:
        self.df, self.caption = df, caption

    def _repr_html_(self) -> str:
        return _STYLE + ledger_html(self.df, self.caption)

    def __repr__(self) -> str:
        return repr(self.df)


def ledger(df, caption: str | None = None) -> Ledger:
    """``df`` (a ledger) for a notebook cell: ``sqlanon.display.ledger(pub.ledger())``
    shows one compact table that fits the page (pandas' own display is wider:
    every column, the 19-digit fingerprint, microseconds)."""
    return Ledger(df, caption)


def pairs(mapping: dict, caption: str | None = None) -> str:
    """A two-column (name, value) HTML table of ``mapping``."""
    rows = "".join(f"<tr><th>{header(k)}</th>{_td(v)}</tr>" for k, v in mapping.items())
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f'<table class="sqlanon">{cap}<tbody>{rows}</tbody></table>'


def verdict(text: str) -> str:
    """The audit verdict, coloured (green safe, red unsafe)."""
    cls = "sqlanon-safe" if text == "safe" else "sqlanon-unsafe"
    return f'<span class="{cls}">{esc(text)}</span>'


def release_html(result) -> str:
    """A :class:`sqlanon.ReleaseResult` as one row of the ledger's columns."""
    d = asdict(result) | {"fake_share": f"{result.fake_share:.1%}", "stale_share": f"{result.stale_share:.1%}"}
    for name in ("suppressed", "dl"):  # the counts only some models have: those of this release's model
        if name not in result.optional():
            d.pop(name)
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


def page_style() -> str:
    """The stylesheet of a whole page (``sqlanon report``): fonts, width, headings, figures."""
    return _PAGE
