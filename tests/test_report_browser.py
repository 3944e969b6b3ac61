"""``sqlanon report`` and the notebook ledger in a real browser: headless
Chromium (Debian's ``chromium`` package; .ci/run installs it).

The tool is Chromium's own headless command line, run as a subprocess:
``--dump-dom`` prints the DOM after the page has loaded and ``--screenshot``
writes a PNG. The page is the report as written plus one ``<script>`` that,
on the load event, measures the layout (the document's scroll width against
the viewport, every element's right edge, each image's natural size) and
writes the numbers into the DOM, where ``--dump-dom`` shows them. No Python
browser driver: Playwright and pyppeteer download a browser build of their
own, which CI machines cannot, and selenium needs chromedriver and a driver
manager; one measuring script needs none of them (docs/notebooks.md).

Missing Chromium skips these tests with the reason, except where
``SQLANON_EXPECT_CHROMIUM=1`` (set by .ci/run): there they fail.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import sqlanon
import sqlanon.display
from sqlanon.publisher import status

pytestmark = pytest.mark.slow

#: names of a Chromium on PATH (Debian: chromium; others: chromium-browser, Google Chrome)
CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

#: a QI column name with no space to break at, wider than the page in one line: the parameters table must wrap it
LONG_NAME = ("age_at_admission_in_completed_years_as_recorded_by_the_ward_on_the_first_day_of_the_stay_"
             "or_on_the_day_of_transfer_from_another_ward_whichever_came_first_in_the_calendar")

#: measures the laid-out page after every image has loaded and writes the numbers into the DOM
PROBE = """<script>
addEventListener('load', () => {
  const doc = document.documentElement, width = doc.clientWidth;
  const over = [...document.body.querySelectorAll('*')]
    .filter(e => e.getBoundingClientRect().right > width + 0.5)
    .map(e => e.tagName.toLowerCase() + ' ' + Math.round(e.getBoundingClientRect().right));
  const out = {scrollWidth: doc.scrollWidth, clientWidth: width, over: over.slice(0, 10),
    tables: [...document.querySelectorAll('table')].map(t => Math.round(t.getBoundingClientRect().width)),
    images: [...document.images].map(i => ({complete: i.complete, naturalWidth: i.naturalWidth,
      naturalHeight: i.naturalHeight, width: Math.round(i.getBoundingClientRect().width)})),
    font: getComputedStyle(document.body).fontFamily};
  const pre = document.createElement('pre');
  pre.id = 'sqlanon-probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.fixture(scope="module")
def chromium() -> str:
    """Path of headless Chromium: ``SQLANON_CHROMIUM`` or the first of :data:`CHROMIUMS` on PATH."""
    found = os.environ.get("SQLANON_CHROMIUM") or next(filter(None, map(shutil.which, CHROMIUMS)), None)
    if found is None:
        if os.environ.get("SQLANON_EXPECT_CHROMIUM") == "1":
            pytest.fail("SQLANON_EXPECT_CHROMIUM=1 but no Chromium on PATH (looked for "
                        f"{', '.join(CHROMIUMS)}): .ci/run installs Debian's chromium package")
        pytest.skip(f"no Chromium on PATH (looked for {', '.join(CHROMIUMS)}): apt-get install chromium "
                    "(.ci/run does), or name one in SQLANON_CHROMIUM")
    return found


def _run(chromium: str, tmp_path, width: int, height: int, *args: str) -> subprocess.CompletedProcess:
    """Chromium headless with a profile of its own (runs in parallel do not share one); as root it needs
    --no-sandbox; a container's small /dev/shm is not used."""
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--disable-extensions",
           f"--user-data-dir={tmp_path / 'chromium-profile'}", f"--window-size={width},{height}", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    return out


def _layout(chromium: str, tmp_path, page: str, width: int) -> dict:
    """The layout of HTML ``page`` (a document, or a fragment as a notebook shows it) in a window ``width`` px wide."""
    if "</body>" not in page:
        page = f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">{page}</body></html>'
    probe = tmp_path / f"probe-{width}.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = _run(chromium, tmp_path, width, 900, "--virtual-time-budget=10000", "--dump-dom", probe.as_uri()).stdout
    found = re.search(r'<pre id="sqlanon-probe">(.*?)</pre>', dom, re.S)
    assert found, f"the measuring script did not run; chromium printed: {dom[:500]}"
    return json.loads(html.unescape(found.group(1)))


def _ward(path, project="ward", qi="age"):
    """The README's ward (1000 patients, m = 4), three releases, on a database file."""
    con = sqlanon.connect(path)
    con.execute(f"CREATE TABLE patients AS SELECT range AS id, 20 + range % 50 AS {sqlanon.ident.quote(qi)}, "
                "['flu','hiv','cold','gastritis','dyspepsia'][range % 5 + 1] AS disease FROM range(1000)")
    pub = sqlanon.Publisher(con, project, source="patients", id="id", qi=[qi], sa="disease", m=4, seed=7)
    pub.release()
    for r in (2, 3):
        con.execute(f"DELETE FROM patients WHERE id % 10 = {r}")
        con.execute(f"UPDATE patients SET disease = 'flu' WHERE id % 17 = {r}")
        pub.release()
    ledger = status(con, project)
    con.close()
    return ledger


def _assert_fits(layout: dict, width: int) -> None:
    assert layout["clientWidth"] <= width
    assert layout["scrollWidth"] <= layout["clientWidth"], f"horizontal overflow: {layout}"
    assert layout["over"] == [], f"elements past the right edge: {layout['over']}"


def test_report_page_in_chromium(chromium, tmp_path):
    db, out = tmp_path / "ward.duckdb", tmp_path / "report.html"
    ledger = _ward(db, qi=LONG_NAME)
    res = subprocess.run([sys.executable, "-m", "sqlanon", "report", str(db), "ward", "--out", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    page = out.read_text(encoding="utf-8")
    assert LONG_NAME in page and str(ledger["fingerprint"].iloc[0]) in page  # the long values are in it

    _assert_fits(_layout(chromium, tmp_path, page, 1100), 1100)  # where the unstyled report overflowed
    layout = _layout(chromium, tmp_path, page, 1280)
    _assert_fits(layout, 1280)
    assert len(layout["tables"]) >= 5  # findings, per release, ledger, parameters, checks
    assert layout["font"].startswith("system-ui")  # the sans-serif stack, not the browser's default serif
    # the plots are shown: every image loaded (a decodable PNG) and laid out with a width
    assert layout["images"], "no plot in the report"
    for img in layout["images"]:
        assert img["complete"] and img["naturalWidth"] > 0 and img["naturalHeight"] > 0 and img["width"] > 0, img

    # the screenshot: the page renders at 1,280 px, with text and a plot in it (not a blank page)
    shot = tmp_path / "report.png"
    _run(chromium, tmp_path, 1280, 2400, f"--screenshot={shot}", "--virtual-time-budget=10000", out.as_uri())
    from matplotlib.image import imread

    pixels = imread(shot)
    assert pixels.shape[1] == 1280 and pixels.shape[0] >= 900
    rgb = (pixels[..., :3] * 255).round().astype("uint8").reshape(-1, 3)
    inked = (rgb.min(axis=1) < 200).mean()  # share of pixels darker than the page's background
    colours = len({tuple(p) for p in rgb[:: 7].tolist()})
    assert 0.01 < inked < 0.9 and colours > 50, (inked, colours)


def test_notebook_ledger_fits_the_page(chromium, tmp_path):
    ledger = _ward(tmp_path / "w.duckdb")
    # a notebook's output area is about 900 px wide (JupyterLab next to its file browser at 1,280 px)
    _assert_fits(_layout(chromium, tmp_path, sqlanon.display.ledger(ledger)._repr_html_(), 900), 900)
    # pandas' own display of the same DataFrame does not fit (what display.ledger is for)
    wide = _layout(chromium, tmp_path, sqlanon.display.style() + ledger.to_html(), 900)
    assert wide["scrollWidth"] > wide["clientWidth"]
    # the counts of a 10-million-row source (8 digits) still fit a report's 1,280 px
    big = ledger.copy()
    for c in ("published", "groups", "counterfeits", "survivors", "new", "deleted", "reinserted", "updated", "held"):
        big[c] = big[c] * 10_000 + 1234
    _assert_fits(_layout(chromium, tmp_path, sqlanon.display.ledger(big)._repr_html_(), 1280), 1280)
