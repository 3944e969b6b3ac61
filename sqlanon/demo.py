"""``sqlanon demo``: the main job on the bundled UCI Adult data (CC BY 4.0).

Builds a DuckDB file, drives a dynamic source through several releases with
inserts, deletes, updates and re-inserts (``sqlanon.histories.snapshot``'s seeded
history over Adult's complete rows), publishes each release with
:class:`sqlanon.Publisher` and audits the whole history after every release.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from .audit import audit
from .datasets import load_adult
from .engine import as_engine
from .errors import SqlanonError
from .ident import quote
from .install import connect
from .histories import snapshot
from .project import PRIVATE_SCHEMA, SHARED, Project, purge
from .publisher import Publisher

QI = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]
SA = "occupation"


POOL, NOW, PROJECT = "adult_pool", "adult_now", "adult"


def _publisher(con, m: int, seed: int) -> Publisher:
    return Publisher(con, PROJECT, source=NOW, id="id", qi=QI, sa=SA, m=m, output="generalized", seed=seed)


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
                pub = _publisher(con, m, seed)
            r = pub.release()
            report = audit(con, PROJECT, m)
            verdict = report.verdict
            report.close()
            echo(f"release {r.release}: {r.published - r.counterfeits:>6} rows, {r.groups:>5} groups, "
                 f"{r.counterfeits:>4} counterfeits, {r.held:>4} held | +{r.new} new, -{r.deleted} deleted, "
                 f"{r.reinserted} re-inserted, {r.updated} updated | NCP {r.ncp:5.1f}% | {r.seconds:.2f} s | "
                 f"audit: {verdict}")
            results.append(r)
        echo(f"ledger: sqlanon status {db} adult | audit: sqlanon audit {db} adult --m {m}")
        return results
    finally:
        con.close()
