"""The ``sqlanon`` command: a thin click layer over the library."""

from __future__ import annotations

import click

from . import __version__
from .install import bundle


def _bad(message: str) -> click.ClickException:
    """A clean CLI error for bad input: the message, exit status 2 (1 is the
    audit's "attacks found")."""
    err = click.ClickException(message)
    err.exit_code = 2
    return err


def _open_error(db: str, exc: Exception) -> click.ClickException:
    """What went wrong opening or attaching database file ``db``, without a traceback."""
    text = str(exc)
    if "lock" in text.lower():
        why = "it is in use by another process (DuckDB lets one process write a database file); close it there"
    elif "not a valid DuckDB database" in text:
        why = "it is not a DuckDB database file"
    elif "No such file or directory" in text or "does not exist" in text:
        why = "the file or its directory does not exist"
    elif "ermission denied" in text or "ead-only file system" in text:
        why = "permission denied (open it where you may write, or copy it)"
    else:
        why = f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"
    return _bad(f"cannot open database {db!r}: {why}")


def _connect(db: str | None, *, read_only: bool = False):
    """sqlanon.connect with the file errors turned into clean CLI errors."""
    import duckdb

    from .install import connect

    try:
        return connect(db, read_only=read_only)
    except duckdb.Error as exc:
        raise _open_error(db, exc) from exc


def _attach(con, db: str, alias: str) -> None:
    """Attach ``db`` read-only as ``alias`` and read from it first."""
    import duckdb

    try:
        con.execute(f"ATTACH ? AS {alias} (READ_ONLY)", [db])
    except duckdb.Error as exc:
        con.close()
        raise _open_error(db, exc) from exc
    con.execute(f"SET search_path = '{alias}.main,memory.main'")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sqlanon")
def main() -> None:
    """Privacy-preserving continuous data publishing on DuckDB."""


@main.command("macros")
def macros_cmd() -> None:
    """Print every sqlanon macro as one SQL script (for `.read` in the DuckDB shell)."""
    click.echo(bundle())


@main.command("audit")
@click.argument("db", type=click.Path(exists=True, dir_okay=False))
@click.argument("project")
@click.option("--m", "m", type=int, required=True, help="Privacy parameter: m of m-invariance (l of l-diversity).")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="Also write the findings to this CSV file.")
def audit_cmd(db: str, project: str, m: int, csv_path: str | None) -> None:
    """Audit every release of PROJECT in database DB against an adversary who
    holds them all. Exit status 0 when safe, 1 when the audit finds attacks,
    2 on bad input."""
    import duckdb

    from .audit import audit
    from .errors import SqlanonError

    # macros live in an in-memory catalog; the audited database is attached read-only
    con = _connect(None)
    _attach(con, db, "sqlanon_audited")
    try:
        report = audit(con, project, m)
        click.echo(report.summary())
        if csv_path:
            try:
                report.to_csv(csv_path)
            except (duckdb.Error, OSError) as exc:
                raise _bad(f"cannot write the --csv file {csv_path!r} (does its folder exist, may you write "
                           "there?); the audit above is complete") from exc
            click.echo(f"wrote {report.n_disclosures} findings to {csv_path}: the file lists person ids with the "
                       "SA values the audit found disclosed - private data, keep it with the database and do not "
                       "publish it", err=True)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    finally:
        con.close()
    raise SystemExit(0 if report.verdict == "safe" else 1)


@main.command("release")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("project")
@click.option("--source", help="Source table (first release; later ones read the ledger).")
@click.option("--id", "id_col", help="Id column of the source.")
@click.option("--qi", help="Comma-separated quasi-identifier columns.")
@click.option("--sa", help="Sensitive attribute column.")
@click.option("--model", type=click.Choice(["m-invariance", "anatomy", "dynamic-anatomy"]),
              help="Release model (default m-invariance).")
@click.option("--m", "m", type=int, help="m of m-invariance.")
@click.option("--l", "l", type=int, help="l of the anatomy models.")
@click.option("--output", type=click.Choice(["anatomy", "generalized"]), help="Published form (default anatomy).")
@click.option("--seed", type=int, help="Seed of every ordering (default 0).")
@click.option("--templates", "templates_dir", type=click.Path(file_okay=False, exists=True),
              help="Folder of your own templates overriding sql/<pipeline>/ steps.")
def release_cmd(db, project, source, id_col, qi, sa, model, m, l, output, seed, templates_dir) -> None:
    """Make the next release of PROJECT from its source table in DB (m-invariant
    by default; --model anatomy / dynamic-anatomy with --l for seed 004's models)."""
    import duckdb

    from .errors import SqlanonError
    from .publisher import Publisher

    con = _connect(db)
    try:
        qi_list = [c.strip() for c in qi.split(",")] if qi else None
        name = f"sqlanon_{project}__ledger"
        exists = con.execute("SELECT count(*) FROM duckdb_tables() WHERE lower(table_name) = lower(?)", [name]).fetchall()[0][0]
        if exists:
            pub = Publisher.open(con, project, templates_dir=templates_dir, source=source, id=id_col, qi=qi_list,
                                 sa=sa, model=model, m=m, l=l, output=output, seed=seed)
        else:
            param = ("--m", m) if (model or "m-invariance") == "m-invariance" else ("--l", l if l is not None else m)
            missing = [o for o, v in (("--source", source), ("--id", id_col), ("--qi", qi), ("--sa", sa), param)
                       if v is None]
            if missing:
                raise SqlanonError(f"the first release of project {project!r} needs {', '.join(missing)}")
            pub = Publisher(con, project, source=source, id=id_col, qi=qi_list, sa=sa, model=model or "m-invariance",
                            m=m, l=l, output=output or "anatomy", seed=seed or 0, templates_dir=templates_dir)
        click.echo(pub.release().line())
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    except duckdb.Error as exc:  # not expected: the library maps what it knows
        raise _bad(f"release of project {project!r} failed ({type(exc).__name__}); nothing was written") from exc
    finally:
        con.close()


@main.command("status")
@click.argument("db", type=click.Path(exists=True, dir_okay=False))
@click.argument("project")
def status_cmd(db, project) -> None:
    """Print the release ledger of PROJECT in DB."""
    import duckdb

    from .errors import SqlanonError
    from .publisher import status

    try:
        con = duckdb.connect(db, read_only=True)
    except duckdb.Error as exc:
        raise _open_error(db, exc) from exc
    try:
        df = status(con, project)
        click.echo(df.to_string(index=False))
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    finally:
        con.close()


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
    import duckdb

    from .demo import run
    from .errors import SqlanonError

    try:
        run(db, releases=releases, m=m, seed=seed, echo=click.echo, force=force)
    except SqlanonError as exc:
        raise _bad(str(exc)) from exc
    except duckdb.Error as exc:
        raise _open_error(db, exc) from exc


if __name__ == "__main__":  # pragma: no cover
    main()


@main.command("check")
@click.argument("db", type=click.Path(exists=True, dir_okay=False))
@click.argument("table")
@click.option("--qi", required=True, help="Comma-separated quasi-identifier columns.")
@click.option("--sa", required=True, help="Sensitive attribute column.")
@click.option("--m", "m", type=int, default=None, help="Also check m-eligibility and m-uniqueness for this m.")
def check_cmd(db: str, table: str, qi: str, sa: str, m: int | None) -> None:
    """Print a static privacy check report for TABLE in database DB (opened read-only).
    Exit status 2 on bad input."""
    from . import checks
    from .errors import SqlanonError

    con = _connect(None)
    _attach(con, db, "sqlanon_checked")
    cols = [c.strip() for c in qi.split(",") if c.strip()]
    try:
        report = checks.profile(con, table, cols, sa)
        report["c_required_l2"] = checks.recursive_cl(con, table, cols, sa, 2)["c_required"]
        if m is not None:
            report.update({f"m_eligibility_{k}": v for k, v in checks.m_eligibility(con, table, sa, m).items()})
            report.update({f"m_uniqueness_{k}": v for k, v in checks.m_uniqueness(con, table, cols, sa, m).items()})
    except SqlanonError as exc:
        click.echo(f"error: {exc}", err=True)
        raise SystemExit(2)
    click.echo(f"check report: table {table!r}, QI {cols}, SA {sa!r}")
    for key, val in report.items():
        click.echo(f"  {key:32s} {val}")
    con.close()


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
    from .errors import SqlanonError
    from .static import anonymize

    hier = {}
    for item in hierarchy:
        col, sep, table = item.partition("=")
        if not sep or not col or not table:
            raise _bad(f"--hierarchy {item!r}: use COLUMN=TABLE")
        hier[col] = table
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


if __name__ == "__main__":
    main()
