"""The package's docstring examples (issue 14), run against the sqlanon that
is imported (in CI the installed package, not the source tree: pytest's
--doctest-modules would collect the source files and refuse the mismatch)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import sqlanon

MODULES = sorted(m.name for m in pkgutil.walk_packages(sqlanon.__path__, "sqlanon.")
                 if not m.name.endswith("__main__"))


def test_the_package_has_examples():
    finder = doctest.DocTestFinder()
    assert sum(len([t for t in finder.find(importlib.import_module(n)) if t.examples]) for n in MODULES) >= 10


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} failed"
