"""The ``sqlanon`` command: a thin click layer over the library."""

from __future__ import annotations

import click

from . import __version__
from .install import bundle


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
    from .audit import audit
    from .errors import SqlanonError
    from .install import connect

    # macros live in an in-memory catalog; the audited database is attached read-only
    con = connect()
    con.execute("ATTACH ? AS sqlanon_audited (READ_ONLY)", [db])
    con.execute("SET search_path = 'sqlanon_audited.main,memory.main'")
    try:
        report = audit(con, project, m)
        click.echo(report.summary())
        if csv_path:
            report.to_csv(csv_path)
    except SqlanonError as exc:
        err = click.ClickException(str(exc))
        err.exit_code = 2  # 1 means "attacks found"
        raise err from exc
    finally:
        con.close()
    raise SystemExit(0 if report.verdict == "safe" else 1)


if __name__ == "__main__":  # pragma: no cover
    main()
