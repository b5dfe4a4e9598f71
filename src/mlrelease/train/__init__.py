"""Release trains: several packages in several repositories released as one, each member's
release candidate bound to the upstream candidate it was built and tested against."""
