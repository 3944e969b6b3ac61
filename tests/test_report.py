"""Notebook display, sqlanon.plot, progress bars and ``sqlanon report``.

The report's HTML is checked here with Python's own HTML parser (html.parser):
what a browser is given. How a browser lays it out (no horizontal overflow at
1,280 px, the plots shown) is tests/test_report_browser.py, in headless
Chromium (docs/notebooks.md)."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
from html.parser import HTMLParser

import duckdb
import pandas as pd
import pytest

import sqlanon
import sqlanon.histories as histories
import sqlanon.display
import sqlanon.plot
import sqlanon.progress
import sqlanon.report
from sqlanon import checks
from sqlanon.progress import bar
from sqlanon.publisher import status

DISEASES = ["flu", "hiv", "cold", "gastritis", "dyspepsia"]


def _ward(con, releases: int = 3, project: str = "ward", **params) -> list:
    """The README's ward: 1000 patients, m = 4, rows deleted and updated between releases."""
    con.execute("CREATE OR REPLACE TABLE patients AS SELECT range AS id, 20 + range % 50 AS age, "
                "['flu','hiv','cold','gastritis','dyspepsia'][range % 5 + 1] AS disease FROM range(1000)")
    params = {"m": 4, "seed": 7} | params
    pub = sqlanon.Publisher(con, project, source="patients", id="id", qi=["age"], sa="disease", **params)
    results = [pub.release()]
    for r in range(2, releases + 1):
        con.execute(f"DELETE FROM patients WHERE id % 10 = {r}")
        con.execute(f"UPDATE patients SET disease = 'flu' WHERE id % 17 = {r}")
        results.append(pub.release())
    return results


@pytest.fixture
def ward_db(tmp_path):
    path = tmp_path / "ward.duckdb"
    con = sqlanon.connect(path)
    _ward(con)
    ledger = status(con, "ward")
    con.close()
    return path, ledger


class _Doc(HTMLParser):
    """What a browser would be given: text by element id, table rows, images, links."""

    def __init__(self) -> None:
        super().__init__()
        self.stack, self.ids, self.tables, self.images, self.links = [], {}, [], [], []
        self.titles: list[tuple[str, str]] = []  # (tag, title attribute): tooltips of shortened values
        self.text: list[str] = []
        self._row = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.stack.append((tag, a.get("id")))
        if a.get("id"):
            self.ids[a["id"]] = ""
        if "title" in a:
            self.titles.append((tag, a["title"]))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._row.append("")
        elif tag == "img":
            self.images.append(a)
        if tag in ("img", "wbr", "br"):
            self.stack.pop()  # void element
        for key in ("href", "src"):
            if key in a and tag != "img":
                self.links.append(a[key])

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
        if tag == "tr" and self._row is not None:
            self.tables[-1].append(self._row)
            self._row = None

    def handle_data(self, data):
        data = data.replace("\u00ad", "")  # soft hyphens: shown only where a header breaks
        self.text.append(data)
        for _, i in self.stack:
            if i:
                self.ids[i] += data
        if self._row is not None and self._row and any(t in ("td", "th") for t, _ in self.stack):
            self._row[-1] += data


def _parse(text: str) -> _Doc:
    doc = _Doc()
    doc.feed(text)
    doc.close()
    return doc


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "sqlanon", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


# ------------------------------------------------------------------ display
def test_release_result_html(con):
    r = _ward(con, releases=2)[-1]
    doc = _parse(r._repr_html_())
    header, row = doc.tables[0][0], doc.tables[0][1]
    values = dict(zip(header, row))
    assert values["release"] == "2" and values["counterfeits"] == str(r.counterfeits)
    assert values["held"] == str(r.held) and "dl" not in values  # m-invariance: no DL column


def test_check_reports_stay_dicts_and_display(con):
    _ward(con, releases=1)
    k = checks.k_anonymity(con, "patients", ["age"])
    assert isinstance(k, dict) and k == {"k": 20, "groups": 50, "rows": 1000}
    assert json.loads(json.dumps(k)) == k
    doc = _parse(k._repr_html_())
    assert doc.tables[0] == [["k", "20"], ["groups", "50"], ["rows", "1000"]]
    assert "sqlanon_k_anonymity" in "".join(doc.text)
    assert "sqlanon_profile" in checks.profile(con, "patients", ["age"], "disease")._repr_html_()


def test_display_escapes_names(con):
    # a column name with markup reaches the report's parameters table escaped
    con.execute('CREATE TABLE t AS SELECT range AS id, range % 9 AS "<b>age</b>", '
                "['a','b','c'][range % 3 + 1] AS s FROM range(90)")
    sqlanon.Publisher(con, "esc", source="t", id="id", qi=["<b>age</b>"], sa="s", m=3).release()
    html = sqlanon.report.build(con, "esc", plots=False).to_html()
    assert "<b>age" not in html and "&lt;b&gt;age&lt;/b&gt;" in html
    from sqlanon import display

    cell = display.table([{"<i>": "<script>x</script>"}])
    assert "<i>" not in cell and "<script>" not in cell


def test_audit_report_html(con):
    _ward(con, releases=2)
    safe = _parse(sqlanon.audit(con, "ward", 4)._repr_html_())
    assert "verdict safe" in " ".join("".join(safe.text).split())
    unsafe = sqlanon.audit(con, "ward", 5)  # what-if: above the project's m
    doc = _parse(unsafe._repr_html_())
    assert "verdict unsafe" in " ".join("".join(doc.text).split())
    rows = {r[0]: r[1] for r in doc.tables[0][1:]}
    assert rows == {k: str(v) for k, v in unsafe.counts.items()}


# --------------------------------------------------------------------- plot
def test_plot_per_release_and_figure(con):
    _ward(con, releases=3)
    ledger = status(con, "ward")
    unsafe = sqlanon.audit(con, "ward", 5)
    data = sqlanon.plot.per_release(con, "ward", unsafe)
    assert data["counterfeits"].tolist() == ledger["counterfeits"].tolist()
    assert data["held"].tolist() == ledger["held"].tolist()
    assert data["findings"].sum() == sum(unsafe.counts.values()) > 0
    per = unsafe.findings_per_release()
    assert set(per["release"]) <= {1, 2, 3}
    # a finding counts at the last release it uses
    f = unsafe.findings
    assert (f["releases"].map(max).value_counts().sort_index()
            == per.groupby("release")["findings"].sum().sort_index()).all()
    fig = sqlanon.plot.releases(con, "ward", unsafe)
    bars = fig.axes[3].patches  # the findings panel: one bar per (check, release)
    assert sum(b.get_height() for b in bars) == data["findings"].sum()
    assert len(sqlanon.plot.releases(con, "ward").axes) == 5  # 4 panels + the share axis


def _integer_ticks(ax) -> bool:
    return all(float(t).is_integer() for t in ax.get_yticks())


def _says_nothing(ax) -> bool:
    """A panel drawn without axes that says why it is empty, with no bar or line."""
    return (not ax.axison and any("nothing to show" in t.get_text() for t in ax.texts)
            and not ax.patches and not ax.lines)


def test_plot_counts_have_integer_ticks(con):
    _ward(con, releases=3)
    unsafe = sqlanon.audit(con, "ward", 5)
    fig = sqlanon.plot.releases(con, "ward", unsafe)
    counterfeits, held, ncp, findings = fig.axes[:4]
    assert max(b.get_height() for b in held.patches) == 23  # 23 held rows: a default axis ticks 2.5, 7.5, ...
    for ax in (counterfeits, held, findings):
        assert ax.axison and _integer_ticks(ax), ax.get_title()
    assert ncp.axison and ncp.lines  # a percentage: any ticks


def test_plot_says_nothing_to_show(con):
    _ward(con, releases=1)  # one release: no counterfeits, nothing held, no findings
    data = sqlanon.plot.per_release(con, "ward")
    assert data[["counterfeits", "held"]].sum().tolist() == [0, 0]
    fig = sqlanon.plot.releases(con, "ward", sqlanon.audit(con, "ward", 4))
    counterfeits, held, ncp, findings = fig.axes
    for ax in (counterfeits, held, findings):
        assert _says_nothing(ax), ax.get_title()
    assert "no rows held in release 1" in " ".join(t.get_text() for t in held.texts)
    assert ncp.axison and ncp.lines  # NCP > 0: drawn
    no_audit = sqlanon.plot.releases(con, "ward").axes[3]
    assert _says_nothing(no_audit) and "no audit given" in no_audit.texts[0].get_text()
    data, fig = sqlanon.plot.what_if(con, "ward", [2, 3])  # safe for both: no findings
    assert data["findings"].tolist() == [0, 0] and _says_nothing(fig.axes[0])


def test_plot_what_if(con):
    _ward(con, releases=2)
    data, fig = sqlanon.plot.what_if(con, "ward", [3, 4, 5])
    assert data["verdict"].tolist() == ["safe", "safe", "unsafe"]
    assert fig.axes[0].get_xlabel() == "m audited with"
    assert fig.axes[0].axison and _integer_ticks(fig.axes[0])
    findings = next(line for line in fig.axes[0].lines if line.get_label() == "findings")
    assert list(findings.get_ydata()) == data["findings"].tolist()


def test_plot_without_matplotlib(con, monkeypatch):
    _ward(con, releases=1)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(sqlanon.SqlanonError, match=r"pip install 'sqlanon\[plot\]'"):
        sqlanon.plot.releases(con, "ward")
    rep = sqlanon.report.build(con, "ward")
    assert rep.plots == {} and "sqlanon[plot]" in rep.plot_note
    assert "sqlanon[plot]" in rep.to_html()


def test_ledger_display_is_compact(con):
    _ward(con, releases=3)
    ledger = status(con, "ward")
    shown = sqlanon.display.ledger(ledger)
    assert shown.df is ledger and repr(shown) == repr(ledger)
    doc = _parse(shown._repr_html_())
    header, rows = doc.tables[0][0], doc.tables[0][1:]
    # every column but the empty dl, the all-zero suppressed and exposed, the one version
    # (and a column NULL in every release, such as shared_persons)
    hidden = {"dl", "suppressed", "exposed", "sqlanon_version"} | {c for c in ledger.columns if ledger[c].isna().all()}
    assert header == [c for c in ledger.columns if c not in hidden]
    assert (ledger["dl"].isna().all() and (ledger[["suppressed", "exposed"]] == 0).all().all()
            and ledger["sqlanon_version"].nunique() == 1)
    caption = "".join(doc.text)
    assert f"suppressed, exposed: 0 in every release; made by sqlanon {sqlanon.__version__}" in caption
    for row, (_, r) in zip(rows, ledger.iterrows()):
        cells = dict(zip(header, row))
        assert cells["fingerprint"] == f"{str(r.fingerprint)[:4]}…{str(r.fingerprint)[-4:]}"
        assert cells["made_at"] == str(r.made_at)[:19]
        assert cells["counterfeits"] == str(r.counterfeits) and cells["ncp"] == f"{r.ncp:.3f}".rstrip("0")
    assert sorted(t for _, t in doc.titles if t.isdigit()) == sorted(str(f) for f in ledger["fingerprint"])
    # a column that is not 0 everywhere stays
    ledger.loc[1, "exposed"] = 3
    header = _parse(sqlanon.display.ledger_html(ledger)).tables[0][0]
    assert "exposed" in header and "suppressed" not in header
    assert _parse(sqlanon.display.ledger_html(ledger.iloc[:0])).tables[0] == [list(ledger.columns)]  # no release


def test_report_write_respects_umask(con, tmp_path):
    _ward(con, releases=1)
    rep = sqlanon.report.build(con, "ward", plots=False)
    old = os.umask(0o077)
    try:
        private = rep.write(tmp_path / "private.html")
    finally:
        os.umask(old)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    old = os.umask(0o022)
    try:
        public = rep.write(tmp_path / "r.html")
        assert stat.S_IMODE(public.stat().st_mode) == 0o644
        public.chmod(0o640)  # a report written again keeps the mode its owner gave the file
        rep.write(public)
    finally:
        os.umask(old)
    assert stat.S_IMODE(public.stat().st_mode) == 0o640
    assert public.read_text(encoding="utf-8") == rep.to_html()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["private.html", "r.html"]  # no temporary left


# ----------------------------------------------------------------- progress
def test_progress_off_without_terminal(capsys):
    assert not sys.stderr.isatty()  # pytest captures stderr
    assert not sqlanon.progress.in_notebook()
    assert list(bar(range(3))) == [0, 1, 2]
    assert capsys.readouterr().err == ""
    assert list(bar(range(3), desc="releases", enabled=True)) == [0, 1, 2]
    assert "releases" in capsys.readouterr().err


@pytest.mark.slow
def test_progress_in_a_notebook_kernel(tmp_path):
    """In a real Jupyter kernel (nbclient + ipykernel) the bar is on by default:
    tqdm's widget with ipywidgets, its text bar on stderr without."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipywidgets")
    cells = ["from sqlanon.progress import bar, in_notebook\nin_notebook(), list(bar(range(3), desc='widget'))",
             "import sys\nsys.modules['ipywidgets'] = None  # as if not installed\n"
             "list(bar(range(3), desc='text'))",
             "list(bar(range(3), desc='off', enabled=False))"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    widget, text, off = (c.outputs for c in nb.cells)
    assert widget[-1]["data"]["text/plain"] == "(True, [0, 1, 2])"
    views = [o for o in widget if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert views and "widget" in views[0]["data"]["text/plain"]
    stderr = "".join(o.get("text", "") for o in text if o.get("name") == "stderr")
    assert "text:" in stderr and "0/3 [" in stderr  # tqdm's text bar (a line the notebook redraws)
    assert not any("widget-view" in str(o) for o in text)
    assert [o["output_type"] for o in off] == ["execute_result"]


def test_histories_publish_equals_manual_releases():
    pool = pd.DataFrame({"id": range(400), "age": [20 + i % 40 for i in range(400)],
                         "disease": [DISEASES[i % 5] for i in range(400)]})
    frames = histories.history(pool, "id", "disease", releases=3, start=300, seed=2)
    a, b = sqlanon.connect(), sqlanon.connect()
    params = dict(id="id", qi=["age"], sa="disease", m=3, seed=5)
    got = histories.publish(a, "h", frames, source="src", **params)
    pub = None
    for frame in frames:
        b.execute("CREATE OR REPLACE TABLE src AS SELECT * FROM frame")
        pub = pub or sqlanon.Publisher(b, "h", source="src", **params)
        pub.release()
    assert [r.release for r in got] == [1, 2, 3]
    for t in ("sqlanon_h_qit", "sqlanon_h_st", "sqlanon_private.h_membership"):
        q = f"SELECT md5(string_agg(x::VARCHAR, '|' ORDER BY x::VARCHAR)) FROM {t} x"
        assert a.execute(q).fetchone() == b.execute(q).fetchone()
    with pytest.raises(sqlanon.SqlanonError, match="at least one DataFrame"):
        histories.publish(a, "h", [], source="src", **params)


# ------------------------------------------------------------------- report
def test_report_html(ward_db, tmp_path):
    path, ledger = ward_db
    out = tmp_path / "report.html"
    res = _cli("report", path, "ward", "--out", out)
    assert res.returncode == 0, res.stderr
    assert "verdict safe" in res.stdout
    text = out.read_text(encoding="utf-8")
    doc = _parse(text)
    assert " ".join(doc.ids["verdict"].split()).startswith("verdict: safe - 0 disclosures")
    # the ledger table: one row per release with the ledger's numbers
    ledger_table = next(t for t in doc.tables if t and t[0][:4] == ["release", "made_at", "fingerprint", "published"])
    header, rows = ledger_table[0], ledger_table[1:]
    assert [r[header.index("release")] for r in rows] == ["1", "2", "3"]
    assert [int(r[header.index("counterfeits")]) for r in rows] == ledger["counterfeits"].tolist()
    # the 19/20-digit fingerprint shortened to 4 + 4 digits, the whole of it in the tooltip
    fingerprints = [str(f) for f in ledger["fingerprint"]]
    assert [r[header.index("fingerprint")] for r in rows] == [f"{f[:4]}…{f[-4:]}" for f in fingerprints]
    assert [t for tag, t in doc.titles if tag == "abbr" and t.isdigit()] == fingerprints
    # made_at to the second; m-invariance's empty dl and all-zero suppressed/exposed named in the caption only
    assert [r[header.index("made_at")] for r in rows] == [str(t)[:19] for t in ledger["made_at"]]
    assert not {"dl", "suppressed", "exposed", "sqlanon_version"} & set(header)
    assert "suppressed, exposed: 0 in every release" in text
    # a new file's mode: 0666 less the umask, as any program's (0644 under umask 022)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~_umask()
    # the checks of release 3: every published group has >= m rows and m distinct values
    checks_table = dict(r for r in next(t for t in doc.tables if ["m_uniqueness_m_unique", "True"] in t))
    assert int(checks_table["k"]) >= 4 and checks_table["distinct_l"] == "4"
    # one embedded PNG, nothing loaded from outside
    assert len(doc.images) == 1
    src = doc.images[0]["src"]
    assert src.startswith("data:image/png;base64,")
    assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert doc.links == [] and "<script" not in text
    # counts and parameters only: no SA value, no person id list
    assert not any(v in text for v in DISEASES)


@pytest.mark.slow
def test_report_unsafe_exits_1_and_still_writes(tmp_path):
    path = tmp_path / "a.duckdb"
    con = sqlanon.connect(path)
    _ward(con, releases=3, project="naive", model="anatomy", m=None, l=4)
    con.close()
    out = tmp_path / "naive.html"
    res = _cli("report", path, "naive", "--out", out)
    assert res.returncode == 1, res.stderr
    assert "l = 4, audit verdict unsafe" in res.stdout  # the anatomy models' parameter is l
    doc = _parse(out.read_text(encoding="utf-8"))
    assert " ".join(doc.ids["verdict"].split()).startswith("verdict: unsafe")


def test_report_json(ward_db, tmp_path):
    path, ledger = ward_db
    res = _cli("report", path, "ward", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["audit"]["verdict"] == "safe" and data["m"] == 4 and data["parameters"]["sa"] == "disease"
    assert [r["release"] for r in data["ledger"]] == [1, 2, 3]
    assert data["checks"]["release"] == 3 and data["checks"]["m_uniqueness_m_unique"] is True
    assert [r["counterfeits"] for r in data["per_release"]] == ledger["counterfeits"].tolist()
    assert list(tmp_path.glob("*.html")) == []


@pytest.mark.slow
def test_report_bad_input_leaves_no_file(ward_db, tmp_path):
    path, _ = ward_db
    out = tmp_path / "r.html"
    res = _cli("report", path, "nope", "--out", out)
    assert res.returncode == 2 and "no project 'nope'" in res.stderr and not out.exists()
    assert "sqlanon_private.nope__ledger" in res.stderr  # the table's real name (private schema)
    res = _cli("report", path, "ward", "--out", tmp_path / "missing" / "r.html")
    assert res.returncode == 2 and "cannot write the report" in res.stderr
    res = _cli("report", path, "ward")
    assert res.returncode == 2 and "--out" in res.stderr
    res = _cli("report", tmp_path / "none.duckdb", "ward", "--out", out)
    assert res.returncode == 2 and not (tmp_path / "none.duckdb").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ward.duckdb"]


@pytest.mark.slow
def test_report_reads_the_database_only(ward_db, tmp_path):
    path, _ = ward_db
    before = path.read_bytes()
    assert _cli("report", path, "ward", "--out", tmp_path / "r.html").returncode == 0
    assert path.read_bytes() == before
    con = duckdb.connect(str(path), read_only=True)  # still opens, nothing added
    assert not con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'sqlanon__report%'"
                           ).fetchone()[0]
    con.close()


def test_report_in_a_notebook(con):
    _ward(con, releases=2)
    rep = sqlanon.report.build(con, "ward", plots=False)
    body = rep._repr_html_()
    assert "<html" not in body and "<!DOCTYPE" not in body
    doc = _parse(body)
    assert " ".join(doc.ids["verdict"].split()).startswith("verdict: safe")
    assert rep.to_html().startswith("<!DOCTYPE html>")
