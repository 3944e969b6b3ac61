"""The README's examples run (docs that cannot drift), in the environment each
block names, in README order, in a temporary working directory:

* ``python`` blocks are executed in a fresh namespace each, like a script: the
  DuckDB connections a block leaves open are closed when it ends; a
  ``print(...)  # -> text`` comment is an output the README shows: ``text``
  (whitespace aside) must be in what the block printed (README numbers stay
  true; the demo block is tests/test_readme_drift.py's);
* ``sql`` blocks are piped into the real DuckDB shell (``duckdb-cli``, with
  ``-bail``) on ``my.duckdb`` of that directory, run there (the README's
  ``.read sqlanon.sql`` reads the file its ``sqlanon macros > sqlanon.sql``
  wrote: the path of a pip user, no checkout) - the shell the README tells the
  user to open, with nothing injected: the Adult table, the macros and the
  ``ward`` project exist only because earlier README blocks made them;
* ``bash`` blocks: the ``sqlanon ...`` commands on ``my.duckdb`` (the README's
  walkthrough) and ``sqlanon macros > FILE`` are run and must exit 0; the others (placeholders such as DB,
  ``run.sh``, ``pip``) have tests of their own."""

from __future__ import annotations

import contextlib
import gc
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
DB = "my.duckdb"


def _blocks() -> list[tuple[str, str, int]]:
    text = README.read_text()
    return [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in BLOCK.finditer(text)]


def _walkthrough_commands(code: str) -> list[list[str]]:
    """The ``sqlanon`` command lines of a bash block that work on my.duckdb."""
    cmds = [shlex.split(line, comments=True) for line in code.splitlines()]
    return [c for c in cmds if c and c[0] == "sqlanon" and (DB in c or c[1:3] == ["macros", ">"])]


def test_readme_has_runnable_examples():
    blocks = _blocks()
    kinds = [k for k, _, _ in blocks]
    assert kinds.count("python") >= 5 and kinds.count("sql") >= 4
    commands = [c for k, code, _ in blocks if k == "bash" for c in _walkthrough_commands(code)]
    assert {("sqlanon", "data"), ("sqlanon", "audit")} <= {tuple(c[:2]) for c in commands}


CLAIM = re.compile(r"#\s*->\s*(.*?)(?:\s{2,}\(.*)?$")


def _claims(code: str, line: int) -> list[tuple[int, str]]:
    """The README's shown outputs in a python block: ``print(...)  # -> text``
    (``text`` up to two spaces and a parenthesized remark), with their README
    line numbers."""
    out = []
    for i, src in enumerate(code.splitlines(), 1):
        m = CLAIM.search(src)
        if m and "print(" in src:
            out.append((line + i, m.group(1).strip()))
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_claims_are_parsed():
    code = 'x = 1\nprint(r.line())   # -> 21 held |  (the Cach)\nprint(2)  # -> [(1,)]\nf(3)  # -> 3\n'
    assert _claims(code, 10) == [(12, "21 held |"), (13, "[(1,)]")]


def _close_connections(ns: dict) -> None:
    for value in ns.values():
        if isinstance(value, duckdb.DuckDBPyConnection):
            value.close()
    ns.clear()
    gc.collect()


@pytest.mark.slow
def test_readme_examples_run(tmp_path, monkeypatch, duckdb_shell):
    monkeypatch.chdir(tmp_path)
    db = tmp_path / DB
    ran = {"python": 0, "sql": 0, "bash": 0}
    drift = []
    for kind, code, line in _blocks():
        if kind == "python":
            ns: dict = {"__name__": "readme_example"}
            printed = io.StringIO()
            try:
                with contextlib.redirect_stdout(printed):
                    exec(compile(code, f"README.md:{line}", "exec"), ns)
            except Exception as exc:  # pragma: no cover - the failure message is the point
                pytest.fail(f"README.md line {line}: python example failed: {exc!r}")
            finally:
                _close_connections(ns)
            for at, claim in _claims(code, line):  # the outputs the README shows must be what it prints
                if _squash(claim) not in _squash(printed.getvalue()):
                    drift.append(f"README.md line {at}: the comment shows {claim!r}, but the block printed:\n"
                                 + printed.getvalue())
        elif kind == "sql":
            out = subprocess.run([duckdb_shell, "-bail", str(db)], input=code, cwd=tmp_path,
                                 capture_output=True, text=True, timeout=300)
            if out.returncode != 0:  # pragma: no cover
                pytest.fail(f"README.md line {line}: SQL example failed in the DuckDB shell: {out.stderr or out.stdout}")
        elif kind == "bash":
            commands = _walkthrough_commands(code)
            for cmd in commands:
                cmd, _, to = (cmd[:cmd.index(">")], ">", cmd[cmd.index(">") + 1]) if ">" in cmd else (cmd, "", None)
                out = subprocess.run([sys.executable, "-m", "sqlanon", *cmd[1:]], cwd=tmp_path,
                                     capture_output=True, text=True, timeout=300)
                if to is not None:
                    (tmp_path / to).write_text(out.stdout)
                if out.returncode != 0:  # pragma: no cover
                    pytest.fail(f"README.md line {line}: `{shlex.join(cmd)}` exited {out.returncode}: {out.stderr}")
            if not commands:
                continue
        ran[kind] += 1
    assert ran["sql"] >= 4 and ran["python"] >= 5 and ran["bash"] >= 2, ran
    assert not drift, ("README numbers drifted; update the `# -> ...` comments (the demo block: "
                       "python -m sqlanon.demo --readme):\n" + "\n".join(drift))
