"""Docs cannot drift: every repository file, Python name and SQL macro that
README.md, sql/README.md and docs/*.md name exists."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "sql" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# named in the docs on purpose although no such file or attribute exists
NOT_FILES = {"sql/m_invariance/NN_step.sql.j2",  # the pattern of a step file
             "benchmarks/.venv-pycanon"}  # made by benchmarks/checks.py when it runs
NOT_NAMES = {"sqlanon.profile", "sqlanon.toml"}  # a logger's name, the project file's name


def _paths(text: str) -> set[str]:
    found = re.findall(r"(?<![\w/.-])((?:sqlanon|sql|macros|docs|tests|benchmarks)/[\w./-]*\w)", text)
    return {p for p in found if "<" not in p and "*" not in p} - NOT_FILES


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_doc_names_only_what_exists(doc, con):
    text = doc.read_text()
    # a path may be named by its start (`tests/test_publisher*`, `benchmarks/results/audit.*`)
    missing = [p for p in sorted(_paths(text)) if not (ROOT / p).exists() and not list(ROOT.glob(p + "*"))]
    names = set(re.findall(r"`(sqlanon(?:\.\w+)+)(?:\(|`)", text)) - NOT_NAMES
    missing += [n for n in sorted(names) if not _resolves(n)]
    have = {r[0] for r in con.execute("SELECT function_name FROM duckdb_functions()").fetchall()}
    missing += [m for m in sorted(set(re.findall(r"\b(sqlanon_{1,2}[a-z][a-z0-9_]*)\s*\(", text))) if m not in have]
    assert not missing, f"{doc.name} names what does not exist: {missing}"


def test_the_check_can_fail():
    assert "sql/m_invariance/07_assign.sql.j2" in _paths("see `sql/m_invariance/07_assign.sql.j2`")
    assert not (ROOT / "sql/m_invariance/07_assign.sql.j2").exists()
    assert not _resolves("sqlanon.eligibility.plan_table") and _resolves("sqlanon.eligibility.plan")
