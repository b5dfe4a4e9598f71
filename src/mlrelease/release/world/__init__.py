"""The release world: what every release command decides on, read once before any planner runs.

:mod:`.snapshot` (the immutable :class:`~.snapshot.World` and its parts; pure), :mod:`.reader`
(the one reader: the base, then what each verb's ask needs), :mod:`.refs` (this clone's and
origin's refs), :mod:`.queries` (the git questions the reader asks) and :mod:`.made` (the record
of the tags release commands made in this clone).
"""
