"""``python -m sqlanon``: the ``sqlanon`` command."""

from .cli import main

if __name__ == "__main__":  # importable (pytest --doctest-modules imports every module)
    main()
