"""``python -m ramseygadgets``: the same command-line interface as the ``ramseygadgets`` script."""

from ramseygadgets.cli import main

if __name__ == "__main__":
    main()
