"""The web viewer: every run of a project, its steps live, approvals and forks from the page.

`helium view` serves it in the foreground; `serve_in_thread` serves it beside other work (the task
runner's `watch=True`).
"""

from helium.viewer.server import ViewerHandle, serve_in_thread

__all__ = ["ViewerHandle", "serve_in_thread"]
