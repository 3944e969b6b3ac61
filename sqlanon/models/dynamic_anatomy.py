"""Dynamic Anatomy (seed 004, Definition 6: carried partitions, suppression and
data holding); templates sql/anatomy/ with ``dynamic = True``;
docs/dynamic_anatomy.md.

Not refused by the release gate yet, only reported: rows Anatomy's grouping
cannot place in their first release are suppressed, and their absence can
narrow them (docs/threat_model.md, "Dynamic Anatomy").
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
    temps=TEMPS + ("deal", "vac", "merge", "claim", "pad"),
    tables=TABLES | {"away": "__away"},
    result_fields=RESULT_FIELDS,
)
