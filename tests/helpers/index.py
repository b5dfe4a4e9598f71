"""A package index on 127.0.0.1 (pypiserver, no authentication, no overwrites): the upload
target of the publishing tests; PyPI is never contacted."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def serve(packages: Path) -> Iterator[str]:
    """Run pypiserver over ``packages``; yields its upload URL (``http://127.0.0.1:PORT/``)."""
    packages.mkdir(parents=True, exist_ok=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "pypiserver", "run", "-i", "127.0.0.1", "-p", str(port),
         "-a", ".", "-P", ".", str(packages)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(100):  # at most ~20 s for the server to answer
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        else:
            raise RuntimeError("pypiserver did not start on 127.0.0.1")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
