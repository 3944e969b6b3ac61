"""What one release did: :class:`ReleaseResult` (``sqlanon.ReleaseResult``),
and the fake and stale shares of a release or of a whole ledger
(:func:`shares`, issue 32, docs/projects.md "Fake and stale shares").

>>> r = ReleaseResult(release=2, published=40, groups=12, counterfeits=4, survivors=30, new=6, deleted=2,
...                   reinserted=0, updated=0, held=0, ncp=12.5, seconds=0.25)
>>> r.fake_share, r.stale_share
(0.1, 0.0)
>>> print(r.line())
release   2:     40 published rows (36 real, 4 counterfeits) in    12 groups,    0 held | survivors 30, new 6, deleted 2, reinserted 0, updated 0 | NCP 12.5% | 0.25 s
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

#: the counts of a release that only some models have (``Model.result_fields``)
OPTIONAL = ("suppressed", "dl")


@dataclass(frozen=True)
class ReleaseResult:
    """What one release did. ``published`` counts the published rows: real rows
    (persons) plus ``counterfeits`` - the words of :meth:`line`, the ledger, the
    report and the demo;
    ``held`` = source rows not in this release (eligibility deletions and
    updated/re-inserted persons no consistent group could take); ``ncp`` in %.
    ``suppressed`` and ``dl`` are the counts only some models have
    (``OPTIONAL``; the model declares which in ``Model.result_fields`` and
    its module's docstring says what they count there; ``dl`` is None for a
    model without it). ``unsafe_baseline`` is True for a model that exists to be
    broken (its releases can be compared to narrow persons). A model's stats
    step returns the counts as columns named like these fields."""

    release: int
    published: int
    groups: int
    counterfeits: int
    survivors: int
    new: int
    deleted: int
    reinserted: int
    updated: int
    held: int
    ncp: float
    seconds: float
    suppressed: int = 0
    dl: int | None = None
    unsafe_baseline: bool = False
    exposed: int = 0  # persons the release gate found narrowed below m (committed only by unsafe options)

    #: the optional counts the release's model returns (``Model.result_fields``),
    #: shown by :meth:`line` and the notebook display; the Publisher sets it on
    #: the result it returns (not a field: ``asdict`` and the ledger hold every count)
    shown: ClassVar[tuple[str, ...] | None] = None

    def optional(self) -> tuple[str, ...]:
        """The optional counts to show: the model's (a result the Publisher
        made), else those with a value."""
        if self.shown is not None:
            return self.shown
        return tuple(n for n in OPTIONAL if getattr(self, n) not in (0, None))

    def line(self) -> str:
        words = {"suppressed": f"{self.suppressed:>4} suppressed", "dl": f"DL {self.dl}"}
        shown = [words[n] for n in self.optional()]
        extra = f"{', '.join(shown)} | " if shown else ""
        if self.exposed:
            extra += f"EXPOSED {self.exposed} | "
        # one vocabulary with the ledger, the report and the demo: published rows = real rows + counterfeits
        return (f"release {self.release:>3}: {self.published:>6} published rows ({self.published - self.counterfeits} "
                f"real, {self.counterfeits} counterfeits) in {self.groups:>5} groups, {self.held:>4} held | "
                f"survivors {self.survivors}, "
                f"new {self.new}, deleted {self.deleted}, reinserted {self.reinserted}, updated {self.updated} | "
                f"{extra}NCP {self.ncp:.1f}% | {self.seconds:.2f} s"
                + (" | unsafe baseline" if self.unsafe_baseline else ""))

    @property
    def fake_share(self) -> float:
        """Counterfeits / published rows (0 when nothing is published): :func:`shares`."""
        return share(self.counterfeits, self.published)

    @property
    def stale_share(self) -> float:
        """(held + suppressed) / the source's persons: :func:`shares`."""
        return share(self.held + self.suppressed, self.survivors + self.new + self.reinserted + self.updated)

    def _repr_html_(self) -> str:  # notebooks (sqlanon/display.py)
        from .display import release_html

        return release_html(self)


def share(part: int, whole: int) -> float:
    """``part / whole``, 0.0 when ``whole`` is 0."""
    return part / whole if whole else 0.0


def shares(ledger):
    """The fake and stale shares of every release of a ledger DataFrame
    (issue 32, docs/projects.md "Fake and stale shares"), as two columns
    ``fake_share`` = counterfeits / published rows and ``stale_share`` =
    (held + suppressed) / the source's persons (survivors + new + reinserted +
    updated): persons not published with their current value, and rows of
    persons no longer in the source (dynamic Anatomy's data holding; it counts
    an SA update in both held and suppressed, seed 004's |HD| and |SP|)."""
    present = ledger["survivors"] + ledger["new"] + ledger["reinserted"] + ledger["updated"]
    stale = ledger["held"] + ledger["suppressed"].fillna(0)
    return ledger.assign(fake_share=[share(int(c), int(p)) for c, p in zip(ledger["counterfeits"], ledger["published"])],
                         stale_share=[share(int(h), int(n)) for h, n in zip(stale, present)])
