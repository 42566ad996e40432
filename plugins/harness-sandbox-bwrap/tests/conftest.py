from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the workspace holding a secret and a target file."""
    root = tmp_path / "outside"
    root.mkdir()
    (root / "secret.txt").write_text("TOP-SECRET-VALUE\n")
    (root / "target.txt").write_text("original\n")
    return root


@pytest.fixture
def loopback_server() -> Iterator[int]:
    """A TCP server on 127.0.0.1 answering every connection with ``hello-from-host``; yields its port."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"hello-from-host\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join(timeout=5)
    listener.close()
