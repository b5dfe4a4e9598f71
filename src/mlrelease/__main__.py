"""``python -m mlrelease`` runs the command-line interface."""

from mlrelease.cli import main

if __name__ == "__main__":  # importing the module (autodoc does) must not run the CLI
    raise SystemExit(main())
