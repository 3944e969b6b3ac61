"""m-invariance (Xiao & Tao, SIGMOD 2007, as summarised in seed 000 §II-B)
with the eligibility targets of seed 000 (minimum counterfeits) and the NCP of
seed 003 (docs/papers.md); templates sql/m_invariance/, docs/publisher.md.

Parameters: ``m`` (the privacy parameter: every group holds m distinct SA
values and a person's groups keep one signature) and ``eligibility``, the
method of the plan made before step 7 (:func:`plan`).

Its results (sqlanon.ReleaseResult): ``held`` = source rows not in this
release (eligibility deletions and updated or re-inserted persons no
consistent group could take); no ``suppressed`` or ``dl``.
"""

from __future__ import annotations

from .. import eligibility as _eligibility
from ..errors import SqlanonError
from ..ident import quote, require_m
from .base import Model, Parameter, StepContext

# Eligibility of the new rows (docs/threat_model.md, "Absence"): the method a
# release plan uses. Whatever a release holds back must not disclose values by
# its absence: the held set must be empty or m-eligible, and holding back an
# m-eligible set never lowers the counterfeits needed (max(0, m c_max - n) does
# not fall when c_max falls by at most |D|/m and n by |D|), so the minimal
# modifications under that rule are additions only: 'optimal' is Algorithm 1's
# counterfeit target. 'optimal-unsafe' is seed 000's minimum of additions plus
# deletions, whose deletions are all of over-represented values; the release
# gate then reports the persons that absence exposes instead of refusing.
ELIGIBILITY = {"optimal": "counterfeit", "counterfeit": "counterfeit", "random": "random",
               "optimal-unsafe": "optimal"}
MAX_MASK_VALUES = 127  # values a HUGEINT bit mask can hold (bit 127 is the sign)
MAX_SA_VALUES = 128  # SA values a signature (a UHUGEINT bit mask) holds; the engine may hold fewer


def _check_eligibility(method):
    if method not in ELIGIBILITY:
        raise SqlanonError(f"eligibility method {method!r} is not usable here; use 'optimal' (default), "
                           "'counterfeit', 'random' (the baseline of seed 000) or 'optimal-unsafe'")
    return method


def step8_context(step: StepContext, rows: int) -> None:
    """Step 8's tree sizes from the pool's size (one statement path for every
    size; the engine's dialect picks how rows are ranked: docs/publisher.md,
    "Thirteenth pass")."""
    # the levels of step 8's dyadic tree: 2^levels above any pool (counterfeits
    # make a pool of n rows at most m n rows)
    step.ctx["step8_levels"] = max(2, (max(1, rows) * step.privacy).bit_length() + 1)
    # the first level whose blocks (2^k0 rows) may hold m rows: every block
    # below it is too small to be m-eligible, so its counts are not needed
    step.ctx["step8_k0"] = max(1, (step.privacy - 1).bit_length())


def portable_hash(step: StepContext, expr: str, integer: bool = False, salt: int = 0) -> str:
    """SQL: the portable seeded hash of ``expr`` (sql/_lib/hash.sql.j2), the
    same on every engine."""
    return str(step.render("_lib/hash.sql.j2", "portable_hash", expr, integer, salt))


def plan_rows(step: StepContext, values: list, c: list[int], method: str) -> list[tuple]:
    """The plan of a pool with SA values ``values`` and counts ``c`` (all > 0):
    (value, delta) rows, delta > 0 counterfeits, delta < 0 rows held back."""
    m, T = step.privacy, step.tables
    if not values:
        return []
    absent = []
    if method == "random" or len(values) < m:
        # the SA values the project knows that this pool lacks (seeded order)
        have = set(values)
        dom = step.engine.fetch(
            f"SELECT v FROM (SELECT DISTINCT sqlanon__sa AS v FROM {T['snap']} UNION "
            f"SELECT DISTINCT {quote(step.sa)} FROM {T['mem']} WHERE group_id IS NOT NULL) ORDER BY {portable_hash(step, 'v')}, v",
            {"seed": step.seed})
        absent = [v for (v,) in dom if v not in have]
    if method == "random":
        # the tau-safety baseline draws counterfeit values from the whole domain
        target = _eligibility.random_fill(c + [0] * len(absent), m, seed=step.seed * 100003 + step.release)
        rows = list(zip(values + absent, [t - n for n, t in zip(c + [0] * len(absent), target)]))
    elif len(values) < m:
        # too few values among the new rows: counterfeits of other values the
        # project knows make up the m values
        extra = absent[: m - len(values)]
        target = _eligibility.targets(c + [1] * len(extra), m, ELIGIBILITY[method])
        rows = [(v, t - n) for v, n, t in zip(values, c, target[: len(c)])]
        rows += [(v, t) for v, t in zip(extra, target[len(c):])]
    else:
        target = _eligibility.targets(c, m, ELIGIBILITY[method])
        rows = [(v, t - n) for v, n, t in zip(values, c, target)]
    return [r for r in rows if r[1] != 0]


def plan(step: StepContext) -> None:
    """Eligibility plan of the pool: Python sees one count per SA value."""
    T = step.tables
    counts = step.engine.fetch(f"SELECT sqlanon__sa, count(*) FROM {T['pool']} GROUP BY 1 ORDER BY 1")
    step8_context(step, sum(int(n) for _, n in counts))
    step.engine.execute(f"CREATE OR REPLACE TEMP TABLE {T['plan']} (sqlanon__sa {step.cols[step.sa]}, delta BIGINT)")
    rows = plan_rows(step, [v for v, _ in counts], [int(n) for _, n in counts], step.values["eligibility"])
    if rows:
        step.engine.executemany(f"INSERT INTO {T['plan']} VALUES (?, ?)", rows)


def domains(step: StepContext) -> None:
    """Step 9 records a group's values of a non-numeric QI as a bit mask over
    step 6b's list of its values when the list holds at most MAX_MASK_VALUES
    values: ctx["mask_qi"] gets those QI's 1-based positions."""
    cat = [k for k, (_, numeric) in enumerate(step.ctx["qi_info"], 1) if not numeric]
    if cat:
        lens = step.engine.fetch(f"SELECT {', '.join(f'coalesce(array_length(d{k}), 0)' for k in cat)} "
                                 f"FROM {step.tables['doms']}")[0]
        limit = min(MAX_MASK_VALUES, int(step.engine.mask_values))  # the engine's signed masks
        step.ctx["mask_qi"] = [k for k, n in zip(cat, lens) if n <= limit]


def before_eligible(step: StepContext) -> None:
    """Before step 7: the eligibility plan, then the QI value lists' lengths (step 6b)."""
    plan(step)
    domains(step)


class MInvariance(Model):
    def refuses(self, values: dict) -> bool:
        # 'optimal-unsafe' is an explicitly unsafe choice: committed, its exposure reported
        return values["eligibility"] != "optimal-unsafe"


MODEL = MInvariance(
    name="m-invariance",
    pipeline="m_invariance",
    summary="m-invariance with counterfeits (Xiao & Tao 2007; eligibility targets of seed 000)",
    parameters=(
        Parameter("m", "every group holds m distinct SA values; a person's groups keep one signature",
                  lambda v: require_m(v, name="m")),
        Parameter("eligibility", "method of the eligibility plan: optimal, counterfeit, random or optimal-unsafe",
                  _check_eligibility, default="optimal", example="optimal", type=str),
    ),
    context={"mask_qi": ()},  # mask_qi: set by the hook before step 7
    hooks={"07_eligible": before_eligible},
    temps=("snap", "bits", "gmask", "cls", "placed", "vac", "pool", "tgt", "tg", "plan", "newg", "ext", "hist",
           "pairs", "rcand", "rvac", "rvcls", "rccls", "fill", "span", "dropped", "srt", "vstart", "doms", "cfsrc", "cfq", "mrg", "mvs",
           # step 6's target groups, stage by stage (nearest matching: tm and fm matched through their sides)
           "tq", "tm", "tmside", "tmatch", "tfill", "fm", "fmside", "fmatch",
           # step 9's counterfeit places
           "cfmem", "cfref"),
    temp_views=("rel",),
    state=("groups",),
    tables={"entries": "__entries"},  # a person's groups over its history (sql/m_invariance/02_classify)
    signatures=True,
    max_sa_values=MAX_SA_VALUES,
)
