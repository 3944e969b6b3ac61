"""``python -m sqlanon.cli``: the ``sqlanon`` command."""

from . import main

if __name__ == "__main__":  # pragma: no cover
    main()
