"""Dynamic Anatomy (seed 004, Definition 6: carried partitions, suppression and
data holding); templates sql/anatomy/ with ``dynamic = True``;
docs/dynamic_anatomy.md.

Checked by the release gate like every safe model; a deleted member's row
ends when a person of its value takes it or its partition merges into one of
the same value multiset, and a returner is published in a partition of its
old multiset; a member left stale moves, with its current value, to a ghost
slot of its multiset or to a universal partition (one row of each source
value), its row staying behind as a counterfeit (docs/dynamic_anatomy.md,
"Staleness", "Built: universal partitions").
"""

from __future__ import annotations

from .anatomy import L, RESULT_FIELDS, TABLES, TEMPS
from .base import Model

MODEL = Model(
    name="dynamic-anatomy",
    pipeline="anatomy",
    summary="dynamic Anatomy with suppression and data holding (seed 004)",
    parameters=(L,),
    outputs=("anatomy",),
    context={"dynamic": True},
    temps=TEMPS + ("deal", "vac", "msig", "merge", "claim", "pad", "ugrp", "cand", "univ", "mover"),
    tables=TABLES | {"away": "__away"},
    result_fields=RESULT_FIELDS,
)
