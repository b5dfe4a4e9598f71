"""The checklist and the hints name commands the adopter has: its sessions and tasks as nox and
invoke list them (imported ones too), the mlrelease command where a tool cannot tell, and the
project's own command where its ``checklist`` declares one."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.repo import git, mlrelease
from test_adoption_release_models import adopted

SHARED = '''"""Sessions shared by the projects of an organisation (a package, in real life)."""
import nox


@nox.session
def release_verify(session: nox.Session) -> None:
    """Check every exit criterion."""


@nox.session
def wheels(session: nox.Session) -> None:
    """Build the wheels."""
'''


def _commit(root: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def test_imported_nox_sessions_are_the_projects_own(tmp_path: Path) -> None:
    """No ``def release_verify(`` in noxfile.py, yet nox lists the session: the checklist
    runs it (a text search of noxfile.py said it was not there)."""
    root = adopted(tmp_path)
    # The shared sessions come from a module beside the noxfile (a package, in real life).
    noxfile = (
        "import sys\nfrom pathlib import Path\n\nsys.path.insert(0, str(Path(__file__).parent))\n"
        "from shared_sessions import *  # noqa: E402, F403\n"
    )
    _commit(root, {"shared_sessions.py": SHARED, "noxfile.py": noxfile}, "build: nox sessions")
    proc = mlrelease(root, "release", "checklist", "--version", "1.4.1")
    assert proc.returncode == 0, proc.stderr
    assert "nox -s release_verify" in proc.stderr and "nox -s wheels" in proc.stderr, proc.stderr
    assert "mlrelease verify" not in proc.stderr


def test_a_noxfile_nox_cannot_read_falls_back_and_says_so(tmp_path: Path) -> None:
    """The noxfile names the session, but nox cannot load it: the mlrelease command runs,
    and the checklist says why."""
    root = adopted(tmp_path)
    noxfile = "import not_installed_here  # noqa: F401\n\n" + SHARED.split('"""', 2)[2]
    _commit(root, {"noxfile.py": noxfile}, "build: a noxfile needing a missing package")
    proc = mlrelease(root, "release", "checklist", "--version", "1.4.1")
    said = " ".join(proc.stderr.split())
    assert proc.returncode == 0, said
    assert "nox -s release_verify" not in said and "mlrelease verify" in said, said
    assert "could not list the sessions of noxfile.py" in said, said
    assert "Steps verify, wheels, rc-verify run the mlrelease command" in said, said


def test_after_an_rc_status_names_the_projects_declared_commands(tmp_path: Path) -> None:
    """A project whose ``checklist`` declares its own verification command is told to run
    that one after a release candidate, not mlrelease's."""
    root = adopted(tmp_path)
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text().replace('"changelog", ', "")  # the RC needs no section
    text = text.replace('current_version = "1.4.0"', 'current_version = "1.4.1"')
    steps = "".join(
        f'\n[[tool.mlrelease.release.checklist]]\nid = "{id}"\ntitle = "{id}"\nrun = {run}\n'
        for id, run in (
            ("rc", '["mlrelease", "release", "rc", "--execute", "--push"]'),
            ("rc-verify", '["make", "release-check", "RC={rc_tag}"]'),
            ("promote", '["./release.sh", "promote", "{rc_tag}"]'),
        )
    )
    files = {"pyproject.toml": text + steps, "src/pkg/__init__.py": '__version__ = "1.4.1"\n'}
    _commit(root, files, "chore: 1.4.1, with the project's own release commands")
    proc = mlrelease(root, "release", "rc", "--execute", "--push")
    assert proc.returncode == 0, proc.stderr
    proc = mlrelease(root, "release", "status", "--json")
    assert proc.returncode == 0, proc.stderr
    hint = json.loads(proc.stdout)["next"]["prepare"]
    assert hint.startswith("not proposed: HEAD is v1.4.1rc1"), hint
    assert "(`make release-check RC=v1.4.1rc1`)" in hint, hint
    assert "then `./release.sh promote v1.4.1rc1`" in hint, hint
    assert "mlrelease verify" not in hint, hint


def test_a_gates_advice_names_an_mlrelease_command(tmp_path: Path) -> None:
    """The changelog gate's fix is a command every adopter has, not mlrelease's own session."""
    root = adopted(tmp_path)
    (root / "src/pkg/__init__.py").write_text('__version__ = "1.4.1"\n', encoding="utf-8")
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text().replace('current_version = "1.4.0"', 'current_version = "1.4.1"')
    _commit(root, {"pyproject.toml": text}, "chore: 1.4.1")
    proc = mlrelease(root, "verify", "--only", "changelog")
    assert proc.returncode != 0, proc.stderr
    said = (root / "build/release-verify/report.md").read_text(encoding="utf-8")
    assert "Run `mlrelease changelog --bump 1.4.1 --execute`" in said, said
    assert "nox -s" not in said, said
