"""The ``sqlanon`` command: a thin click layer over the library.

Exit status, the same for every command: 0 ok, 1 findings (``audit``) or a
failed threshold (``check``), 2 bad input (a usage error, a file that cannot
be opened, a ``SqlanonError``). A command that fails leaves no new file behind.
Commands that print a report take ``--json``.

The commands live in modules by what they work on (``release``: making
releases; ``projects``: reading and managing a project; ``checks``: one
table); this module holds the group and the helpers they share.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import click

from .. import __version__


EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2


def _bad(message: str) -> click.ClickException:
    """A clean CLI error for bad input: the message, exit status 2 (1 is the
    audit's "attacks found")."""
    err = click.ClickException(message)
    err.exit_code = EXIT_BAD_INPUT
    return err


def _echo_json(obj) -> None:
    click.echo(json.dumps(obj, indent=2, default=str))


@contextlib.contextmanager
def _no_new_file(db: str):
    """Remove database file ``db`` (and its WAL) if this command created it and fails."""
    path = Path(db)
    existed = path.exists()
    try:
        yield
    except BaseException:
        if not existed:
            for leftover in (path, path.with_name(path.name + ".wal")):
                leftover.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _release_errors(con, project: str):
    """Map a release's errors to exit code 2 (our message, or the database
    error's kind without its text) and close ``con`` afterwards."""
    from ..engines import ERRORS
    from ..errors import SqlanonError

    try:
        yield
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    except ERRORS as exc:  # not expected: the library maps what it knows
        raise _bad(f"release of project {project!r} failed ({type(exc).__name__}); nothing was written") from exc
    finally:
        con.close()


def _connect(db: str | None, *, read_only: bool = False):
    """sqlanon.connect with the file errors (the engine's LockHeld, CannotOpen)
    turned into clean CLI errors."""
    from ..errors import SqlanonError
    from ..install import connect

    try:
        return connect(db, read_only=read_only)
    except SqlanonError as exc:  # LockHeld, CannotOpen, or a CSV or Parquet file given as the database
        raise _bad(str(exc)) from exc


def _attach(con, db: str, alias: str) -> None:
    """Attach ``db`` read-only as ``alias`` and read from it first."""
    from ..engines.duckdb import attach
    from ..errors import SqlanonError
    from ..install import require_database_file

    try:
        require_database_file(db)
        attach(con, db, alias)
    except SqlanonError as exc:
        con.close()
        raise _bad(str(exc)) from exc
    con.execute(f"SET search_path = '{alias}.main,memory.main'")


@contextlib.contextmanager
def _session(db: str, *, attach: str | None = None):
    """A connection for one command, closed when it ends; our errors become
    clean CLI errors (exit 2). With ``attach``, an in-memory connection reading
    ``db`` read-only under that alias (the export-like commands); else ``db``
    opened for writing."""
    from ..errors import SqlanonError

    con = _connect(None if attach else db)
    try:
        if attach:
            _attach(con, db, attach)
        yield con
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    finally:
        con.close()


def _target(db: str | None, project: str | None, project_file: str | None):
    """(DB, PROJECT, project file or None): from the arguments when both are
    given, else from the project file (``--project FILE``, or ``sqlanon.toml`` in
    the current directory)."""
    from ..errors import SqlanonError
    from ..projectfile import find

    if project_file is None and db is not None and project is not None:
        return db, project, None
    if db is not None or project is not None:
        raise _bad("give both DB and PROJECT, or neither and a project file (--project FILE, or sqlanon.toml "
                   "in the current directory)")
    try:
        cfg = find(project_file)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    if not cfg.database.is_file():
        raise _bad(f"database {str(cfg.database)!r} named by {str(cfg.path)!r} does not exist")
    return str(cfg.database), cfg.project, cfg


def _require_project(con, db: str, project: str) -> None:
    """A clean error naming the projects in ``db`` when ``project`` is none of them
    (no membership table and no ledger): a misspelt name, most often."""
    import difflib

    from ..project import Project
    from ..project import projects as project_names

    p = Project(project)
    if p.exists(con, "mem") or p.exists(con, "ledger"):
        return
    known = project_names(con)
    close = difflib.get_close_matches(project.lower(), known, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise _bad(f"no project {project!r} in {db} (no table {p.table('ledger')} or {p.table('mem')}): {hint}"
               + (f"its projects: {', '.join(known)}" if known else "it has no sqlanon projects"))


_PROJECT_FILE = click.option("--project", "project_file", type=click.Path(dir_okay=False),
                             help="Project file to read DB and PROJECT from (default: sqlanon.toml in the current "
                                  "directory, when they are not given).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sqlanon")
def main() -> None:
    """Privacy-preserving continuous data publishing on DuckDB."""


@main.command("macros")
@click.option("--dbt", "as_dbt", is_flag=True, help="As the dbt package's macro file (integrations/dbt, docs/dbt.md).")
def macros_cmd(as_dbt: bool) -> None:
    """Print every sqlanon macro as one SQL script (for `.read` in the DuckDB shell)."""
    from ..install import bundle, dbt_bundle

    click.echo(dbt_bundle() if as_dbt else bundle(), nl=not as_dbt)


# the commands, one module per group (they register themselves on ``main``)
from . import checks, projects, release  # noqa: E402,F401
