"""Static l-diverse Anatomy per release (Xiao & Tao, VLDB 2006; the l-diversity
of seed 002, docs/papers.md): every release is
grouped anew, so comparing releases narrows persons (seeds 000 and 004). The
documented unsafe baseline: the release gate only reports the exposure, and
every result says ``unsafe baseline``. Templates sql/anatomy/ with
``dynamic = False``; docs/dynamic_anatomy.md.

Its results (and dynamic Anatomy's, sqlanon.ReleaseResult): ``held`` = |HD|
(rows published with their previous tuple, data holding), ``suppressed`` =
|SP| (source rows whose current version is not published) and ``dl`` = the
penalty DL of seed 004 eq. 1-2 (``result_fields``).
"""

from __future__ import annotations

from ..ident import require_m
from .base import Model, Parameter

#: the privacy parameter of both anatomy models (``m=`` is accepted as a synonym)
L = Parameter("l", "every partition holds l distinct SA values", lambda v: require_m(v, name="l"), aliases=("m",))
#: the temporary tables of sql/anatomy/
TEMPS = ("snap", "cls", "plan", "pool", "dacf", "newg", "final")
#: their private state: the rows of the partitions (sql/anatomy/01_snapshot)
TABLES = {"rows": "__rows"}
#: |SP| and the penalty DL of seed 004 (sqlanon.ReleaseResult)
RESULT_FIELDS = ("suppressed", "dl")

MODEL = Model(
    name="anatomy",
    pipeline="anatomy",
    summary="static l-diverse Anatomy per release (Xiao & Tao 2006): the unsafe baseline",
    parameters=(L,),
    outputs=("anatomy",),
    context={"dynamic": False},
    temps=TEMPS,
    tables=TABLES,
    result_fields=RESULT_FIELDS,
    gated=False,
    unsafe_baseline=True,
)
