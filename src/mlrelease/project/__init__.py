"""The project itself: its version (bumps through bump-my-version), its changelog, its
exit-criteria page and its test suite, with the gates every project has."""
