"""Dynamic Anatomy (seed 004 §4): a shortcut to the publisher's
``model="dynamic-anatomy"`` (docs/dynamic_anatomy.md).

The release itself is the Jinja pipeline ``sql/anatomy/`` run by
:class:`sqlanon.Publisher` (one transaction, ledger, parameter checks); this
module only keeps the short call used by scripts::

    sqlanon.Publisher(con, project, source=source, id=id, qi=qi, sa=sa,
                      model="dynamic-anatomy", l=l, seed=seed).release()

Rule ("carry or drop", decided per previous partition in SQL):

* carry partition h: republish it with exactly its previous tuples -- deleted
  members are held (their previous tuple is published again), updated members
  are held with their previous tuple and their new version is suppressed (the
  SVM rule).  Cost: |HD| + |SP| = deleted + 2 * updated.
* drop partition h: suppress its surviving and updated members.
  Cost: |SP| = survivors + updated.  The cheaper is taken (ties: carry).
* new persons are grouped by the static l-diverse Anatomy grouping
  (macro ``sqlanon_anatomy_groups``) into fresh partitions; rows it cannot place
  are suppressed.

A carried partition has the same SA multiset as before (differences empty in
both directions, and it was l-diverse); a fresh partition holds only new
persons, so it is related to no previous partition; so every release meets
Definition 6.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb


def publish(
    con: duckdb.DuckDBPyConnection,
    project: str,
    source: str,
    *,
    qi: Sequence[str],
    sa: str,
    l: int,
    id: str = "id",
    seed: int = 0,
    model: str = "dynamic-anatomy",
) -> dict:
    """Publish ``source`` as the next release of ``project`` with the
    publisher's ``model`` (``"dynamic-anatomy"``, or ``"anatomy"`` for the static
    baseline). Returns ``{"release", "published", "groups", "held",
    "suppressed", "dl"}`` (see :class:`sqlanon.publisher.ReleaseResult`)."""
    from .publisher import Publisher

    r = Publisher(con, project, source=source, id=id, qi=list(qi), sa=sa, model=model, l=l, seed=seed).release()
    return {"release": r.release, "published": r.published, "groups": r.groups, "held": r.held,
            "suppressed": r.suppressed, "dl": r.dl}
