"""A release killed with SIGKILL half-way leaves the database at the previous
release; rerunning it gives the same release as an uninterrupted run.

The release is stopped half-way by a template override folder (a project's own
templates, docs/publisher.md) that adds a step after step 9 (publish): it writes
a marker file (COPY runs at once, outside the transaction) and then runs a
statement that never ends, so the test kills a release whose rows are all
inserted but not committed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import duckdb

from sqlanon.project import Project

SCRIPT = textwrap.dedent("""
    import sys, sqlanon
    path, releases, edit = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "edit"
    templates_dir = sys.argv[4] if len(sys.argv) > 4 else None
    con = sqlanon.connect(path)
    if not edit:
        pass  # rerun of a killed release: the source edits already happened
    elif releases == 1:
        con.execute("CREATE TABLE IF NOT EXISTS src AS SELECT range AS id, (range * 13) % 60 AS age, "
                    "['a','b','c','d','e'][range % 5 + 1] AS disease FROM range(200)")
    else:
        con.execute("DELETE FROM src WHERE id % 7 = 0")
        con.execute("INSERT INTO src SELECT 1000 + range, range % 50, ['a','b','c','d','e'][range % 3 + 1] FROM range(30)")
        con.execute("UPDATE src SET disease = 'e' WHERE id % 11 = 1")
    pub = sqlanon.Publisher(con, "k", source="src", id="id", qi=["age"], sa="disease", m=3, seed=9,
                            templates_dir=templates_dir)
    r = pub.release()
    con.execute("CHECKPOINT")
    print("DONE", r.release, flush=True)
""")


def _run(path, step, pause=None, edit="edit"):
    args = [sys.executable, "-c", SCRIPT, str(path), str(step), edit] + ([str(pause)] if pause else [])
    return subprocess.Popen(args, stdout=subprocess.PIPE, text=True)


def _pause_templates(folder, marker):
    """A template folder whose extra step 09z (after 09_publish, before 90_stats)
    writes ``marker`` and then never ends."""
    (folder / "m_invariance").mkdir(parents=True)
    (folder / "m_invariance" / "09z_pause.sql.j2").write_text(
        f"COPY (SELECT 'paused' AS state) TO '{marker}' (HEADER false);\n"
        "SELECT count(*) FROM range(1000000000000000) WHERE random() < 0;\n")
    return folder


def _dump(path):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {t: con.execute(f"SELECT * FROM {Project('k').ref(t)} ORDER BY ALL").fetchall()
                for t in ("qit", "st", "mem", "groups")} | {
            "ledger": con.execute("SELECT release, published, counterfeits FROM sqlanon_private.k__ledger ORDER BY 1").fetchall(),
            "src": con.execute("SELECT count(*) FROM src").fetchall()}
    finally:
        con.close()


def test_sigkill_mid_release(tmp_path):
    killed, clean = tmp_path / "killed.duckdb", tmp_path / "clean.duckdb"
    for path in (killed, clean):
        p = _run(path, 1)
        assert "DONE 1" in p.communicate(timeout=120)[0]
    before = _dump(killed)
    # release 2, stopped after its publish step (all rows inserted, not committed), then SIGKILL
    marker = tmp_path / "paused.csv"
    p = _run(killed, 2, pause=_pause_templates(tmp_path / "pause", marker))
    deadline = time.monotonic() + 120
    while not marker.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists() and p.poll() is None, "the release did not reach the pause step"
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=60)
    after = _dump(killed)
    # the source edits ran outside the release transaction (auto-commit); the release did not land
    assert {k: v for k, v in after.items() if k != "src"} == {k: v for k, v in before.items() if k != "src"}
    assert after["ledger"][-1][0] == 1
    # rerun release 2 on the edited source; the clean copy runs release 2 without interruption
    con = duckdb.connect(str(killed))
    src_rows = con.execute("SELECT * FROM src ORDER BY id").fetchall()
    con.close()
    assert len(src_rows) != 200
    rerun = _run(killed, 2, edit="noedit")
    assert "DONE 2" in rerun.communicate(timeout=120)[0]
    p = _run(clean, 2)
    assert "DONE 2" in p.communicate(timeout=120)[0]
    a, b = _dump(killed), _dump(clean)
    assert a == b
