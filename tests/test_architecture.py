"""Claims of docs/architecture.md kept true by a test (issue 36 items 2, 4
and 8): the Publisher and the layers around it know no model by name (they
read the models' declarations), and no module of the package is over 600
lines. (No DuckDB exception type or message outside the DuckDB engine, no
catalog query outside it: tests/test_engine.py; a model from outside the
package: tests/test_toy_model.py.)"""

from __future__ import annotations

from pathlib import Path

from sqlanon.models import MODELS, OUTPUTS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sqlanon"
# the layers that take a model by its declaration only
MODEL_FREE = ["publisher.py", "result.py", "ledger.py", "validation.py", "profile.py", "project.py", "display.py",
              "report.py", "compile.py", "cli/__init__.py", "cli/release.py", "cli/projects.py",
              "cli/checks.py"]
MAX_LINES = 600


def test_the_publisher_knows_no_model_by_name():
    # a model's name and its template folder's ("anatomy" is also the name of an output form)
    names = {n for spec in MODELS.values() for n in (spec.name, spec.pipeline)} - set(OUTPUTS)
    assert {"m-invariance", "m_invariance", "sliced-bucket", "dynamic-anatomy", "unprotected"} <= names
    found = [f"{f}: {n}" for f in MODEL_FREE for n in sorted(names) if n in (PACKAGE / f).read_text().lower()]
    assert not found


def test_no_module_is_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long
