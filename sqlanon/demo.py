"""``sqlanon demo``: the main job on the bundled UCI Adult data (CC BY 4.0).

Builds a DuckDB file, drives a dynamic source through several releases with
inserts, deletes, updates and re-inserts (``sqlanon.histories.snapshot``'s seeded
history over Adult's complete rows), publishes each release with
:class:`sqlanon.Publisher` and audits the whole history after every release.

The run is deterministic (seeded), so README.md shows its output: ``python -m
sqlanon.demo --readme`` runs the demo with its defaults in a temporary folder
and rewrites the output block between ``<!-- BEGIN demo -->`` and
``<!-- END demo -->`` (tests/test_readme_drift.py fails when they differ,
timings aside).
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

from .audit import audit
from .datasets import load_adult
from .engines import as_engine
from .errors import SqlanonError
from .ident import quote
from .install import connect
from .histories import snapshot
from .project import PRIVATE_SCHEMA, SHARED, Project, purge
from .publisher import Publisher

QI = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]
SA = "occupation"


POOL, NOW, PROJECT = "adult_pool", "adult_now", "adult"


def _publisher(con, m: int, seed: int, force: bool = False) -> Publisher:
    # next to the user's projects (--force), the demo's ids are Adult's row
    # numbers, not the user's persons: a shared id is not a shared person, so
    # the shared-persons check is overridden (and the ledger records it)
    return Publisher(con, PROJECT, source=NOW, id="id", qi=QI, sa=SA, m=m, output="generalized", seed=seed,
                     allow_shared=True if force else ())


def run(db: str | Path = "sqlanon_demo.duckdb", *, releases: int = 6, m: int = 5, seed: int = 1,
        echo=print, force: bool = False) -> list:
    """Run the demo into database file ``db``; returns the results. The demo
    replaces only its own tables (adult_pool, adult_now and project adult's
    tables), so an earlier demo's file is simply rerun; a file that holds
    anything else is refused unless ``force``, and then every other table in it
    stays as it is."""
    db = Path(db)
    con = connect(db)
    try:
        p = Project(PROJECT)
        # (schema, name) of every table the demo owns: the project's private ones are in sqlanon_private
        # (and the database's record of shared persons: sqlanon.project.SHARED)
        mine = {f"{s or 'main'}.{n}".lower()
                for s, n in [(None, POOL), (None, NOW), *map(p.place, p.tables()),
                             *((PRIVATE_SCHEMA, t) for t in SHARED.values())]}
        own = [quote(POOL), quote(NOW)]
        others = sum(f"{s}.{n}".lower() not in mine for s, n in as_engine(con).schema_relations())
        if others and not force:
            raise SqlanonError(f"database file {str(db)!r} holds {others} tables or views that are not the demo's; "
                               f"sqlanon demo replaces only its own ({POOL}, {NOW} and project {PROJECT!r}'s "
                               "sqlanon_adult_* tables): pass --force to run it next to yours, or choose another --db")
        with as_engine(con).transaction() as eng:
            for t in own:
                eng.execute(f"DROP TABLE IF EXISTS {t}")
        with contextlib.suppress(SqlanonError):  # an earlier demo's project: its tables and recorded persons
            purge(con, PROJECT)
        load_adult(con, POOL, part="both", complete=True)
        echo(f"sqlanon demo: {db} | Adult (adult.data + adult.test, complete rows) | QI {', '.join(QI)} | "
             f"SA {SA} | m = {m} | {releases} releases")
        results = []
        pub = None
        for t in range(1, releases + 1):
            snapshot(con, POOL, NOW, t, sa=SA, n_releases=releases, seed=seed)
            if pub is None:
                pub = _publisher(con, m, seed, force=bool(others))
            r = pub.release()
            report = audit(con, PROJECT, m)
            verdict = report.verdict
            report.close()
            echo(f"{r.line()} | audit: {verdict}")  # the release line's words (ReleaseResult.line)
            results.append(r)
        echo(f"ledger: sqlanon status {db} adult | audit: sqlanon audit {db} adult --m {m}")
        return results
    finally:
        con.close()


#: the release times in a demo line (they differ from run to run)
TIMING = re.compile(r"\b\d+\.\d+ s\b")


def output(**options) -> list[str]:
    """The lines ``sqlanon demo`` prints with ``options`` (default: the
    command's defaults), run in a temporary folder on the default file name."""
    lines: list[str] = []
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="sqlanon-demo-") as tmp:
        os.chdir(tmp)
        try:
            run(**options, echo=lines.append)
        finally:
            os.chdir(here)
    return lines


def readme_block(text: str) -> tuple[int, int]:
    """(start, end) of the demo output (the first ``` block) inside README text's demo section."""
    begin, end = text.index("<!-- BEGIN demo -->"), text.index("<!-- END demo -->")
    start = text.index("```\n", begin, end) + 4
    return start, text.index("```", start, end)


def update_readme(path: str | Path = "README.md") -> bool:
    """Rewrite the demo output block of README ``path``; True when it changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    start, end = readme_block(text)
    new = text[:start] + "\n".join(output()) + "\n" + text[end:]
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(prog="python -m sqlanon.demo", description=__doc__.split("\n\n")[0])
    ap.add_argument("--readme", nargs="?", const="README.md", metavar="FILE",
                    help="rewrite the demo block of FILE (default README.md) with a fresh run's output")
    args = ap.parse_args()
    if args.readme:
        print(f"{args.readme}: demo block {'updated' if update_readme(args.readme) else 'unchanged'}")
    else:
        run()
