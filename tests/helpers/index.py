"""A package index on 127.0.0.1 (pypiserver, no authentication, no overwrites): the upload
target of the publishing tests; PyPI is never contacted (``--disable-fallback``: a project the
index lacks is a 404, not a redirect to pypi.org)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def start(packages: Path, hash_algo: str = "sha256") -> tuple[subprocess.Popen[bytes], str]:
    """Start pypiserver over ``packages``; (the process, its upload URL). ``hash_algo`` is the
    fragment its simple pages give (``sha256``, ``md5``, or ``off`` for none)."""
    packages.mkdir(parents=True, exist_ok=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "pypiserver", "run", "-i", "127.0.0.1", "-p", str(port),
         "-a", ".", "-P", ".", "--disable-fallback", "--hash-algo", hash_algo,
         "--backend", "simple-dir", str(packages)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    for _ in range(100):  # at most ~20 s for the server to answer
        try:
            urllib.request.urlopen(url, timeout=1).close()
            return server, url
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError("pypiserver did not start on 127.0.0.1")


def stop(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    server.wait(timeout=30)


@contextmanager
def serve(packages: Path, hash_algo: str = "sha256") -> Iterator[str]:
    """Run pypiserver over ``packages``; yields its upload URL (``http://127.0.0.1:PORT/``)."""
    server, url = start(packages, hash_algo)
    try:
        yield url
    finally:
        stop(server)
