"""The ``sqlanon`` command: a thin click layer over the library.

Exit status, the same for every command: 0 ok, 1 findings (``audit``) or a
failed threshold (``check``), 2 bad input (a usage error, a file that cannot
be opened, a ``SqlanonError``). A command that fails leaves no new file behind.
Commands that print a report take ``--json``.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import click

from . import __version__
from .models import MODELS  # light: DuckDB and pandas are imported by the commands that use them


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
    from .engines import ERRORS
    from .errors import SqlanonError

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
    from .errors import SqlanonError
    from .install import connect

    try:
        return connect(db, read_only=read_only)
    except SqlanonError as exc:  # LockHeld, CannotOpen, or a CSV or Parquet file given as the database
        raise _bad(str(exc)) from exc


def _attach(con, db: str, alias: str) -> None:
    """Attach ``db`` read-only as ``alias`` and read from it first."""
    from .engines.duckdb import attach
    from .errors import SqlanonError
    from .install import require_database_file

    try:
        require_database_file(db)
        attach(con, db, alias)
    except SqlanonError as exc:
        con.close()
        raise _bad(str(exc)) from exc
    con.execute(f"SET search_path = '{alias}.main,memory.main'")


def _target(db: str | None, project: str | None, project_file: str | None):
    """(DB, PROJECT, project file or None): from the arguments when both are
    given, else from the project file (``--project FILE``, or ``sqlanon.toml`` in
    the current directory)."""
    from .errors import SqlanonError
    from .projectfile import find

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
    from .install import bundle, dbt_bundle

    click.echo(dbt_bundle() if as_dbt else bundle(), nl=not as_dbt)


@main.command("audit")
@click.argument("db", required=False, type=click.Path(exists=True, dir_okay=False))
@click.argument("project", required=False)
@_PROJECT_FILE
@click.option("--m", "m", type=int, help="Privacy parameter (m of m-invariance, l of the anatomy models); default "
              "and only allowed value: the one in the project's ledger. Needed for projects without a ledger.")
@click.option("--what-if", is_flag=True, help="Allow an --m that differs from the ledger's: audit as if the "
              "project had been published with that m.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="Also write the findings to this CSV file.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def audit_cmd(db: str | None, project: str | None, project_file: str | None, m: int | None, what_if: bool,
              csv_path: str | None, as_json: bool) -> None:
    """Audit every release of PROJECT in database DB against an adversary who
    holds them all. Exit status 0 when safe, 1 when the audit finds attacks,
    2 on bad input."""
    from .audit import audit, ledger_m
    from .engines import ERRORS
    from .errors import SqlanonError

    db, project, _ = _target(db, project, project_file)
    # macros live in an in-memory catalog; the audited database is attached read-only
    con = _connect(None)
    _attach(con, db, "sqlanon_audited")
    try:
        _require_project(con, db, project)
        m = _audit_m(ledger_m(con, project), m, what_if, project)
        report = audit(con, project, m)
        if as_json:
            _echo_json({"project": report.project, "m": report.m, "what_if": what_if, "releases": report.releases,
                        "verdict": report.verdict, "n_disclosures": report.n_disclosures, "counts": report.counts,
                        "comparison_kinds": report.kinds, "skipped": report.skipped})
        else:
            click.echo(report.summary())
        if csv_path:
            try:
                report.to_csv(csv_path)
            except (*ERRORS, OSError) as exc:
                raise _bad(f"cannot write the --csv file {csv_path!r} (does its folder exist, may you write "
                           "there?); the audit above is complete") from exc
            click.echo(f"wrote {report.n_disclosures} findings to {csv_path}: the file lists person ids with the "
                       "SA values the audit found disclosed - private data, keep it with the database and do not "
                       "publish it", err=True)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    finally:
        con.close()
    raise SystemExit(EXIT_OK if report.verdict == "safe" else EXIT_FINDINGS)


def _require_project(con, db: str, project: str) -> None:
    """A clean error naming the projects in ``db`` when ``project`` is none of them
    (no membership table and no ledger): a misspelt name, most often."""
    import difflib

    from .project import Project, projects

    p = Project(project)
    if p.exists(con, "mem") or p.exists(con, "ledger"):
        return
    known = projects(con)
    close = difflib.get_close_matches(project.lower(), known, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise _bad(f"no project {project!r} in {db} (no table {p.table('ledger')} or {p.table('mem')}): {hint}"
               + (f"its projects: {', '.join(known)}" if known else "it has no sqlanon projects"))


def _audit_m(stored: int | None, given: int | None, what_if: bool, project: str) -> int:
    """The m to audit with: the ledger's; a different --m only with --what-if."""
    from .errors import SqlanonError

    if stored is None:
        if given is None:
            raise SqlanonError(f"project {project!r} has no ledger (its releases were not made by sqlanon); "
                               "give the privacy parameter with --m")
        return given
    if given is not None and given != stored:
        if not what_if:
            raise SqlanonError(f"project {project!r} was published with m = {stored} (its ledger); --m {given} "
                               f"differs: drop --m, or add --what-if to audit as if m were {given}")
        click.echo(f"what-if: auditing with m = {given}; project {project!r} was published with m = {stored}",
                   err=True)
        return given
    return stored


_SKIP_HELP = ("Make no release when the source has not changed since the last one (same fingerprint); without "
              "it such a release is made, with a notice.")
_DRY_HELP = ("Show what the release would do (its counts, as `run` prints them) without writing: it is made in "
             "a temporary copy of the database file; DB stays byte-identical.")


@main.command("release")
@click.argument("db", type=click.Path(exists=True))
@click.argument("project")
@click.option("--source", help="Source table (first release; later ones read the ledger).")
@click.option("--id", "id_col", help="Id column of the source.")
@click.option("--qi", help="Comma-separated quasi-identifier columns.")
@click.option("--sa", help="Sensitive attribute column.")
@click.option("--model", type=click.Choice(list(MODELS)),
              help="Release model (default m-invariance): "
              + "; ".join(f"{name}: {spec.summary}, parameters {', '.join(p.name for p in spec.parameters)}"
                          for name, spec in MODELS.items()) + ".")
@click.option("--m", "m", type=int, help="m of m-invariance (the privacy parameter m of any model that takes it).")
@click.option("--l", "l", type=int, help="l of the anatomy models.")
@click.option("--param", "extra", multiple=True, metavar="NAME=VALUE",
              help="Another parameter of the model (first release), e.g. --param eligibility=random.")
@click.option("--output", type=click.Choice(["anatomy", "generalized"]), help="Published form (default anatomy).")
@click.option("--seed", type=int, help="Seed of every ordering (default 0).")
@click.option("--templates", "templates_dir", type=click.Path(file_okay=False, exists=True),
              help="Folder of your own templates overriding sql/<pipeline>/ steps.")
@click.option("--json", "as_json", is_flag=True, help="Print the release result as JSON.")
@click.option("--engine", type=click.Choice(["duckdb", "spark"]), default="duckdb", show_default=True,
              help="Engine: duckdb (DB is a database file) or spark (DB is a warehouse folder; pip install "
              "sqlanon[spark]; docs/spark.md).")
@click.option("--master", default="local[2]", show_default=True, help="Spark master URL (--engine spark).")
@click.option("--source-file", type=click.Path(exists=True, dir_okay=False),
              help="--engine spark: a Parquet or CSV file (with a header) loaded into the warehouse as table "
              "--source first (the source as it is now).")
@click.option("--skip-unchanged", is_flag=True, help=_SKIP_HELP)
@click.option("--dry-run", is_flag=True, help=_DRY_HELP)
@click.option("--allow-shared", "allow_shared", multiple=True, metavar="PROJECT",
              help="Release even though the source holds persons that PROJECT (another project of this database, "
              "or a dropped one) released: an adversary holding both projects' releases may narrow them "
              "(docs/threat_model.md); recorded in the ledger. Repeat for several projects.")
def release_cmd(db, project, source, id_col, qi, sa, model, m, l, extra, output, seed, templates_dir,
                as_json, engine, master, source_file, skip_unchanged, dry_run, allow_shared) -> None:
    """Make the next release of PROJECT from its source table in DB (m-invariant
    by default; --model anatomy / dynamic-anatomy with --l for seed 004's models).
    With --engine spark, DB is the Spark warehouse folder."""
    from .errors import SqlanonError
    from .project import Project
    from .publisher import Publisher

    if engine == "spark":
        if dry_run:
            raise _bad("--dry-run is for --engine duckdb (it releases into a copy of the database file)")
        try:
            con, copy = _spark(db, master, source, source_file), contextlib.nullcontext()
        except SqlanonError as exc:
            raise _bad(str(exc)) from exc
    elif source_file:
        raise _bad("--source-file is for --engine spark; with DuckDB, create the source table in the file")
    else:
        con, copy = _open_for_release(db, dry_run)
    with copy, _release_errors(con, project):  # the connection closes before its copy goes
        if engine == "duckdb" and not dry_run:
            _note_storage(con, db)
        qi_list = [c.strip() for c in qi.split(",")] if qi else None
        spec = MODELS[model or "m-invariance"]
        params = {"m": m, "l": l, **_model_params(spec, extra)}
        if Project(project).exists(con, "ledger"):
            pub = Publisher.open(con, project, templates_dir=templates_dir, source=source, id=id_col, qi=qi_list,
                                 sa=sa, model=model, output=output, seed=seed, allow_shared=allow_shared, **params)
        else:
            given = [v for n in (spec.parameter, *spec.parameters[0].aliases) if (v := params.get(n)) is not None]
            param = (f"--{spec.parameter}", given[0] if given else None)
            missing = [o for o, v in (("--source", source), ("--id", id_col), ("--qi", qi), ("--sa", sa), param)
                       if v is None]
            if missing:
                hint = ""
                if param[1] is None and l is not None and spec.parameter != "l":
                    hint = (f" (--l is the parameter of the anatomy models; model {spec.name!r} takes "
                            f"--{spec.parameter}: give --{spec.parameter} {l}, or --model dynamic-anatomy)")
                raise SqlanonError(f"the first release of project {project!r} needs {', '.join(missing)}{hint}")
            pub = Publisher(con, project, source=source, id=id_col, qi=qi_list, sa=sa, model=spec.name,
                            output=output or "anatomy", seed=seed or 0, templates_dir=templates_dir,
                            allow_shared=allow_shared, **params)
        _release(pub, db, skip_unchanged, dry_run, as_json)


def _open_for_release(db: str, dry_run: bool):
    """(connection, context): ``db`` itself, or for a dry run a copy of it (and
    its WAL) in a temporary folder that the context removes."""
    if not dry_run:
        return _connect(db), contextlib.nullcontext()
    import shutil
    import tempfile

    folder = tempfile.TemporaryDirectory(prefix="sqlanon-dry-run-")
    target = Path(folder.name) / Path(db).name
    try:
        shutil.copyfile(db, target)
        if Path(db + ".wal").exists():
            shutil.copyfile(db + ".wal", str(target) + ".wal")
    except OSError as exc:
        folder.cleanup()
        raise _bad(f"--dry-run: cannot copy {db!r} to a temporary folder ({exc.strerror or exc})") from exc
    try:
        return _connect(str(target)), folder
    except BaseException:
        folder.cleanup()
        raise


def _release(pub, db: str, skip_unchanged: bool, dry_run: bool, as_json: bool) -> None:
    """Make (or, ``dry_run``, try) the next release of ``pub`` and say what happened."""
    import dataclasses

    last = pub.last_release()
    unchanged = pub.source_unchanged()
    same = (f"the source {pub.source!r} of project {pub.project!r} has not changed since release {last} "
            "(same fingerprint)")
    if unchanged and skip_unchanged:
        if as_json:
            _echo_json({"project": pub.project, "release": None, "skipped": True, "last_release": last,
                        "source_unchanged": True, "dry_run": dry_run})
        else:
            click.echo(f"no release: {same}; --skip-unchanged")
        return
    result = pub.release()
    if as_json:
        _echo_json({"project": pub.project, **dataclasses.asdict(result), "source_unchanged": unchanged,
                    "dry_run": dry_run})
    else:
        click.echo(("dry run, nothing written: " if dry_run else "") + result.line())
    if unchanged:
        click.echo(f"notice: {same}; release {result.release} publishes it again (--skip-unchanged makes no "
                   "release then)", err=True)
    if dry_run:
        click.echo(f"dry run: release {result.release} was made in a temporary copy of {db} and dropped; {db} is "
                   "unchanged", err=True)


def _spark(warehouse: str, master: str, source: str | None, source_file: str | None):
    """The Spark engine on ``warehouse``, with ``source_file`` loaded as table ``source``."""
    from .errors import SqlanonError

    if not os.path.isdir(warehouse):
        raise SqlanonError(f"--engine spark: {warehouse!r} is not a folder; give the Spark warehouse folder "
                           "(an empty folder for a new one)")
    try:
        from .spark import SparkEngine, session
    except ImportError as exc:
        raise SqlanonError("--engine spark needs pyspark: pip install 'sqlanon[spark]' (and Java 17)") from exc
    eng = SparkEngine(warehouse, session(master))
    if source_file:
        if not source:
            raise SqlanonError("--source-file needs --source (the table name it is loaded as)")
        reader = eng.spark.read
        df = (reader.parquet(source_file) if source_file.endswith(".parquet")
              else reader.option("header", True).option("inferSchema", True).csv(source_file))
        eng.load(source, df)
    return eng


def _model_params(spec, extra) -> dict:
    """``--param NAME=VALUE`` options as the model's parameters (typed by its declaration)."""
    from .errors import SqlanonError

    out = {}
    for item in extra:
        name, eq, text = item.partition("=")
        p = next((p for p in spec.parameters if name.strip() in (p.name, *p.aliases)), None)
        if not eq or p is None:
            raise SqlanonError(f"--param {item!r}: give NAME=VALUE with a parameter of model {spec.name!r} "
                               f"({', '.join(p.name for p in spec.parameters)})")
        try:
            out[name.strip()] = p.type(text.strip())
        except ValueError as exc:
            raise SqlanonError(f"--param {item!r}: {text.strip()!r} is not a valid value of {p.name}") from exc
    return out


def _note_storage(con, db: str) -> None:
    """Tell on stderr when DB's storage version is one the DuckDB 1.5 shell cannot open."""
    from .install import SHELL_STORAGE_VERSION, file_storage_version

    version = file_storage_version(con) or ""
    if version.startswith("v2"):
        click.echo(f"note: {db} has DuckDB storage version {version}, which the DuckDB shell 1.5 (duckdb-cli) "
                   f"cannot open; sqlanon creates files with {SHELL_STORAGE_VERSION} - to copy this one, "
                   "see docs/shell.md", err=True)


@main.command("status")
@click.argument("db", required=False, type=click.Path(exists=True, dir_okay=False))
@click.argument("project", required=False)
@_PROJECT_FILE
@click.option("--json", "as_json", is_flag=True, help="Print the ledger as JSON (one object per release, every "
              "column, exact values).")
def status_cmd(db, project, project_file, as_json) -> None:
    """Print the release ledger of PROJECT in DB."""
    from .engines.duckdb import open_database
    from .errors import SqlanonError
    from .publisher import status

    db, project, _ = _target(db, project, project_file)
    try:
        con = open_database(db, read_only=True)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    try:
        _require_project(con, db, project)
        df = status(con, project)
        if as_json:
            _echo_json(df.to_dict(orient="records"))
        else:
            click.echo(_status_text(df))
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    finally:
        con.close()


def _status_text(df) -> str:
    """The ledger for people: times to the second, NCP in % with one decimal,
    seconds with two, the fake and stale shares of every release (issue 32),
    no fingerprint (a 19-digit number: in --json)."""
    import pandas as pd

    from .publisher import shares

    out = shares(df).drop(columns=[c for c in ("fingerprint",) if c in df.columns])
    fmt = {"made_at": lambda t: t.strftime("%Y-%m-%d %H:%M:%S"), "ncp": lambda v: f"{v:.1f}%",
           "seconds": lambda v: f"{v:.2f} s", "fake_share": lambda v: f"{v:.1%}", "stale_share": lambda v: f"{v:.1%}"}
    for col in out.columns:
        f = fmt.get(col)
        out[col] = ["-" if pd.isna(v) else f(v) if f else v for v in out[col].astype(object)]
    return out.to_string(index=False)


@main.command("init")
@click.argument("path", default="sqlanon.toml", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def init_cmd(path, force) -> None:
    """Write a commented example project file (default sqlanon.toml): edit it,
    then `sqlanon run` makes the next release from it."""
    from .errors import SqlanonError
    from .projectfile import init

    try:
        init(path, force=force)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    click.echo(f"wrote {path}: edit the database, source and columns, then `sqlanon run`")


@main.command("run")
@_PROJECT_FILE
@click.option("--json", "as_json", is_flag=True, help="Print the release result as JSON.")
@click.option("--skip-unchanged", is_flag=True, help=_SKIP_HELP)
@click.option("--dry-run", is_flag=True, help=_DRY_HELP)
def run_cmd(project_file, as_json, skip_unchanged, dry_run) -> None:
    """Make the next release of the project that a project file describes
    (--project FILE, or sqlanon.toml in the current directory)."""
    from .publisher import Publisher

    db, project, cfg = _target(None, None, project_file)
    con, copy = _open_for_release(db, dry_run)
    with copy, _release_errors(con, project):  # the connection closes before its copy goes
        if not dry_run:
            _note_storage(con, db)
        _release(Publisher(con, project, **cfg.publisher_arguments()), db, skip_unchanged, dry_run, as_json)


@main.command("compile")
@click.argument("db", required=False, type=click.Path(exists=True, dir_okay=False))
@click.argument("project", required=False)
@_PROJECT_FILE
@click.option("--out", "out", type=click.Path(dir_okay=False), help="SQL file to write (default: standard output).")
def compile_cmd(db, project, project_file, out) -> None:
    """Write the next release of PROJECT as one SQL script for the DuckDB shell
    (`duckdb DB < release.sql` makes the same tables as `sqlanon run`). The
    release is made and rolled back to record it: nothing is written to DB.
    An existing project's parameters come from its ledger, a first release's
    from the project file."""
    from .compile import compile_release, shell_readable
    from .engines import ERRORS
    from .errors import SqlanonError
    from .install import SHELL_STORAGE_VERSION

    db, project, cfg = _target(db, project, project_file)
    try:
        version = shell_readable(db)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    if version:
        raise _bad(f"{db} has DuckDB storage version {version}, which the DuckDB shell 1.5 (duckdb-cli) cannot open, "
                   f"so a compiled script could not run on it: copy it into a file of storage version "
                   f"{SHELL_STORAGE_VERSION} (docs/shell.md, \"A file keeps the version it was created with\") and "
                   "compile from the copy, or make the release with `sqlanon run`; nothing was written")
    con = _connect(db)
    try:
        sql = compile_release(con, project, **(cfg.publisher_arguments() if cfg else {}))
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    except ERRORS as exc:
        raise _bad(f"compile of project {project!r} failed ({type(exc).__name__}); nothing was written") from exc
    finally:
        con.close()
    if out is None:
        click.echo(sql, nl=False)
        return
    try:
        Path(out).write_text(sql, encoding="utf-8")
    except OSError as exc:
        raise _bad(f"cannot write {out!r} ({exc.strerror or exc})") from exc
    click.echo(f"wrote {out}: the next release of project {project!r}; run it with: duckdb {db} < {out}", err=True)


@main.command("export")
@click.argument("project", required=False)
@click.option("--db", type=click.Path(exists=True, dir_okay=False), help="Database file (read-only).")
@click.option("--to", "to", type=click.Path(file_okay=False),
              help="Folder to write the files to (default: the project file's [export] to).")
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv"]),
              help="File format (default: the project file's, else parquet).")
@_PROJECT_FILE
def export_cmd(project, db, to, fmt, project_file) -> None:
    """Write the published tables of PROJECT (qit, st, published - never the
    private membership or state) as files, each in an order of its own public
    columns."""
    from .errors import SqlanonError
    from .export import export

    db, project, cfg = _target(db, project, project_file)
    if cfg is not None:
        to = to or (str(cfg.export_to) if cfg.export_to else None)
        fmt = fmt or cfg.export_format
    if to is None:
        raise _bad("give --to FOLDER (or `to` in the project file's [export] table)")
    fmt = fmt or "parquet"

    con = _connect(None)
    _attach(con, db, "sqlanon_exported")
    try:
        files = export(con, project, to, format=fmt)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    finally:
        con.close()
    for path, n in files:
        click.echo(f"wrote {path} ({n} rows)")


@main.command("sliced")
@click.argument("project", required=False)
@click.option("--db", type=click.Path(exists=True, dir_okay=False), help="Database file (read-only).")
@click.option("--release", type=int, help="Release number (default: the last).")
@click.option("--columns", type=click.IntRange(1), default=2, show_default=True,
              help="QI column groups, formed by correlation (phi^2).")
@click.option("--exact", is_flag=True, help="Keep exact values in the cells (default: generalized to the bucket).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the in-bucket permutations.")
@click.option("--to", "to", type=click.Path(dir_okay=False), required=True, help="File to write (.csv or .parquet).")
@_PROJECT_FILE
def sliced_cmd(project, db, release, columns, exact, seed, to, project_file) -> None:
    """Write a release of PROJECT in seed 003's sliced form (column groups of
    correlated QI permuted inside each bucket, cells generalized), computed
    from its published tables only."""
    from .engines import ERRORS
    from .errors import SqlanonError
    from .slicing import sliced

    db, project, _ = _target(db, project, project_file)
    fmt = "parquet" if to.endswith(".parquet") else "csv"
    con = _connect(None)
    _attach(con, db, "sqlanon_exported")
    try:
        df = sliced(con, project, release=release, columns=columns, generalize=not exact, seed=seed)
        con.register("sqlanon__sliced_out", df)
        con.execute(f"COPY (SELECT * FROM sqlanon__sliced_out ORDER BY group_id, \"row\") TO "
                    f"'{to.replace(chr(39), chr(39) * 2)}' (FORMAT {fmt}{', HEADER' if fmt == 'csv' else ''})")
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    except ERRORS as exc:
        raise _bad(f"cannot write {to!r} ({type(exc).__name__}); may you write there?") from exc
    finally:
        con.close()
    click.echo(f"wrote {to} ({len(df)} rows)")


@main.command("migrate")
@click.argument("project")
@click.option("--db", required=True, type=click.Path(exists=True, dir_okay=False), help="Database file.")
def migrate_cmd(project, db) -> None:
    """Move the private tables of PROJECT that an older sqlanon kept in the main
    schema (sqlanon_P_membership, sqlanon_P__ledger, ...) into schema
    sqlanon_private, in one transaction (docs/contracts.md)."""
    from .errors import SqlanonError
    from .project import migrate

    con = _connect(db)
    try:
        moved = migrate(con, project)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    finally:
        con.close()
    click.echo(f"moved {len(moved)} private tables of project {project!r} into schema sqlanon_private"
               if moved else f"nothing to migrate: project {project!r} has no private tables in the main schema")


@main.command("purge")
@click.argument("project")
@click.option("--db", required=True, type=click.Path(exists=True, dir_okay=False), help="Database file.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def purge_cmd(project, db, yes) -> None:
    """Forget PROJECT for good: drop its tables (published and private) and the
    database's record of the persons it released, which releases of other
    projects over the same persons are checked against (docs/threat_model.md,
    "Projects that share persons"). Copies of its releases exported or copied
    out of the database are not reached."""
    from .errors import SqlanonError
    from .project import purge

    warning = (f"copies of project {project!r}'s releases that were exported or copied out of {db!r} stay with "
               "whoever holds them: releasing the same persons in a new project lets them compare both")
    if not yes:
        click.confirm(f"purge project {project!r}? {warning}. Continue", abort=True, err=True)
    con = _connect(db)
    try:
        done = purge(con, project)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    finally:
        con.close()
    click.echo(f"purged project {project!r}: dropped {len(done['tables'])} tables, forgot {done['persons']} "
               f"recorded persons; {warning}")


@main.command("demo")
@click.option("--db", default="sqlanon_demo.duckdb", show_default=True, type=click.Path(dir_okay=False),
              help="Database file (an earlier demo's is rerun; one holding other tables only with --force).")
@click.option("--force", is_flag=True, help="Use a --db file that holds other tables: the demo replaces only its "
              "own (adult_pool, adult_now, project adult) and keeps every other table.")
@click.option("--releases", default=6, show_default=True, type=click.IntRange(2, 50))
@click.option("--m", "m", default=5, show_default=True, type=int)
@click.option("--seed", default=1, show_default=True, type=int)
def demo_cmd(db, releases, m, seed, force) -> None:
    """The main job: m-invariant releases of the bundled Adult data with inserts,
    deletes, updates and re-inserts, each audited against all earlier ones."""
    from .demo import run
    from .engines import ERRORS
    from .errors import SqlanonError

    try:
        with _no_new_file(db):
            run(db, releases=releases, m=m, seed=seed, echo=click.echo, force=force)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    except ERRORS as exc:
        raise _bad(f"demo in {db!r} failed ({type(exc).__name__})") from exc


@main.command("check")
@click.argument("db", type=click.Path(exists=True, dir_okay=False))
@click.argument("table")
@click.option("--qi", required=True, help="Comma-separated quasi-identifier columns.")
@click.option("--sa", required=True, help="Sensitive attribute column.")
@click.option("--k", "k", type=click.IntRange(min=1), default=None,
              help="Threshold: fail unless every QI group has at least k rows.")
@click.option("--l", "l", type=click.IntRange(min=1), default=None,
              help="Threshold: fail unless every QI group has at least l distinct SA values.")
@click.option("--m", "m", type=int, default=None,
              help="Threshold: fail unless every QI group is m-unique (at least m rows, all SA values distinct: "
                   "the property of an m-invariant release); m-eligibility (could the table be published with "
                   "this m) is reported too.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def check_cmd(db: str, table: str, qi: str, sa: str, k: int | None, l: int | None, m: int | None,
              as_json: bool) -> None:
    """Print a static privacy check report for TABLE in database DB (opened read-only).
    With --k / --l / --m: exit status 1 when the table fails a threshold, 0 when
    it passes them all; 2 on bad input."""
    from . import checks
    from .errors import SqlanonError

    con = _connect(None)
    _attach(con, db, "sqlanon_checked")
    cols = [c.strip() for c in qi.split(",") if c.strip()]
    try:
        report = checks.profile(con, table, cols, sa)
        report["c_required_l2"] = checks.recursive_cl(con, table, cols, sa, 2)["c_required"]
        # re-identification risk (prosecutor model, docs/static.md "Risk"): records at risk above 0.2
        report.update(checks.reidentification_risk(con, table, cols))
        if m is not None:
            report.update({f"m_eligibility_{key}": v for key, v in checks.m_eligibility(con, table, sa, m).items()})
            report.update({f"m_uniqueness_{key}": v for key, v in checks.m_uniqueness(con, table, cols, sa, m).items()})
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    finally:
        con.close()
    thresholds = {name: v for name, v in (("k", k), ("l", l), ("m", m)) if v is not None}
    failed = _failed_thresholds(report, k, l, m)
    verdict = ("fail" if failed else "pass") if thresholds else None
    if as_json:
        _echo_json({"table": table, "qi": cols, "sa": sa, "report": report, "thresholds": thresholds,
                    "failed": failed, "verdict": verdict})
    else:
        click.echo(f"check report: table {table!r}, QI {cols}, SA {sa!r} (exact values: --json)")
        for key, val in report.items():
            click.echo(f"  {key:32s} {_human(key, val)}")
        if verdict is not None:
            click.echo(f"verdict: {verdict}" + (" - " + "; ".join(failed) if failed else ""))
    raise SystemExit(EXIT_FINDINGS if failed else EXIT_OK)


#: check report keys that are shares of rows (printed as %)
_SHARES = {"alpha", "prosecutor_records_at_risk", "prosecutor_highest_risk", "prosecutor_average_risk"}
#: why a check report value is None
_NONE = {"c_required_l2": "n/a (a group has fewer than 2 SA values)"}


def _human(key: str, value) -> str:
    """A check report value for people: 32,561; 0.05%; 1.00; yes/no; n/a with the reason."""
    if value is None:
        return _NONE.get(key, "n/a (empty table)")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if key in _SHARES:
            return f"{100 * value:.2f}%" if 100 * value >= 0.01 or value == 0 else f"{100 * value:.1g}%"
        return f"{value:,.2f}"
    return str(value)


def _failed_thresholds(report: dict, k: int | None, l: int | None, m: int | None) -> list[str]:
    """The thresholds ``report`` (of a non-empty table) does not meet, as text."""
    failed = []
    if k is not None and (report["k"] or 0) < k:
        failed.append(f"k = {report['k']} < {k}")
    if l is not None and (report["distinct_l"] or 0) < l:
        failed.append(f"distinct l = {report['distinct_l']} < {l}")
    if m is not None and not report["m_uniqueness_m_unique"]:
        failed.append(f"not {m}-unique: {report['m_uniqueness_violating_groups']} groups violate it")
    return failed


@main.command("data")
@click.argument("name", type=click.Choice(["adult"]))
@click.option("--to", "db", required=True, type=click.Path(dir_okay=False),
              help="Database file to load into (created if missing, readable by the DuckDB shell).")
@click.option("--table", default="adult", show_default=True, help="Table to create.")
@click.option("--part", type=click.Choice(["data", "test", "both"]), default="data", show_default=True,
              help="adult.data (32,561 rows), adult.test (16,281) or both.")
@click.option("--complete", is_flag=True, help="Keep only rows without a missing value.")
@click.option("--replace", is_flag=True, help="Replace the table if it exists.")
def data_cmd(name, db, table, part, complete, replace) -> None:
    """Load a bundled data set into a table of a database file, so that SQL
    examples run in a bare DuckDB shell: `sqlanon data adult --to my.duckdb`
    creates table adult (with an id column; UCI Adult, CC BY 4.0)."""
    from .datasets import load_adult
    from .engines import ERRORS, as_engine
    from .errors import SqlanonError

    with _no_new_file(db):
        con = _connect(db)
        try:
            exists = table.lower() in {n.lower() for n in as_engine(con).relations(current_database=True)}
            if exists and not replace:
                raise SqlanonError(f"table {table!r} already exists in {db!r}: pass --replace to overwrite it, "
                                   "or choose another --table")
            n = load_adult(con, table, part=part, complete=complete, replace=replace)
        except SqlanonError as exc:
            raise _bad(str(exc)) from exc
        except ERRORS as exc:
            raise _bad(f"cannot load {name} into table {table!r} of {db!r} ({type(exc).__name__}: "
                       f"{str(exc).splitlines()[0]}); nothing was written") from exc
        finally:
            con.close()
    click.echo(f"loaded {n} rows of Adult ({part}{', complete rows' if complete else ''}) into table {table!r} of {db}")


@main.command("anonymize")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("source")
@click.option("--qi", required=True, help="Comma-separated quasi-identifier columns.")
@click.option("--sa", help="Sensitive attribute column (needed with --l; copied to the output).")
@click.option("--k", "k", type=int, required=True, help="k of k-anonymity.")
@click.option("--l", "l", type=int, help="l-diversity, enforced at every cut.")
@click.option("--diversity", type=click.Choice(["distinct", "entropy", "recursive"]), default="distinct",
              show_default=True, help="Which l-diversity (recursive needs --c).")
@click.option("--c", "c", type=float, help="c of recursive (c, l)-diversity.")
@click.option("--t", "t", type=float, help="t-closeness (EMD, equal ground distance), enforced at every cut.")
@click.option("--relaxed", is_flag=True, help="Relaxed Mondrian (cuts through runs of equal values).")
@click.option("--hierarchy", "hierarchy", multiple=True, metavar="COL=TABLE",
              help="ARX-layout hierarchy table for a categorical QI (repeatable).")
@click.option("--output", help="Output table (default <source>_anonymized).")
def anonymize_cmd(db, source, qi, sa, k, l, diversity, c, t, relaxed, hierarchy, output) -> None:
    """Publish a Mondrian k-anonymous (l-diverse) generalization of SOURCE in DB."""
    hier = {}
    for item in hierarchy:
        col, sep, table = item.partition("=")
        if not sep or not col or not table:
            raise _bad(f"--hierarchy {item!r}: use COLUMN=TABLE")
        hier[col] = table
    with _no_new_file(db):
        _anonymize(db, source, qi, sa, k, l, t, diversity, c, relaxed, hier, output)


def _anonymize(db, source, qi, sa, k, l, t, diversity, c, relaxed, hier, output) -> None:
    from .errors import SqlanonError
    from .static import anonymize

    con = _connect(db)
    try:
        r = anonymize(con, source, qi=[x.strip() for x in qi.split(",") if x.strip()], sa=sa, k=k, l=l, t=t,
                      diversity=diversity, c=c, strict=not relaxed, hierarchies=hier, output=output)
        click.echo(f"{r.table}: {r.rows} rows, {r.classes} classes, k = {r.k}"
                   + (f", distinct l = {r.distinct_l}, entropy l = {r.entropy_l:.2f}, t = {r.t:.3f}"
                      if r.distinct_l is not None else "")
                   + f", NCP {r.ncp:.2f}%, discernibility {r.discernibility}, "
                   f"C_avg {r.avg_class_size:.2f}, {r.seconds:.2f} s")
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    finally:
        con.close()


@main.command("report")
@click.argument("db", required=False, type=click.Path(exists=True, dir_okay=False))
@click.argument("project", required=False)
@_PROJECT_FILE
@click.option("--out", "out", type=click.Path(dir_okay=False),
              help="HTML file to write: one self-contained file (ledger, checks, audit, plots as PNG).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (without the plots).")
@click.option("--no-plots", is_flag=True, help="Leave the plots out (they need matplotlib: sqlanon[plot]).")
def report_cmd(db: str | None, project: str | None, project_file: str | None, out: str | None, as_json: bool,
               no_plots: bool) -> None:
    """Write a report of PROJECT in DB (opened read-only): its ledger, the checks
    of its last release, the audit verdict and findings per check (m from the
    ledger) and the plots. Exit status 0 when the audit is safe, 1 when it finds
    attacks (the report is written either way), 2 on bad input."""
    from .engines import ERRORS
    from .errors import SqlanonError
    from .report import build

    if out is None and not as_json:
        raise _bad("give --out FILE.html and/or --json")
    db, project, _ = _target(db, project, project_file)
    con = _connect(None)
    _attach(con, db, "sqlanon_reported")
    try:
        _require_project(con, db, project)
        rep = build(con, project, plots=out is not None and not no_plots)
        verdict = rep.audit.verdict
        if out is not None:
            try:
                rep.write(out)  # a failure leaves no partial file
            except OSError as exc:
                raise _bad(f"cannot write the report to {out!r} ({exc.strerror or exc}); does its folder exist, "
                           "may you write there?") from exc
        if as_json:
            _echo_json(rep.to_dict())
        if out is not None:
            click.echo(f"wrote {out}: project {project!r}, {len(rep.ledger)} releases, {rep.parameter} = {rep.m}, "
                       f"audit verdict {verdict}" + (f" ({rep.plot_note})" if rep.plot_note else ""), err=as_json)
        rep.audit.close()
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    except ERRORS as exc:
        raise _bad(f"report of project {project!r} failed ({type(exc).__name__}: {str(exc).splitlines()[0]})") \
            from exc
    finally:
        con.close()
    raise SystemExit(EXIT_OK if verdict == "safe" else EXIT_FINDINGS)


if __name__ == "__main__":  # pragma: no cover
    main()
