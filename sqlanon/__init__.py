"""sqlanon: privacy-preserving continuous data publishing on DuckDB."""

__version__ = "0.1.0"  # first: the publisher records it in the ledger

from .errors import SqlanonError
from .install import Installed, bundle, connect, install
from .audit import AuditReport, audit
from .publisher import Publisher, ReleaseResult
from . import metrics
from . import checks
from .static import AnonymizeResult, anonymize


__all__ = ["anonymize", "AnonymizeResult", "metrics", "Publisher", "ReleaseResult", "AuditReport", "audit", "SqlanonError", "Installed", "bundle", "connect", "install", "__version__"]
