"""install() / connect() / packaging."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import sqlanon
from sqlanon._resources import macros_dir, sql_dir
from sqlanon.install import bundle, macro_files


def test_install_is_idempotent(con):
    first = sqlanon.install(con)
    second = sqlanon.install(con)
    assert first.macros == second.macros and list(first) == first.macros


def test_every_macro_file_is_listed_in_sqlanon_sql():
    listed = {p.name for p in macro_files()}
    on_disk = {p.name for p in macros_dir().glob("*.sql")} - {"sqlanon.sql"}
    assert listed == on_disk, "add a `.read macros/<file>` line to macros/sqlanon.sql"


def test_bundle_contains_every_file():
    text = bundle()
    for p in macro_files():
        assert p.name in text


def test_resources_found():
    assert (macros_dir() / "sqlanon.sql").is_file()
    assert sql_dir().is_dir()


@pytest.mark.skipif(os.environ.get("SQLANON_EXPECT_INSTALLED") != "1", reason="only when run.sh installs the wheel")
def test_runs_from_installed_wheel_not_source_tree():
    pkg = Path(sqlanon.__file__).resolve().parent
    assert "site-packages" in str(pkg), pkg
    assert macros_dir().resolve().parent == pkg  # macros/ shipped inside the wheel


def test_every_macro_file_creates_macros_the_read_only_install_can_make_temporary():
    """install() on a read-only database rewrites `CREATE OR REPLACE MACRO` to a
    TEMP macro; a CREATE of any other form would write to the file and fail."""
    import re

    from sqlanon.install import _CREATE_MACRO

    for path in macro_files():
        text = path.read_text()
        creates = re.findall(r"^\s*CREATE\b", text, re.I | re.M)
        assert len(creates) == len(_CREATE_MACRO.findall(text)), path.name
