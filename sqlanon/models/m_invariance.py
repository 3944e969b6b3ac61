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


def _sql(step: StepContext, macro: str, *args) -> str:
    """SQL: macro ``macro`` of this model's hook statements (sql/m_invariance/hooks.sql.j2)."""
    return step.render("m_invariance/hooks.sql.j2", macro, *args)


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
        dom = step.engine.fetch(_sql(step, "known_values", T, quote(step.sa)), {"seed": step.seed})
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
    counts = step.engine.fetch(_sql(step, "pool_counts", T))
    step8_context(step, sum(int(n) for _, n in counts))
    write_plan(step, plan_rows(step, [v for v, _ in counts], [int(n) for _, n in counts], step.values["eligibility"]))


def write_plan(step: StepContext, rows: list[tuple]) -> None:
    """The plan table step 7 reads, with ``rows`` ((value, delta) pairs)."""
    step.engine.execute(_sql(step, "plan_table", step.tables, step.cols[step.sa]))
    if rows:
        step.engine.executemany(_sql(step, "plan_insert", step.tables), rows)


def domains(step: StepContext) -> None:
    """Step 9 records a group's values of a non-numeric QI as a bit mask over
    step 6b's list of its values when the list holds at most MAX_MASK_VALUES
    values: ctx["mask_qi"] gets those QI's 1-based positions."""
    cat = [k for k, (_, numeric) in enumerate(step.ctx["qi_info"], 1) if not numeric]
    if cat:
        lens = step.engine.fetch(_sql(step, "domain_lengths", step.tables, cat))[0]
        limit = min(MAX_MASK_VALUES, int(step.engine.mask_values))  # the engine's signed masks
        step.ctx["mask_qi"] = [k for k, n in zip(cat, lens) if n <= limit]


def joint_plan(free: dict, same: dict, new: dict, bits: list[int], m: int) -> list[tuple[int, int, int, int]]:
    """Step 6's joint target choice (docs/publisher.md, step 6): targets for
    the updated and re-inserted persons that no earlier signature of theirs
    holds the value of (``free``: (value bit, mask of the union of their
    earlier signatures) -> persons), chosen so that persons of different
    values share a target and so a group, instead of each class aiming at its
    own value plus the values most frequent among the new rows.

    ``same``: (target mask, value bit) -> persons whose earlier signature (the
    target mask) holds their value; ``new``: value bit -> new persons left in
    the pool; ``bits``: every value's bit. Returns (value bit, union mask,
    target mask, persons) rows; a target holds the value, m values and none of
    the union (the rule of step 4: equal or disjoint), so every person's
    target is one a person could have aimed at on its own. A class with fewer
    than m values outside its union gets no row (the person is held).

    First the fixed targets (``same``): each takes, per value, free persons up
    to the number of groups it opens anyway (its most persons of one value).
    Then greedily: the class with the most persons left is the seed; values
    are added one by one, each time the one that lets the most persons join
    (per value at most as many as the seed's value has: one per group), ties
    to the value with the most new persons (who fill the other slots), then
    the lower bit; the target's groups then take those persons."""
    rem = {k: n for k, n in free.items() if n > 0}
    byval: dict[int, list[int]] = {}
    for v, u in sorted(rem):
        byval.setdefault(v, []).append(u)
    out: list[tuple[int, int, int, int]] = []

    def eligible(t: int, v: int) -> list[int]:
        return [u for u in byval.get(v, ()) if rem.get((v, u), 0) > 0 and not u & t]

    def take(t: int, v: int, n: int) -> None:
        # the largest classes first (fewer plan rows), then the union's order
        for u in sorted(eligible(t, v), key=lambda u: (-rem[(v, u)], u)):
            if n <= 0:
                break
            x = min(n, rem[(v, u)])
            out.append((v, u, t, x))
            rem[(v, u)] -= x
            n -= x

    forced: dict[int, dict[int, int]] = {}
    for (t, v), n in sorted(same.items()):
        forced.setdefault(t, {})[v] = n
    for t, per in forced.items():
        k = max(per.values())
        for v in bits:
            if v & t and per.get(v, 0) < k:
                take(t, v, k - per.get(v, 0))

    def placed(t: int, a: int) -> int:
        # persons the target t would take: per value at most as many as value a has
        k = sum(rem[(a, u)] for u in eligible(t, a))
        return sum(min(k, sum(rem[(v, u)] for u in eligible(t, v))) for v in bits if v & t)

    while True:
        left = [(n, k) for k, n in rem.items() if n > 0]
        if not left:
            return out
        _, (a, ua) = max(left, key=lambda x: (x[0], -x[1][0], -x[1][1]))
        t = a
        for _ in range(m - 1):
            cand = [v for v in bits if not v & t and not v & ua]
            if not cand:
                break
            t |= max(cand, key=lambda v: (placed(t | v, a), new.get(v, 0), -v))
        if bin(t).count("1") < m:
            rem[(a, ua)] = 0  # no target: held (step 6)
            continue
        k = sum(rem[(a, u)] for u in eligible(t, a))
        for v in bits:
            if v & t:
                take(t, v, k)


def joint_targets(step: StepContext, join: str = "", where: str = "") -> None:
    """Before step 6: the joint target plan (:func:`joint_plan`) from class
    counts (at most a few per updated or re-inserted person; the persons
    themselves stay in SQL), written to a TEMP table that step 6 reads.
    ``join`` and ``where`` (SQL of a model's hook template: sliced-bucket's)
    narrow the persons planned for (pool ``p``, its value's bit ``b.bit``)."""
    T = step.tables
    step.engine.execute(_sql(step, "joint_plan_table", T))
    cls = step.engine.fetch(_sql(step, "joint_classes", T, join, where))
    if not cls:
        return
    free = {(int(v), int(u)): int(n) for v, u, s, n in cls if s is None}
    if not free:
        return
    same = {(int(s), int(v)): int(n) for v, u, s, n in cls if s is not None}
    new = {int(b): int(n) for b, n in step.engine.fetch(_sql(step, "joint_new", T))}
    rows = joint_plan(free, same, new, sorted(new), step.privacy)
    for i in range(0, len(rows), 500):  # 500 rows a statement (hooks.sql.j2, joint_plan_insert)
        part = rows[i:i + 500]
        step.engine.execute(_sql(step, "joint_plan_insert", T, len(part)),
                            [x for v, u, t, n in part for x in (str(v), str(u), str(t), n)])


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
    # joint_targets: step 6's joint plan; reserve_slots: releases a person away
    # keeps a vacancy of its signature and value reserved (step 4)
    context={"mask_qi": (), "joint_targets": True, "reserve_slots": 2},  # mask_qi: set by the hook before step 7
    hooks={"06_constrained": joint_targets, "07_eligible": before_eligible},
    temps=("snap", "bits", "gmask", "cls", "placed", "vac", "pool", "tgt", "tplan", "rsvp", "rsv", "tg", "plan", "newg", "ext", "hist",
           "pairs", "rcand", "rvac", "rvcls", "rccls", "fill", "span", "dropped", "srt", "asg", "vstart", "doms", "cfsrc", "cfq", "mrg", "mvs",
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
