"""The README's examples run (docs that cannot drift).

Every fenced ``python`` block is executed, in README order, in a fresh
namespace inside a temporary working directory. Every fenced ``sql`` block is
run statement by statement (DuckDB shell dot-commands such as ``.read`` are
skipped: the macros are already installed) on the connection ``con`` the
preceding Python block left behind, else on a fresh connection that holds the
bundled Adult data as table ``adult`` (with an ``id`` column), which the SQL
reference examples use. ``bash`` blocks are not run here: the quick start and
CLI have tests of their own. The SQL blocks also run in the real DuckDB shell
in tests/test_cli_duckdb.py where they are self-contained."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import sqlanon
from sqlanon.datasets import load_adult

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _blocks() -> list[tuple[str, str, int]]:
    text = README.read_text()
    return [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in BLOCK.finditer(text)]


def _statements(sql: str) -> list[str]:
    lines = [ln for ln in sql.splitlines() if not ln.lstrip().startswith(".")]
    # drop end-of-line comments (the examples annotate results with `-- ...`)
    body = "\n".join(re.sub(r"--[^'\n]*$", "", ln) for ln in lines)
    return [s.strip() for s in body.split(";") if s.strip()]


def test_readme_has_runnable_examples():
    kinds = [k for k, _, _ in _blocks()]
    assert kinds.count("python") >= 5 and kinds.count("sql") >= 4


@pytest.mark.slow
def test_readme_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    last_con = None
    for kind, code, line in _blocks():
        if kind == "python":
            ns: dict = {"__name__": "readme_example"}
            try:
                exec(compile(code, f"README.md:{line}", "exec"), ns)
            except Exception as exc:  # pragma: no cover - the failure message is the point
                pytest.fail(f"README.md line {line}: python example failed: {exc!r}")
            last_con = ns.get("con")
        elif kind == "sql":
            con = last_con
            if con is None:
                con = sqlanon.connect()
                load_adult(con, "adult")
            for stmt in _statements(code):
                try:
                    con.execute(stmt).fetchall()
                except Exception as exc:  # pragma: no cover
                    pytest.fail(f"README.md line {line}: SQL example failed: {stmt[:80]!r}: {exc}")
