"""The commands that read or manage a project's releases: ``audit``, ``report``,
``export``, ``sliced`` (seed 003's sliced form), ``migrate``, ``purge`` and ``demo``."""

from __future__ import annotations

import click

from . import (_require_project, EXIT_FINDINGS, EXIT_OK, _PROJECT_FILE, _attach, _bad, _connect, _echo_json, _no_new_file, _session, _target, main)


@main.command("audit")
@click.argument("db", required=False, type=click.Path(exists=True, dir_okay=False))
@click.argument("project", required=False)
@_PROJECT_FILE
@click.option("--m", "m", type=int, help="Privacy parameter (the model's m or l); default "
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
    from ..audit import audit, ledger_m
    from ..engines import ERRORS
    from ..errors import SqlanonError

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


def _audit_m(stored: int | None, given: int | None, what_if: bool, project: str) -> int:
    """The m to audit with: the ledger's; a different --m only with --what-if."""
    from ..errors import SqlanonError

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
    from ..export import export

    db, project, cfg = _target(db, project, project_file)
    if cfg is not None:
        to = to or (str(cfg.export_to) if cfg.export_to else None)
        fmt = fmt or cfg.export_format
    if to is None:
        raise _bad("give --to FOLDER (or `to` in the project file's [export] table)")
    fmt = fmt or "parquet"

    with _session(db, attach="sqlanon_exported") as con:
        files = export(con, project, to, format=fmt)
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
    from ..engines import ERRORS
    from ..slicing import sliced

    db, project, _ = _target(db, project, project_file)
    fmt = "parquet" if to.endswith(".parquet") else "csv"
    with _session(db, attach="sqlanon_exported") as con:
        df = sliced(con, project, release=release, columns=columns, generalize=not exact, seed=seed)
        con.register("sqlanon__sliced_out", df)
        try:
            con.execute(f"COPY (SELECT * FROM sqlanon__sliced_out ORDER BY group_id, \"row\") TO "
                        f"'{to.replace(chr(39), chr(39) * 2)}' (FORMAT {fmt}{', HEADER' if fmt == 'csv' else ''})")
        except ERRORS as exc:
            raise _bad(f"cannot write {to!r} ({type(exc).__name__}); may you write there?") from exc
    click.echo(f"wrote {to} ({len(df)} rows)")


@main.command("migrate")
@click.argument("project")
@click.option("--db", required=True, type=click.Path(exists=True, dir_okay=False), help="Database file.")
def migrate_cmd(project, db) -> None:
    """Bring PROJECT, written by an older sqlanon, to the current storage in one
    transaction: move the private tables it kept in the main schema
    (sqlanon_P_membership, sqlanon_P__ledger, ...) into schema sqlanon_private,
    and convert a membership stored per release into intervals of releases
    (docs/contracts.md)."""
    from ..project import migrate

    with _session(db) as con:
        done = migrate(con, project)
    moved = [x for x in done if not x.endswith("(intervals)")]
    said = []
    if moved:
        said.append(f"moved {len(moved)} private tables of project {project!r} into schema sqlanon_private")
    if len(moved) < len(done):
        said.append(f"converted the membership of project {project!r} to intervals of releases")
    click.echo("; ".join(said) if said else f"nothing to migrate: project {project!r} has no private tables in the "
               "main schema and its membership is stored as intervals")


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
    from ..project import purge

    warning = (f"copies of project {project!r}'s releases that were exported or copied out of {db!r} stay with "
               "whoever holds them: releasing the same persons in a new project lets them compare both")
    if not yes:
        click.confirm(f"purge project {project!r}? {warning}. Continue", abort=True, err=True)
    with _session(db) as con:
        done = purge(con, project)
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
    from ..demo import run
    from ..engines import ERRORS
    from ..errors import SqlanonError

    try:
        with _no_new_file(db):
            run(db, releases=releases, m=m, seed=seed, echo=click.echo, force=force)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    except ERRORS as exc:
        raise _bad(f"demo in {db!r} failed ({type(exc).__name__})") from exc


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
    from ..engines import ERRORS
    from ..errors import SqlanonError
    from ..report import build

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
