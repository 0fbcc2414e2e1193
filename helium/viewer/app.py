"""The viewer's web application: server-rendered pages over the project store, live updates by
server-sent events, and the approve/deny and fork actions behind a CSRF guard.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qs, urlencode

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from helium.cli.session import format_time
from helium.config import Settings
from helium.errors import HeliumError, RunNotFoundError
from helium.nodes.permissions import DENY
from helium.runner.output import redact, secrets_to_hide
from helium.state.store import ProjectStore
from helium.viewer import pages
from helium.viewer.actions import BackgroundRuns
from helium.viewer.security import RequestGuard
from helium.viewer.timeline import TimelineCache

HERE = Path(__file__).parent
POLL_SECONDS = 0.3
"""How often a live page's stream looks for a new checkpoint or status."""
HEARTBEAT_SECONDS = 15.0


def create_app(settings: Settings, *, port: int, loopback_only: bool = True,
               stopping: threading.Event | None = None) -> FastAPI:
    """The viewer of the project `settings.workspace`, for a server listening on `port`."""
    app = FastAPI(title="Helium viewer", docs_url=None, redoc_url=None, openapi_url=None)
    guard = RequestGuard(port, loopback_only=loopback_only)
    background = BackgroundRuns(settings)
    timeline = TimelineCache()
    stopping = stopping or threading.Event()
    app.state.settings = settings  # for open_store
    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.filters["when"] = format_time
    templates.env.finalize = hiding(secrets_to_hide([settings.api_key]))
    templates.env.globals.update(csrf_token=guard.token, workspace=str(settings.workspace))
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.middleware("http")
    async def check_host(request: Request, call_next: Any) -> Response:
        problem = guard.host_problem(request.headers.get("host"))
        if problem:
            return Response(problem + "\n", status_code=400, media_type="text/plain")
        response = await call_next(request)
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    @app.exception_handler(HeliumError)
    async def user_error(request: Request, exc: HeliumError) -> Response:
        status = 404 if isinstance(exc, RunNotFoundError) else 400
        return templates.TemplateResponse(request, "error.html", {"message": str(exc)}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        """A malformed query (`?all=banana`) is the error page with one line, not FastAPI's JSON."""
        problems = "; ".join(f"{'.'.join(str(part) for part in e['loc'][1:])}: {e['msg']}" for e in exc.errors())
        return templates.TemplateResponse(request, "error.html", {"message": f"bad request: {problems}"},
                                          status_code=400)

    async def form(request: Request) -> dict[str, str]:
        """The POSTed form, after the cross-site checks (a refused request raises, changing nothing)."""
        body = (await request.body()).decode("utf-8", errors="replace")
        fields = {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}
        problem = guard.post_problem(request.headers.get("host", ""), request.headers.get("origin"),
                                     request.headers.get("referer"), fields.get("csrf"))
        if problem:
            raise Refused(problem)
        return fields

    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> Response:
        return templates.TemplateResponse(request, "error.html", {"message": f"refused: {exc}"}, status_code=403)

    def runs_context(store: ProjectStore, flow: str, status: str) -> dict[str, Any]:
        return {"runs": pages.list_runs(store, flow, status), "flows": pages.flows_in(store),
                "statuses": pages.STATUSES, "flow": flow, "status": status, "reward_of": pages.reward_of,
                "query": urlencode({k: v for k, v in (("flow", flow), ("status", status)) if v}),
                "version": pages.runs_version(store)}

    @app.get("/", response_class=HTMLResponse)
    def runs_page(request: Request, store: Store, flow: str = "", status: str = "") -> Response:
        return templates.TemplateResponse(request, "runs.html", runs_context(store, flow, status))

    def run_context(store: ProjectStore, run_id: str, every_step: bool) -> dict[str, Any]:
        view = pages.run_view(store, settings, run_id, timeline, every_step=every_step)
        return {"view": view, "version": pages.run_version(store, view.run.id), "every_step": every_step,
                "driving": background.active(view.run.id)}

    @app.get("/runs/{run_id}", response_class=HTMLResponse)
    def run_page(request: Request, run_id: str, store: Store, every_step: EveryStep = False) -> Response:
        return templates.TemplateResponse(request, "run.html", run_context(store, run_id, every_step))

    @app.get("/runs/{run_id}/body", response_class=HTMLResponse)
    def run_body(request: Request, run_id: str, store: Store, every_step: EveryStep = False) -> Response:
        """The part of the run page that changes; the live page fetches it on every change."""
        return templates.TemplateResponse(request, "run_body.html", run_context(store, run_id, every_step))

    @app.get("/runs/{run_id}/events")
    async def run_events(request: Request, run_id: str) -> StreamingResponse:
        store = await run_in_threadpool(ProjectStore, settings.db_path)
        try:
            run = await run_in_threadpool(store.runs.get, run_id)
        except BaseException:
            store.close()
            raise
        return _event_stream(request, store, lambda: pages.run_version(store, run.id), stopping)

    @app.get("/runs-body", response_class=HTMLResponse)
    def runs_body(request: Request, store: Store, flow: str = "", status: str = "") -> Response:
        """The runs table; the live list fetches it whenever a run starts or changes status."""
        return templates.TemplateResponse(request, "runs_body.html", runs_context(store, flow, status))

    @app.get("/events")
    async def runs_events(request: Request) -> StreamingResponse:
        store = await run_in_threadpool(ProjectStore, settings.db_path)
        return _event_stream(request, store, lambda: pages.runs_version(store), stopping)

    @app.post("/runs/{run_id}/approve")
    async def approve(request: Request, run_id: str) -> Response:
        fields = await form(request)
        everyone = fields.get("all", "")  # the Approve / Deny buttons answer every pending call
        answers = {} if everyone else {key.removeprefix("decision:"): value for key, value in fields.items()
                                       if key.startswith("decision:")}
        resumed = await run_in_threadpool(background.answer, run_id, answers, everyone or DENY)
        return RedirectResponse(f"/runs/{resumed}", status_code=303)

    @app.post("/runs/{run_id}/fork")
    async def fork(request: Request, run_id: str) -> Response:
        fields = await form(request)
        child = await run_in_threadpool(background.fork, run_id, fields.get("at", ""), fields.get("message", ""))
        return RedirectResponse(f"/runs/{child}", status_code=303)

    return app


def hiding(secrets: list[str]) -> Callable[[Any], Any]:
    """A template finalizer that replaces this process's API keys in everything a page shows (a tool may
    have read a `.env` file into a run's messages); HTML marked safe stays safe."""

    def finalize(value: Any) -> Any:
        if not secrets or not isinstance(value, str):
            return value
        hidden = redact(str(value), secrets)
        return Markup(hidden) if isinstance(value, Markup) else hidden

    return finalize


class Refused(Exception):
    """A POST that failed the cross-site checks."""


def open_store(request: Request) -> Iterator[ProjectStore]:
    """A store connection for one request (uvicorn serves requests on several threads)."""
    with ProjectStore(request.app.state.settings.db_path) as store:
        yield store


Store = Annotated[ProjectStore, Depends(open_store)]
EveryStep = Annotated[bool, Query(alias="all", description="Show every checkpoint, not only the newest.")]


def _event_stream(request: Request, store: ProjectStore, version: Callable[[], str],
                  stopping: threading.Event) -> StreamingResponse:
    return StreamingResponse(_changes(request, store, version, stopping), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def _changes(request: Request, store: ProjectStore, version_of: Callable[[], str],
                   stopping: threading.Event) -> AsyncIterator[str]:
    """Server-sent events: `change` with the page's version whenever it changes (the page then fetches its body);
    `store` is this stream's own connection, closed when the page goes away or the viewer stops."""
    last, quiet = None, 0.0
    try:
        while not stopping.is_set() and not await request.is_disconnected():
            version = await run_in_threadpool(version_of)
            if version != last:
                yield f"event: change\ndata: {json.dumps(version)}\n\n"
                last, quiet = version, 0.0
            elif quiet >= HEARTBEAT_SECONDS:
                yield ": still here\n\n"
                quiet = 0.0
            await asyncio.sleep(POLL_SECONDS)
            quiet += POLL_SECONDS
    finally:
        await run_in_threadpool(store.close)
