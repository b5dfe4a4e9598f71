"""Moved to :mod:`mlrelease.edges.git`; kept until every importer uses the new path."""

from mlrelease.edges.git import GitError, current_branch, dirty_files, head, is_repo, run, tags_at

__all__ = ["GitError", "current_branch", "dirty_files", "head", "is_repo", "run", "tags_at"]
