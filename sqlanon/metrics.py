"""Utility metrics and generalization primitives: thin wrappers over the
``sqlanon_ncp`` / ``sqlanon_discernibility`` / ``sqlanon_avg_group_size`` macros
(macros/ncp.sql, macros/discernibility.sql). Names are validated here; the
work happens in SQL. See docs/metrics.md."""

from __future__ import annotations

from typing import Sequence

import duckdb

from . import ident
from .errors import SqlanonError


def ncp(con: duckdb.DuckDBPyConnection, table: str, qi: Sequence[str], group_col: str) -> tuple[float, dict[str, float]]:
    """NCP in % of rows x QIs and the per-column NCP in %."""
    qi = ident.require_qi(con, table, qi)
    ident.require_columns(con, table, [group_col], role="group column")
    row = con.execute("SELECT ncp, per_column FROM sqlanon_ncp(?, ?, ?)", [table, qi, group_col]).fetchall()[0]
    return float(row[0]), {k: float(v) for k, v in dict(row[1]).items()}


def discernibility(con: duckdb.DuckDBPyConnection, table: str, qi: Sequence[str]) -> int:
    """Sum of squared QI group sizes."""
    qi = ident.require_qi(con, table, qi)
    return int(con.execute("SELECT discernibility FROM sqlanon_discernibility(?, ?)", [table, qi]).fetchall()[0][0])


def avg_group_size(con: duckdb.DuckDBPyConnection, table: str, qi: Sequence[str], k: float) -> float | None:
    """Normalized average equivalence class size (rows / groups) / k."""
    qi = ident.require_qi(con, table, qi)
    if isinstance(k, bool) or not isinstance(k, (int, float)) or k <= 0:
        raise SqlanonError(f"k must be a positive number, got {k!r}")
    v = con.execute("SELECT c_avg FROM sqlanon_avg_group_size(?, ?, ?)", [table, qi, k]).fetchall()[0][0]
    return None if v is None else float(v)


def kl_divergence(con: duckdb.DuckDBPyConnection, table: str, qi: Sequence[str], sa: str, group_col: str) -> float:
    """KL-divergence (natural log) between the exact (QI, SA) distribution and
    Anatomy's group-wise reconstruction (docs/metrics.md)."""
    qi = ident.require_qi(con, table, qi)
    ident.require_columns(con, table, [sa], role="SA column")
    ident.require_columns(con, table, [group_col], role="group column")
    return float(con.execute("SELECT kl_divergence FROM sqlanon_kl_divergence(?, ?, ?, ?)",
                             [table, qi, sa, group_col]).fetchall()[0][0])


def query_error(con: duckdb.DuckDBPyConnection, table: str, qi: Sequence[str], sa: str, group_col: str,
                n_queries: int = 1000, selectivity: float = 0.1, seed: int = 0) -> tuple[float | None, int, int]:
    """Seed 003 eq. 8: mean relative error of seeded random COUNT queries
    (Anatomy estimate vs exact). Returns (query_error, queries used, skipped)."""
    qi = ident.require_qi(con, table, qi)
    ident.require_columns(con, table, [sa], role="SA column")
    ident.require_columns(con, table, [group_col], role="group column")
    if isinstance(n_queries, bool) or not isinstance(n_queries, int) or n_queries < 1:
        raise SqlanonError(f"n_queries must be an integer >= 1, got {n_queries!r}")
    if isinstance(selectivity, bool) or not isinstance(selectivity, (int, float)) or not 0 < selectivity <= 1:
        raise SqlanonError(f"selectivity must be in (0, 1], got {selectivity!r}")
    r = con.execute("SELECT query_error, queries, skipped FROM sqlanon_query_error(?, ?, ?, ?, ?, ?, ?)",
                    [table, qi, sa, group_col, n_queries, float(selectivity), int(seed)]).fetchall()[0]
    return (None if r[0] is None else float(r[0])), int(r[1]), int(r[2])
