"""The commands over one table rather than a release project: ``check`` (a
static privacy check), ``data`` (a bundled data set) and ``anonymize`` (Mondrian)."""

from __future__ import annotations

import click

from . import EXIT_FINDINGS, EXIT_OK, _attach, _bad, _connect, _echo_json, _no_new_file, main


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
    from .. import checks
    from ..errors import SqlanonError

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
    from ..datasets import load_adult
    from ..engines import ERRORS, as_engine
    from ..errors import SqlanonError

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
    from ..errors import SqlanonError
    from ..static import anonymize

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
