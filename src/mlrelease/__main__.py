"""``python -m mlrelease`` runs the command-line interface."""

from mlrelease.cli import main

raise SystemExit(main())
