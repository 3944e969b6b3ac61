"""sqlanon: privacy-preserving continuous data publishing on DuckDB."""

from .errors import SqlanonError
from .install import Installed, bundle, connect, install

__version__ = "0.1.0"

__all__ = ["SqlanonError", "Installed", "bundle", "connect", "install", "__version__"]
