"""Static privacy checks: thin wrappers over the macros in macros/checks.sql
(docs/checks.md). Names are validated with sqlanon.ident; values are parameters."""

from __future__ import annotations

from typing import Sequence

import duckdb
import pandas as pd

from . import ident


class CheckReport(dict):
    """A check's result: a plain dict of the macro's columns (``name`` is the
    macro) that notebooks show as a table (``_repr_html_``)."""

    def __init__(self, name: str, values) -> None:
        super().__init__(values)
        self.name = name

    def _repr_html_(self) -> str:
        from .display import check_html

        return check_html(self.name, self)


def _one(con, sql, params) -> dict:
    cur = con.execute(sql, params)
    cols = [d[0] for d in cur.description]
    name = sql.split("FROM", 1)[1].split("(", 1)[0].strip()
    return CheckReport(name, zip(cols, cur.fetchall()[0]))


def _sa(con, table, sa):
    ident.require_columns(con, table, [sa], role="SA column")
    return sa


def k_anonymity(con: duckdb.DuckDBPyConnection, table: str, qi: Sequence[str]) -> dict:
    qi = ident.require_qi(con, table, qi)
    return _one(con, "SELECT * FROM sqlanon_k_anonymity(?, ?)", [ident.qualified(con, table), qi])


def k_anonymity_violations(con, table: str, qi: Sequence[str], k: int) -> pd.DataFrame:
    qi = ident.require_qi(con, table, qi)
    return con.execute("SELECT * FROM sqlanon_k_anonymity_violations(?, ?, ?)", [ident.qualified(con, table), qi, int(k)]).df()


def group_sizes(con, table: str, qi: Sequence[str]) -> pd.DataFrame:
    qi = ident.require_qi(con, table, qi)
    return con.execute("SELECT * FROM sqlanon_group_sizes(?, ?)", [ident.qualified(con, table), qi]).df()


def l_diversity(con, table: str, qi: Sequence[str], sa: str) -> dict:
    qi = ident.require_qi(con, table, qi)
    return _one(con, "SELECT * FROM sqlanon_l_diversity(?, ?, ?)", [ident.qualified(con, table), qi, _sa(con, table, sa)])


def l_diversity_violations(con, table: str, qi: Sequence[str], sa: str, l: int) -> pd.DataFrame:
    qi = ident.require_qi(con, table, qi)
    return con.execute("SELECT * FROM sqlanon_l_diversity_violations(?, ?, ?, ?)",
                       [ident.qualified(con, table), qi, _sa(con, table, sa), int(l)]).df()


def recursive_cl(con, table: str, qi: Sequence[str], sa: str, l: int) -> dict:
    qi = ident.require_qi(con, table, qi)
    l = ident.require_m(l, name="l") if l != 1 else 1
    return _one(con, "SELECT * FROM sqlanon_recursive_cl(?, ?, ?, ?)", [ident.qualified(con, table), qi, _sa(con, table, sa), l])


def m_eligibility(con, table: str, sa: str, m: int) -> dict:
    m = ident.require_m(m)
    ident.require_table(con, table)
    return _one(con, "SELECT * FROM sqlanon_m_eligibility(?, ?, ?)", [ident.qualified(con, table), _sa(con, table, sa), m])


def profile(con, table: str, qi: Sequence[str], sa: str) -> dict:
    qi = ident.require_qi(con, table, qi)
    return _one(con, "SELECT * FROM sqlanon_profile(?, ?, ?)", [ident.qualified(con, table), qi, _sa(con, table, sa)])


def m_uniqueness(con, table: str, qi: Sequence[str], sa: str, m: int) -> dict:
    qi = ident.require_qi(con, table, qi)
    m = ident.require_m(m)
    return _one(con, "SELECT * FROM sqlanon_m_uniqueness(?, ?, ?, ?)", [ident.qualified(con, table), qi, _sa(con, table, sa), m])


def t_closeness(con, table: str, qi: Sequence[str], sa: str, ordered: bool | None = None) -> dict:
    """t = max EMD over groups; ordered distance for a numeric SA (macro
    sqlanon__numeric_type), a date or a timestamp (or ordered=True), equal
    distance otherwise."""
    qi = ident.require_qi(con, table, qi)
    _sa(con, table, sa)
    if ordered is None:
        typ = ident.table_columns(con, table)[sa]
        ordered = con.execute("SELECT sqlanon__numeric_type($t) OR upper($t) LIKE 'DATE%' OR upper($t) LIKE "
                              "'TIMESTAMP%'", {"t": typ}).fetchall()[0][0]
    return _one(con, "SELECT * FROM sqlanon_t_closeness(?, ?, ?, ?)", [ident.qualified(con, table), qi, sa, bool(ordered)])


def reidentification_risk(con, table: str, qi: Sequence[str], threshold: float = 0.2,
                          population: str | None = None) -> dict:
    """Prosecutor risk of ``table`` (``sqlanon_prosecutor_risk``) and, with a
    ``population`` table, journalist / marketer risk (``sqlanon_journalist_risk``);
    docs/static.md "Risk". Keys are prefixed ``prosecutor_`` / ``journalist_``."""
    from .errors import SqlanonError

    qi = ident.require_qi(con, table, qi)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        raise SqlanonError(f"threshold must be a number in [0, 1], got {threshold!r}")
    out = {f"prosecutor_{k}": v for k, v in _one(
        con, "SELECT * FROM sqlanon_prosecutor_risk(?, ?, threshold := ?)",
        [ident.qualified(con, table), qi, float(threshold)]).items()}
    if population is not None:
        ident.require_qi(con, population, qi)
        out.update({f"journalist_{k}": v for k, v in _one(
            con, "SELECT * FROM sqlanon_journalist_risk(?, ?, ?, threshold := ?)",
            [ident.qualified(con, table), ident.qualified(con, population), qi, float(threshold)]).items()})
    return out
