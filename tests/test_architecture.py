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


def test_the_result_shows_the_counts_its_model_declares():
    """ReleaseResult's line and notebook display show the optional counts of
    the model's ``result_fields`` (set by the Publisher), no model named."""
    from sqlanon.display import release_html
    from sqlanon.result import ReleaseResult

    base = dict(release=2, published=40, groups=12, counterfeits=4, survivors=30, new=6, deleted=2, reinserted=0,
                updated=0, held=1, ncp=12.5, seconds=0.25, suppressed=0, dl=7)
    seen = {}
    for name in ("m-invariance", "sliced-bucket", "dynamic-anatomy"):
        r = ReleaseResult(**base)
        object.__setattr__(r, "shown", MODELS[name].result_fields)  # as Publisher._result does
        html = release_html(r).replace("\xad", "")
        seen[name] = ("suppressed" in r.line(), "DL 7" in r.line(), ">suppressed<" in html, ">dl<" in html)
    assert seen == {"m-invariance": (False, False, False, False), "sliced-bucket": (True, False, True, False),
                    "dynamic-anatomy": (True, True, True, True)}
