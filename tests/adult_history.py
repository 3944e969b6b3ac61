"""An Adult history published release by release, for the row-level leak tests
(tests/test_rank_leak.py, tests/test_counterfeit_detect.py,
benchmarks/counterfeits.py): Adult's training part, complete in the SA, driven
by ``sqlanon.histories.history`` through one Publisher. Each release's source
stays as table ``src<r>`` (the truth the tests score against)."""

from __future__ import annotations

import sqlanon
from sqlanon.datasets import load_adult
from sqlanon.histories import history

QI_ALL = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]


def qi_of(sa: str) -> list[str]:
    """Adult's QI columns, less the SA when it is one of them (education)."""
    return [c for c in QI_ALL if c != sa]


def publish_history(con, project: str, sa: str, m: int, releases: int, start: int, model: str = "m-invariance",
                    output: str = "anatomy", seed: int = 0) -> int:
    """Publish ``releases`` releases of project ``project`` (m, or l for
    dynamic-anatomy); returns the number of releases."""
    qi = qi_of(sa)
    load_adult(con, "adult", part="data")
    pool = con.sql(f"SELECT id, {', '.join(qi)}, {sa} FROM adult WHERE {sa} IS NOT NULL").df()
    hist = history(pool, "id", sa, releases=releases, start=start, seed=seed)
    kw = {"l": m} if model == "dynamic-anatomy" else {"m": m}
    pub = None
    for r, df in enumerate(hist, 1):
        con.register("h_df", df)
        con.execute("CREATE OR REPLACE TABLE src AS SELECT * FROM h_df")
        con.execute(f"CREATE OR REPLACE TABLE src{r} AS SELECT * FROM h_df")
        con.unregister("h_df")
        if pub is None:
            pub = sqlanon.Publisher(con, project, source="src", id="id", qi=qi, sa=sa, model=model,
                                    output=output, seed=seed, **kw)
        pub.release()
    return len(hist)
