"""The hardened Voilà server behind ``sdcsession app``: run as
``python -m sdcsession.present.workbench.serve NOTEBOOK [voila options]``.

What it adds to Voilà (0.5, standalone), and why:

- **Token.** Every request must carry the token (``?token=...`` in the URL the app prints, then
  the login cookie); Voilà's identity provider refuses the others (403, or the login page). The
  token is read from the environment variable ``SDCSESSION_APP_TOKEN`` (never from the command
  line, where any local user could read it in the process list).
- **Host check.** Voilà sets ``allow_remote_access=True`` in its Tornado settings, which switches
  off Jupyter server's Host-header check; `HardenedVoila` sets it back to ``False`` with
  ``local_hostnames=["localhost"]``, so a request whose Host header is not a loopback address or
  ``localhost`` is refused with 403 (DNS rebinding: a web page on a foreign name that resolves to
  127.0.0.1 cannot reach the app).
- **Kernel cap.** `CappedKernelManager` refuses (503) to start a kernel when ``max_kernels``
  kernels run already; each kernel reads the confidential file and takes 200-400 MB.
- **Shut down on close or when idle.** Voilà's page asks the server to shut its kernel down when it
  is closed (a ``beforeunload`` beacon, which carries the ``_xsrf`` cookie; Voilà's page handler
  never sets that cookie, so `XsrfCookieVoilaHandler` does, else the server refuses the beacon
  with 403 and the kernel runs on until culled); kernels whose page went away without saying so are culled after
  ``MappingKernelManager.cull_idle_timeout`` seconds without activity (``run_app`` sets it).
- **No request to another host.** The page is drawn with the template ``sdcsession``
  (``jupyter/voila/templates/sdcsession`` beside this module, found through ``JUPYTER_PATH``):
  Voilà's lab template without its two Font Awesome stylesheets on a CDN (the page shows no
  icon) nor nbconvert's mermaid loader, so the page fetches nothing but the app's own URLs.
- **A light page.** The same template runs the app's own front end (``static/sdcsession-app.js``
  and ``.css``, built by ``frontend/app`` in the repository: the kernel connection, then
  ipywidgets' controls, 0.7 MB in all) instead of Voilà's JupyterLab front end (JupyterLab's
  application, notebook and console modules, then the widget managers as extensions: about
  1.5 s of script before the kernel's websocket opens on a 2-core machine). The script asks the
  kernel for the widgets' state before it evaluates the widget code, so the kernel serializes
  the state meanwhile. The entry and the stylesheet carry a content hash in their URL (``?v=``,
  served with ``Cache-Control: max-age``), the chunks they import one in their names.
- **Warm pool within the cap.** With ``--preheat_kernel=True --pool_size=N`` (``run_app`` passes
  them) Voilà keeps ``N`` kernels that have run the notebook, ready for the next page;
  `sdcsession.present.workbench.pool` keeps pages plus pooled kernels within the cap.

Example
-------
>>> import os
>>> os.environ.get("SDCSESSION_APP_TOKEN") is None or True
True
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["TOKEN_ENV", "MAX_KERNELS_ENV", "main"]

#: environment variable holding the app's token
TOKEN_ENV = "SDCSESSION_APP_TOKEN"
#: environment variable holding the cap on concurrent kernels
MAX_KERNELS_ENV = "SDCSESSION_APP_MAX_KERNELS"
#: the Voilà template of the page (in ``TEMPLATE_ROOT/voila/templates``)
TEMPLATE = "sdcsession"
#: a Jupyter data directory holding the page's template
TEMPLATE_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jupyter")


def _page_handler() -> None:
    """Serve the page with `XsrfCookieVoilaHandler` (Voilà's app looks the handler class up in
    ``voila.app`` when it starts)."""
    import voila.app as voila_app

    base = voila_app.TornadoVoilaHandler
    if getattr(base, "sets_xsrf_cookie", False):
        return

    class XsrfCookieVoilaHandler(base):  # type: ignore[misc, valid-type]
        """Voilà's page handler that sets the ``_xsrf`` cookie, which the page's shutdown
        beacon (sent when the page closes) must carry."""

        sets_xsrf_cookie = True

        async def prepare(self, *args: Any, **kwargs: Any) -> None:
            await super().prepare(*args, **kwargs)
            self.xsrf_token  # noqa: B018 - reading it sets the cookie

    voila_app.TornadoVoilaHandler = XsrfCookieVoilaHandler


def _classes(cap: int) -> tuple[type, type]:
    """`HardenedVoila` and `CappedKernelManager` with ``max_kernels=cap`` (Voilà is imported
    here, not at module level)."""
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
    from tornado import web
    from voila.app import Voila

    class CappedKernelManager(AsyncMappingKernelManager):  # type: ignore[misc]
        """A kernel manager that refuses to start more than ``max_kernels`` kernels (503)."""

        max_kernels = cap

        async def start_kernel(self, *args: Any, **kwargs: Any) -> str:
            if len(self.list_kernel_ids()) >= self.max_kernels:
                raise web.HTTPError(503, f"the workbench is open in {self.max_kernels} pages "
                                         "already; close one and reload")
            return await super().start_kernel(*args, **kwargs)

    class HardenedVoila(Voila):  # type: ignore[misc]
        """Voilà with Jupyter server's Host check switched back on (loopback names only)."""

        def init_settings(self) -> dict[str, Any]:
            settings = super().init_settings()
            settings["allow_remote_access"] = False
            settings["local_hostnames"] = ["localhost"]
            return settings

    return HardenedVoila, CappedKernelManager


def main(argv: list[str] | None = None) -> None:
    """Start the hardened Voilà with ``argv`` (Voilà's own options) plus the token and cap."""
    token = os.environ.get(TOKEN_ENV, "")
    if len(token) < 16:
        raise SystemExit(f"{TOKEN_ENV}: expected a random token of at least 16 characters")
    cap = int(os.environ.get(MAX_KERNELS_ENV, "3"))
    if cap < 1:
        raise SystemExit(f"{MAX_KERNELS_ENV}: expected an integer >= 1, got {cap}")
    hardened, capped = _classes(cap)
    from .pool import install

    install(cap)  # a warm pool (when asked for) stays within the cap
    _page_handler()  # the page's shutdown beacon is accepted
    # the page's template (no URL to another host) is found in TEMPLATE_ROOT
    paths = [TEMPLATE_ROOT, *filter(None, os.environ.get("JUPYTER_PATH", "").split(os.pathsep))]
    os.environ["JUPYTER_PATH"] = os.pathsep.join(dict.fromkeys(paths))
    app = hardened.instance()
    app.initialize([f"--template={TEMPLATE}", *(sys.argv[1:] if argv is None else argv)])
    # after the command line: the token comes from the environment only
    app.token = token
    app.voila_configuration.multi_kernel_manager_class = capped
    app.start()


if __name__ == "__main__":  # pragma: no cover - run by run_app in a subprocess
    main()
