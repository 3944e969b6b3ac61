"""Plots of a project's releases, read from its ledger and an audit
(matplotlib, the optional extra: ``pip install 'sqlanon[plot]'``).

The functions return a ``matplotlib.figure.Figure`` made without pyplot (no
global state, no window): a notebook shows it as the value of a cell,
``fig.savefig("releases.png")`` writes it, and ``sqlanon report`` embeds it.

* :func:`per_release` - the numbers behind the plots, as a DataFrame;
* :func:`releases` - counterfeits, held rows, NCP and audit findings per release;

Counts get integer y ticks; a panel with nothing to show (no counterfeits,
nothing held, no findings: every value zero) is drawn without axes and says
so, rather than as an empty 0..1 frame.
* :func:`what_if` - audit findings of one project for several values of m.
"""

from __future__ import annotations

import pandas as pd

from .errors import SqlanonError


def _figure(**kw):
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise SqlanonError("sqlanon.plot needs matplotlib: pip install 'sqlanon[plot]'") from exc
    return Figure(**kw)


def _ylim(ax, values) -> None:
    """y from 0 to a little above the largest value."""
    top = pd.Series(values, dtype="float64").max(skipna=True)
    top = 0.0 if pd.isna(top) else float(top)
    ax.set_ylim(0, max(1.0, 1.1 * top))


def _counts(ax) -> None:
    """Integer ticks on the y axis: a count of rows or findings has no 2.5."""
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def _empty(values) -> bool:
    """Nothing to plot: every value zero or missing."""
    v = pd.Series(values, dtype="float64").fillna(0)
    return bool((v == 0).all())


def _nothing(ax, title: str, why: str) -> None:
    """A panel with no axes (no empty 0..1 frame), saying why it is empty."""
    ax.set_axis_off()
    ax.set_title(title)
    ax.text(0.5, 0.5, f"nothing to show:\n{why}", ha="center", va="center", transform=ax.transAxes,
            color="#555555", wrap=True)


def per_release(con, project: str, report=None) -> pd.DataFrame:
    """One row per release of ``project`` (from its ledger): ``release,
    published, counterfeits, held, ncp`` and, with an audit ``report``
    (:func:`sqlanon.audit`), ``findings`` and ``disclosures`` counted at the
    last release each finding uses (:meth:`sqlanon.AuditReport.findings_per_release`)."""
    from .publisher import status

    ledger = status(con, project)
    out = ledger[["release", "published", "counterfeits", "held", "ncp"]].copy()
    if report is not None:
        per = report.findings_per_release()
        tot = per.groupby("release", as_index=False)[["findings", "disclosures"]].sum()
        out = out.merge(tot, on="release", how="left").fillna({"findings": 0, "disclosures": 0})
        out[["findings", "disclosures"]] = out[["findings", "disclosures"]].astype("int64")
    return out.reset_index(drop=True)


def releases(con, project: str, report=None):
    """Four panels per release of ``project``: counterfeits (and their share of
    the published rows), held rows, NCP (%), and - with an audit ``report`` -
    the findings per check (stacked), else a note that no audit was given."""
    data = per_release(con, project, report)
    fig = _figure(figsize=(10, 6.5), layout="constrained")
    axes = fig.subplots(2, 2)
    r = data["release"].astype(int).tolist()
    span = f"release {r[0]}" if len(r) == 1 else f"releases {r[0]}..{r[-1]}"
    ax = axes[0][0]
    if _empty(data["counterfeits"]):
        _nothing(ax, "counterfeits per release", f"no counterfeits in {span}")
    else:
        ax.bar(r, data["counterfeits"], color="#8e6bbf")
        ax.set_title("counterfeits per release")
        _ylim(ax, data["counterfeits"])
        _counts(ax)
        share = ax.twinx()
        pct = 100 * data["counterfeits"] / data["published"].where(data["published"] > 0)
        share.plot(r, pct, "o-", color="#333")
        share.set_ylabel("% of published rows")
        _ylim(share, pct)
    ax = axes[0][1]
    if _empty(data["held"]):
        _nothing(ax, "held rows per release", f"no rows held in {span}")
    else:
        ax.bar(r, data["held"], color="#e08e3c")
        ax.set_title("held rows per release")
        _ylim(ax, data["held"])
        _counts(ax)
    ax = axes[1][0]
    if data["ncp"].isna().all():
        _nothing(ax, "NCP per release (%)", f"no NCP in the ledger for {span}")
    else:
        ax.plot(r, data["ncp"], "o-", color="#2a7ab9")
        ax.set_title("NCP per release (%)")
        _ylim(ax, data["ncp"])
    ax = axes[1][1]
    if report is None:
        _nothing(ax, "audit findings per release", "no audit given (pass report=sqlanon.audit(...))")
    else:
        title = f"audit findings per release (m = {report.m})"
        per = report.findings_per_release()
        if per.empty or _empty(per["findings"]):
            _nothing(ax, title, f"no findings in {span} (verdict: {report.verdict})")
        else:
            bottom = pd.Series(0, index=r, dtype="int64")
            for check, rows in per.groupby("check"):
                n = rows.set_index("release")["findings"].reindex(r, fill_value=0).astype("int64")
                ax.bar(r, n, bottom=bottom, label=str(check))
                bottom += n
            ax.legend(fontsize=8)
            ax.set_title(title)
            _ylim(ax, bottom)
            _counts(ax)
    for row in axes:
        for ax in row:
            if ax.axison:
                ax.set_xlabel("release")
                ax.set_xticks(r)
                ax.set_xlim(min(r) - 0.6, max(r) + 0.6)
    fig.suptitle(f"project {project}")
    return fig


def what_if(con, project: str, ms) -> tuple[pd.DataFrame, object]:
    """Audit ``project`` as if it had been published with each m of ``ms``
    (``sqlanon audit --what-if``): a DataFrame ``m, verdict, findings,
    disclosures`` plus per-check columns, and a figure of findings against m.
    Auditing with a larger m than the project's shows how far its releases
    are from that stronger guarantee."""
    from .audit import audit

    rows = []
    for m in ms:
        rep = audit(con, project, m)
        rows.append({"m": m, "verdict": rep.verdict, "findings": sum(rep.counts.values()),
                     "disclosures": rep.n_disclosures, **rep.counts})
        rep.close()
    data = pd.DataFrame(rows)
    fig = _figure(figsize=(6, 3.5), layout="constrained")
    ax = fig.subplots()
    ax.set_xlabel("m audited with")
    title = f"project {project}: audit what-if on m"
    if _empty(data["findings"]):
        _nothing(ax, title, f"no findings for m = {', '.join(str(m) for m in data['m'])}")
        return data, fig
    ax.plot(data["m"], data["findings"], "o-", label="findings")
    ax.plot(data["m"], data["disclosures"], "s--", label="disclosures (one value left)")
    ax.set_ylabel("count")
    ax.set_xticks(list(data["m"]))
    _ylim(ax, data["findings"])
    _counts(ax)
    ax.set_title(title)
    ax.legend(fontsize=8)
    return data, fig
