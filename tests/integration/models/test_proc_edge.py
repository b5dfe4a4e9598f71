"""The process-isolation edge on real processes: limits, timeouts, the group, the scratch."""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest

from mlrelease.edges import proc

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="rlimits and groups: Linux")


def python(code: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code)]


def test_ok_with_output_and_input() -> None:
    done = proc.run(python("import sys; print(sys.stdin.read().upper())"), input=b"hi")
    assert done.status is proc.ChildStatus.OK and done.stdout.strip() == b"HI" and not done.reason


def test_timeout_kills_the_whole_group_and_removes_the_scratch(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild.pid"
    code = f"""
        import os, subprocess, sys, tempfile, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open({str(marker)!r}, "w").write(str(child.pid))
        open(os.path.join(tempfile.gettempdir(), "left.txt"), "w").write("x")
        print(tempfile.gettempdir(), flush=True)
        time.sleep(60)
    """
    started = time.monotonic()
    done = proc.run(python(code), limits=proc.Limits(wall_s=3), scratch=True)
    assert time.monotonic() - started < 20
    assert done.status is proc.ChildStatus.TIMEOUT and done.killed, done
    scratch = Path(done.stdout.decode().strip())
    assert scratch.name.startswith("mlrelease-scratch-") and not scratch.exists()
    grandchild = int(marker.read_text())
    assert _dead(grandchild), "the grandchild survived its group"


def _dead(pid: int) -> bool:
    """Gone, or a zombie waiting for whichever process adopted it to reap it."""
    for _ in range(50):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.1)
    return False


def test_memory_limit_is_set_before_the_child_runs() -> None:
    done = proc.run(
        python("""
            import resource, sys
            print(resource.getrlimit(resource.RLIMIT_AS)[0])
            b = bytearray(512 * 2**20)
        """),
        limits=proc.Limits(memory_mb=256, wall_s=30),
    )
    assert done.stdout.split()[0] == str(256 * 2**20).encode()
    assert done.status is proc.ChildStatus.CRASH and b"MemoryError" in done.stderr


def test_cpu_limit_stops_a_spinning_child() -> None:
    done = proc.run(python("while True: pass"), limits=proc.Limits(cpu_s=1, wall_s=30))
    assert done.status is proc.ChildStatus.TIMEOUT and "SIGXCPU" in done.reason, done


def test_a_program_that_cannot_start_is_a_crash_not_an_exception(tmp_path: Path) -> None:
    done = proc.run([str(tmp_path / "no-such-program")])
    assert done.status is proc.ChildStatus.CRASH and "cannot start" in done.reason
