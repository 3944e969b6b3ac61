"""The commands that make releases: ``release``, ``run`` (a project file), ``status``,
``init`` (a project file) and ``compile`` (a release as one SQL script)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import click

from ..models import MODELS  # light: DuckDB and pandas are imported by the commands that use them
from . import _require_project, _PROJECT_FILE, _bad, _connect, _echo_json, _release_errors, _target, main


_SKIP_HELP = ("Make no release when the source has not changed since the last one (same fingerprint); without "
              "it such a release is made, with a notice.")
_DRY_HELP = ("Show what the release would do (its counts, as `run` prints them) without writing: it is made in "
             "a temporary copy of the database file; DB stays byte-identical.")


def _taking(name: str) -> list[str]:
    """The models whose privacy parameter is ``name`` (the registry's order)."""
    return [n for n, spec in MODELS.items() if spec.parameter == name]


@main.command("release")
@click.argument("db", type=click.Path(exists=True))
@click.argument("project")
@click.option("--source", help="Source table (first release; later ones read the ledger).")
@click.option("--id", "id_col", help="Id column of the source.")
@click.option("--qi", help="Comma-separated quasi-identifier columns.")
@click.option("--sa", help="Sensitive attribute column.")
@click.option("--model", type=click.Choice(list(MODELS)),
              help=f"Release model (default {next(iter(MODELS))}): "
              + "; ".join(f"{name}: {spec.summary}, parameters {', '.join(p.name for p in spec.parameters)}"
                          for name, spec in MODELS.items()) + ".")
@click.option("--m", "m", type=int, help=f"The privacy parameter m ({', '.join(_taking('m'))}).")
@click.option("--l", "l", type=int, help=f"The privacy parameter l ({', '.join(_taking('l'))}).")
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
    """Make the next release of PROJECT from its source table in DB under a
    model (--model; its privacy parameter --m or --l, its others --param).
    With --engine spark, DB is the Spark warehouse folder."""
    from ..errors import SqlanonError
    from ..project import Project
    from ..publisher import Publisher

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
        spec = MODELS[model or next(iter(MODELS))]
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
                    hint = (f" (--l is the parameter of models {' and '.join(_taking('l'))}; model {spec.name!r} "
                            f"takes --{spec.parameter}: give --{spec.parameter} {l}, or --model "
                            f"{_taking('l')[-1]})")
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
    from ..errors import SqlanonError

    if not os.path.isdir(warehouse):
        raise SqlanonError(f"--engine spark: {warehouse!r} is not a folder; give the Spark warehouse folder "
                           "(an empty folder for a new one)")
    try:
        from ..spark import SparkEngine, session
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
    from ..errors import SqlanonError

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
    from ..install import SHELL_STORAGE_VERSION, file_storage_version

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
    from ..engines.duckdb import open_database
    from ..errors import SqlanonError
    from ..publisher import status

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

    from ..publisher import shares

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
    from ..errors import SqlanonError
    from ..projectfile import init

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
    from ..publisher import Publisher

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
    from ..compile import compile_release, shell_readable
    from ..engines import ERRORS
    from ..errors import SqlanonError
    from ..install import SHELL_STORAGE_VERSION

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
