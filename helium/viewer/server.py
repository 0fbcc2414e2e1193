"""Serving the viewer: bind a socket (loopback unless asked otherwise), run uvicorn in the foreground
(`helium view`) or on a thread (`serve_in_thread`, for `AgentRunner(watch=True)`).

Binding happens here, before uvicorn starts, so a port in use is one clear error instead of a
uvicorn `sys.exit` inside a thread, and port 0 (any free port) reports the port it got.
"""

from __future__ import annotations

import ipaddress
import signal
import socket
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import uvicorn

from helium.config import load_settings
from helium.errors import ConfigError, HeliumError
from helium.viewer.app import create_app

STARTUP_TIMEOUT_SECONDS = 15.0


@dataclass
class ViewerHandle:
    """A viewer serving on a thread of this process: open `url`, call `stop()` when done."""

    url: str
    _server: uvicorn.Server = field(repr=False)
    _thread: threading.Thread = field(repr=False)
    _stopping: threading.Event = field(repr=False)

    def stop(self) -> None:
        """Close the live-update streams, shut the server down and wait for its thread."""
        self._stopping.set()
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def __enter__(self) -> ViewerHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_host(host: str, allow_remote: bool) -> str | None:
    """Refuse a non-loopback host unless `allow_remote`; with it, return the warning to print."""
    if is_loopback(host):
        return None
    if not allow_remote:
        raise ConfigError(f"--host {host} would show every run and allow approvals from other machines; "
                          "pass --allow-remote to do it anyway, or keep the default 127.0.0.1")
    return (f"warning: the viewer on {host} can be reached from other machines: anyone who can reach it sees "
            "your runs and can approve tool calls")


def bind(host: str, port: int) -> socket.socket:
    if not 0 <= port <= 65535:
        raise ConfigError(f"--port {port} is not a port: use 1-65535, or 0 for any free port")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except socket.gaierror as exc:
        sock.close()
        raise ConfigError(f"cannot serve the viewer on {host}: {exc.strerror or exc}; check --host") from None
    except OSError as exc:
        sock.close()
        raise HeliumError(f"cannot serve the viewer on {host}:{port}: {exc.strerror or exc}; "
                          "pick another port with --port") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _server_for(workspace: Path, sock: socket.socket, host: str,
                stopping: threading.Event) -> tuple[uvicorn.Server, str]:
    port = sock.getsockname()[1]
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{port}"
    settings = load_settings(workspace)
    app = create_app(settings, port=port, loopback_only=is_loopback(host), stopping=stopping)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=3, lifespan="off")
    return uvicorn.Server(config), url


def serve_in_thread(workspace: Path, host: str = "127.0.0.1", port: int = 8080, *,
                    allow_remote: bool = False) -> ViewerHandle:
    """Serve the viewer of the project in `workspace` on a daemon thread; returns once it accepts requests."""
    warning = check_host(host, allow_remote)
    if warning:
        print(warning, file=sys.stderr)
    sock = bind(host, port)
    stopping = threading.Event()
    server, url = _server_for(Path(workspace), sock, host, stopping)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="helium-viewer", daemon=True)
    thread.start()
    waited = 0.0
    while not server.started and thread.is_alive() and waited < STARTUP_TIMEOUT_SECONDS:
        stopping.wait(0.02)
        waited += 0.02
    if not server.started:
        stopping.set()
        server.should_exit = True
        sock.close()
        raise HeliumError(f"the viewer did not start on {url}")
    return ViewerHandle(url, server, thread, stopping)


def serve_forever(workspace: Path, host: str, port: int, *, allow_remote: bool) -> None:
    """`helium view`: serve until Ctrl-C."""
    warning = check_host(host, allow_remote)
    sock = bind(host, port)
    stopping = threading.Event()
    server, url = _server_for(workspace, sock, host, stopping)

    def handle_exit(sig: int, frame: object) -> None:
        """Ctrl-C: end the live-update streams (open pages would hold shutdown up) and stop; twice: at once."""
        stopping.set()
        server.force_exit = server.should_exit
        server.should_exit = True

    server.handle_exit = handle_exit  # type: ignore[method-assign]  # uvicorn's re-raises the signal (exit 130)
    previous = {sig: signal.signal(sig, handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}  # until uvicorn's
    if warning:
        print(warning, file=sys.stderr)
    print(f"Helium viewer on {url}  (Ctrl-C stops it)", flush=True)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("viewer stopped", flush=True)
