"""examples/ runs: the notebook is executed (nbclient, a real Jupyter kernel)
and the two scripts are run, each in a fresh temporary folder on new files."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
WIDGET = "application/vnd.jupyter.widget-view+json"


def _env(**extra) -> dict:
    """This Python's bin/ first on PATH (the ``sqlanon`` command of this install)."""
    env = dict(os.environ, **extra)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def test_notebook_is_stored_executed():
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(EXAMPLES / "walkthrough.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.execution_count for c in code), "store examples/walkthrough.ipynb executed"
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert sum("image/png" in o.get("data", {}) for c in code for o in c.outputs) >= 3
    # the progress bars' widgets are closed when done: stored, they would only show "model not found"
    assert not [o for c in code for o in c.outputs if WIDGET in o.get("data", {})]
    assert "widgets" not in nb.metadata


@pytest.mark.slow
def test_walkthrough_notebook_executes(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(EXAMPLES / "walkthrough.ipynb", as_version=4)
    for cell in nb.cells:  # run from scratch, not on the stored outputs
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    monkeypatch.chdir(tmp_path)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    html = "\n".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert "verdict <span class=\"sqlanon-safe\">safe</span>" in html  # the m = 4 project
    assert "verdict <span class=\"sqlanon-unsafe\">unsafe</span>" in html  # the static Anatomy baseline
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 3
    assert list(tmp_path.iterdir()) == []  # writes no file unless asked (its report cell: REPORT = None)
    # the multi-release run shows a progress bar: tqdm's widget (ipywidgets is in the test extra)
    publish = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("results = histories.publish"))
    bars = [o["data"]["text/plain"] for o in publish.outputs if WIDGET in o.get("data", {})]
    assert bars and bars[0].startswith("releases of adult:")
    # the ledger shown compactly: the fingerprint shortened, the whole of it in the tooltip
    ledger = next(c for c in nb.cells if c.cell_type == "code" and "display.ledger" in c.source)
    assert re.search(r'<abbr class="nw" title="\d{15,20}">\d{4}…\d{4}</abbr>', ledger.outputs[0]["data"]["text/html"])


@pytest.mark.slow
def test_shell_session_script(tmp_path, duckdb_shell):
    db = tmp_path / "s.duckdb"
    out = subprocess.run(["bash", str(EXAMPLES / "shell_session.sh"), str(db)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600, env=_env(DUCKDB=duckdb_shell))
    assert out.returncode == 0, out.stderr + out.stdout
    assert "release   2:" in out.stdout and "verdict: safe" in out.stdout
    assert "│ release 2 │      4 │" in out.stdout  # the published groups have >= m = 4 rows (DuckDB shell table)
    assert (tmp_path / "s_report.html").exists()
    again = subprocess.run(["bash", str(EXAMPLES / "shell_session.sh"), str(db)], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60, env=_env(DUCKDB=duckdb_shell))
    assert again.returncode == 2 and "exists" in again.stderr  # never overwrites a file


def test_project_file_script(tmp_path, duckdb_shell):
    out = subprocess.run(["bash", str(EXAMPLES / "project_file.sh"), "proj"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600, env=_env(DUCKDB=duckdb_shell))
    assert out.returncode == 0, out.stderr + out.stdout
    assert "release   1:" in out.stdout and "verdict: safe" in out.stdout
    assert "sqlanon_ward_qit.parquet" in out.stdout and (tmp_path / "proj" / "report.html").exists()
    con = duckdb.connect(str(tmp_path / "proj" / "my.duckdb"), read_only=True)
    try:  # release 2 was made by the DuckDB shell from the compiled script
        assert con.execute("SELECT max(release) FROM sqlanon_private.ward__ledger").fetchall() == [(2,)]
    finally:
        con.close()
    again = subprocess.run(["bash", str(EXAMPLES / "project_file.sh"), "proj"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60, env=_env(DUCKDB=duckdb_shell))
    assert again.returncode == 2 and "exists" in again.stderr


@pytest.mark.slow
def test_project_run_script(tmp_path, duckdb_shell):
    db = tmp_path / "p.duckdb"
    out = subprocess.run([sys.executable, str(EXAMPLES / "project_run.py"), str(db), "--releases", "3"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600, env=_env())
    assert out.returncode == 0, out.stderr + out.stdout
    assert [line.split(":")[0] for line in out.stdout.splitlines() if line.startswith("release")] == [
        "release   1", "release   2", "release   3"]
    assert "verdict: safe" in out.stdout and (tmp_path / "p_report.html").exists()
    # the file opens in the DuckDB shell with the releases in it
    shell = subprocess.run([duckdb_shell, "-readonly", str(db), "-c",
                            "SELECT max(release) FROM sqlanon_private.adult__ledger"], capture_output=True, text=True,
                           timeout=60)
    assert shell.returncode == 0 and "3" in shell.stdout, shell.stderr
