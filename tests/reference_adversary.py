"""A slow, obvious reference adversary (SPEC §6b), in pure Python.

It reads only what is published (the QI table and sensitive table, or the
generalized table) plus what SPEC §6b says it knows: every target's exact QI
and whether the target is in the source at each release (``sources``). From
the publisher's side it takes one more fact that defines "the values the
algorithm holds back that time": the true SA values of the persons who are in
the source but not published (read from the private membership).

For every person and every release r in which it is in the source:
- candidates(r) = union of the SA values of every group whose published QI
  matches the person's QI (exact tuple in the QI table; or every generalized
  range/set containing it, a NULL QI value matching any box); if no group
  matches, the values held back in r (persons in the source published
  nowhere; one published with an earlier value looks present);
- for every start release s <= r (releases where the person is absent are
  skipped), the intersection of candidates over the person's releases in
  [s, r]; a finding is any such intersection with 1..m-1 values.

Brute force over all (person, start, release): use it on small histories.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_RANGE = re.compile(r"^(-?[^-]+)-(-?.+)$")


@dataclass(frozen=True)
class Finding:
    id: object
    start: int
    release: int
    candidates: frozenset
    had: bool  # the set holds a value the person really had at some release in [start, release]


def _published(con, project: str, release: int, output: str, qi: list[str], sa: str):
    """[(matcher, signature)] of the groups of one release."""
    q = lambda n: '"' + n.replace('"', '""') + '"'  # noqa: E731
    groups = []
    if output == "generalized":
        rows = con.execute(
            f"SELECT group_id, {', '.join(q(c) for c in qi)}, {q(sa)} FROM {q('sqlanon_' + project + '_published')} "
            "WHERE release = ?", [release]).fetchall()
        by = {}
        for row in rows:
            g = by.setdefault(row[0], {"box": row[1:-1], "sig": set()})
            g["sig"].add(row[-1])
        for g in by.values():
            groups.append((("box", g["box"]), frozenset(g["sig"])))
    else:
        qrows = con.execute(
            f"SELECT group_id, {', '.join(q(c) for c in qi)} FROM {q('sqlanon_' + project + '_qit')} WHERE release = ?",
            [release]).fetchall()
        srows = con.execute(
            f"SELECT group_id, {q(sa)} FROM {q('sqlanon_' + project + '_st')} WHERE release = ? AND count > 0",
            [release]).fetchall()
        tuples, sigs = {}, {}
        for g, *t in qrows:
            tuples.setdefault(g, set()).add(tuple(t))
        for g, v in srows:
            sigs.setdefault(g, set()).add(v)
        for g, ts in tuples.items():
            groups.append((("exact", frozenset(ts)), frozenset(sigs.get(g, ()))))
    return groups


def _parse_box(box, numeric):
    """Published cells -> per QI None (only NULLs), (lo, hi) or a set of strings."""
    out = []
    for cell, num in zip(box, numeric):
        if cell is None:
            out.append(None)
        elif num:
            m = _RANGE.match(cell)
            lo, hi = (m.group(1), m.group(2)) if m else (cell, cell)
            out.append((float(lo), float(hi)))
        else:
            out.append(set(cell[1:-1].split(",")) if cell.startswith("{") and cell.endswith("}") else {cell})
    return out


def _box_holds(box, qi_values, numeric) -> bool:
    """A NULL QI value of the target is consistent with any box (boxes ignore NULLs)."""
    for cell, x, num in zip(box, qi_values, numeric):
        if x is None:
            continue
        if cell is None:
            return False
        if num:
            if not cell[0] <= float(x) <= cell[1]:
                return False
        elif str(x) not in cell:
            return False
    return True


class _BoxIndex:
    """The groups' boxes as numpy arrays, so that "every box holding tuple t" is
    a few vectorized comparisons (same answer as :func:`_box_holds` on each)."""

    def __init__(self, groups, numeric):
        import numpy as np

        self.np = np
        boxes = [key for (_, key), _ in groups]
        self.n = len(boxes)
        self.numeric = numeric
        self.cols = []
        for j, num in enumerate(numeric):
            cells = [b[j] for b in boxes]
            if num:
                lo = np.array([c[0] if c is not None else np.nan for c in cells])
                hi = np.array([c[1] if c is not None else np.nan for c in cells])
                self.cols.append((lo, hi))
            else:
                index: dict = {}
                for i, c in enumerate(cells):
                    for v in c or ():
                        index.setdefault(v, []).append(i)
                self.cols.append(index)

    def matching(self, t):
        np = self.np
        ok = np.ones(self.n, dtype=bool)
        for x, num, col in zip(t, self.numeric, self.cols):
            if x is None:
                continue
            if num:
                lo, hi = col
                ok &= (lo <= float(x)) & (float(x) <= hi)  # NaN (a box of NULLs) never holds a value
            else:
                hit = np.zeros(self.n, dtype=bool)
                hit[col.get(str(x), [])] = True
                ok &= hit
        return np.flatnonzero(ok)


def candidates(con, project: str, sources: list[dict], *, qi: list[str], sa: str,
               output: str = "anatomy", numeric: list[bool] | None = None) -> dict:
    """{(id, r): candidate values} for every person in the source at release r
    (``sources[r - 1]`` = {id: (qi tuple, true sa)})."""
    numeric = numeric or [False] * len(qi)
    q = lambda n: '"' + n.replace('"', '""') + '"'  # noqa: E731
    cands: dict = {}  # (id, r) -> frozenset
    for r, src in enumerate(sources, 1):
        groups = [((kind, _parse_box(key, numeric) if kind == "box" else key), sig)
                  for (kind, key), sig in _published(con, project, r, output, qi, sa)]
        # held back: in the source and published nowhere. A person published
        # with an earlier value (dynamic Anatomy's SVM rule, sliced-bucket's
        # held-over update) looks present: the adversary does not know who was
        # updated, so its current value is not among the values held back
        published = {row[0] for row in con.execute(
            "SELECT id FROM sqlanon_membership(?, ?) WHERE NOT is_counterfeit", [project, r]).fetchall()}
        held = frozenset(v for pid, (_, v) in src.items() if pid not in published)
        boxes = _BoxIndex(groups, numeric) if output == "generalized" else None
        by_tuple: dict = {}  # the candidates depend on the QI tuple only
        for pid, (t, _) in src.items():
            if t not in by_tuple:
                c = set()
                matched = False
                hits = boxes.matching(t) if boxes else (i for i, ((_, key), _) in enumerate(groups) if t in key)
                for i in hits:
                    matched = True
                    c |= groups[i][1]
                by_tuple[t] = frozenset(c) if matched else None
            cands[pid, r] = held if by_tuple[t] is None else by_tuple[t]
    return cands


def attack(con, project: str, sources: list[dict], *, qi: list[str], sa: str, m: int,
           output: str = "anatomy", numeric: list[bool] | None = None) -> list[Finding]:
    """``sources[r - 1]`` = {id: (qi tuple, true sa)} of the source at release r."""
    cands = candidates(con, project, sources, qi=qi, sa=sa, output=output, numeric=numeric)
    findings = []
    ids = {pid for src in sources for pid in src}
    for pid in ids:
        present = [r for r, src in enumerate(sources, 1) if pid in src]
        for i, r in enumerate(present):
            for s in present[: i + 1]:
                inter = None
                had = set()
                for t in present:
                    if s <= t <= r:
                        inter = cands[pid, t] if inter is None else inter & cands[pid, t]
                        had.add(sources[t - 1][pid][1])
                if inter and len(inter) < m:
                    findings.append(Finding(pid, s, r, inter, bool(inter & had)))
    return findings


def collusion(con, project: str, sources: list[dict], *, qi: list[str], sa: str, m: int,
              output: str = "anatomy", numeric: list[bool] | None = None) -> list[Finding]:
    """Seed 003's collusion attack, generalised: the adversary suspects a person
    went back to a value it had before, so it intersects the candidates of any
    set of the person's releases, not only of a run of consecutive ones (a
    finding's ``start`` is the set's first release, ``release`` its last; the
    set itself is not kept). Brute force over all subsets: small histories."""
    from itertools import combinations

    cands = candidates(con, project, sources, qi=qi, sa=sa, output=output, numeric=numeric)
    findings = []
    for pid in {pid for src in sources for pid in src}:
        present = [r for r, src in enumerate(sources, 1) if pid in src]
        seen = set()
        for k in range(2, len(present) + 1):
            for rs in combinations(present, k):
                inter = frozenset.intersection(*(cands[pid, r] for r in rs))
                if inter and len(inter) < m and inter not in seen:
                    seen.add(inter)
                    had = {sources[r - 1][pid][1] for r in rs}
                    findings.append(Finding(pid, rs[0], rs[-1], inter, bool(inter & had)))
    return findings
