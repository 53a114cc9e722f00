"""The workbench as a local web app: ``sdcsession app data.csv`` (Voilà on 127.0.0.1).

`app_notebook` writes a small notebook that reads the data file, starts the workbench
(`sdcsession.present.workbench.widget.workbench`) with the roles given on the command line (or with
the Roles panel open when no key variables are given) and displays it; `run_app` serves it
with Voilà bound to the loopback interface, so the page is reachable from this machine only and
the data never leave it (the kernel reads the file locally; the browser receives the widgets).
The notebook lives in a temporary directory that is removed when the server stops.

A warm pool (``pool`` kernels, default 1; `sdcsession.present.workbench.pool`) has run the
notebook before a page asks for it, so the page is ready in about a second; while it waits it
keeps the offer to resume the autosaved project current (`watch_resume`). The page runs the
app's own front end (the kernel connection and ipywidgets' controls, 0.7 MB of script, not
Voilà's JupyterLab front end; see `sdcsession.present.workbench.serve`) and draws a tab's page
when the tab is first shown (``lazy_tabs``).

Hardening (`sdcsession.present.workbench.serve` runs Voilà): the URL printed at start carries a
random token (`new_token`) and requests without it are refused; a Host header that is not a
loopback name is refused (DNS rebinding); at most ``max_kernels`` pages run a kernel at once; a
kernel stops when its page closes or after ``idle_minutes`` without its page; the data file's name
is shown as text (escaped), never as markup.

Example
-------
>>> import json, tempfile
>>> from pathlib import Path
>>> nb = app_notebook("survey.csv", keys=["sex", "region"], seed=1)
>>> code = nb["cells"][1]["source"]
>>> "workbench(df, seed=1, keys=['sex', 'region'], path=" in code and "lazy_tabs=True" in code
True
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import DataFileError, MissingDependencyError, ParameterError, install_hint
from ...methods.params import check_bool

__all__ = ["app_notebook", "write_app_notebook", "voila_command", "free_port", "run_app",
           "new_token", "app_environment"]

#: the largest websocket message the app accepts: an upload of `data.MAX_UPLOAD` bytes and more
UPLOAD_MESSAGE_BYTES = 201 * 2**20
#: the JupyterLab extensions named in the page's configuration: the widget managers only (the
#: app's front end loads none; with Voilà's own front end, the other extensions installed beside
#: Voilà cost the page their scripts and draw nothing in the app)
PAGE_EXTENSIONS = ("@jupyter-widgets/jupyterlab-manager", "@voila-dashboards/widgets-manager8",
                   "@voila-dashboards/widgets-manager7")
_ROLE_ARGS = ("keys", "numeric", "weight", "household", "strata", "sensitive", "identifiers")


def app_notebook(data: str | Path, *, seed: int | None = None, sep: str | None = None,
                 **roles: Any) -> dict[str, Any]:
    """The app's notebook (nbformat 4, as a dict): read ``data``, show the workbench.

    ``roles`` are keyword arguments of `SdcSession` (``keys``, ``numeric``, ``weight``, ...);
    every value is written as a Python literal (``repr`` of str / list / int), never as code
    taken from the user.
    """
    unknown = sorted(set(roles) - set(_ROLE_ARGS))
    if unknown:
        raise ParameterError(f"app: unknown role argument(s) {unknown}; expected some of "
                             f"{list(_ROLE_ARGS)}")
    for k, v in roles.items():
        ok = v is None or isinstance(v, str) or (
            isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v))
        if not ok:
            raise ParameterError(f"{k}: expected a column name or a list of names, got {v!r:.60}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ParameterError(f"seed: expected an integer, got {seed!r:.60}")
    path = str(Path(data).expanduser().resolve())
    read_kw = f", sep={sep!r}" if sep else ""
    args = [f"seed={seed!r}"] + [f"{k}={list(v) if isinstance(v, tuple) else v!r}"
                                 for k, v in roles.items() if v not in (None, [], ())]
    code = "\n".join([
        "import sdcsession as sdc",
        "from sdcsession.present.workbench.pool import watch_resume",
        "from sdcsession.present.workbench.share import share_defaults",
        "from sdcsession.present.workbench.widget import workbench",
        "",
        f"df = sdc.io.read_data({path!r}{read_kw})",
        f"wb = workbench(df, {', '.join(args)}, path={path!r}, lazy_tabs=True)",
        "watch_resume(wb)  # a warm kernel offers the autosave the page before wrote",
        "share_defaults(wb)  # one default Layout / Style model per class: a lighter first page",
        "wb",
    ])
    # no user text in markdown (it would be rendered as HTML): the workbench shows the file name,
    # escaped, from the string literal above
    md = "Served from this machine only (127.0.0.1)."
    return {
        "cells": [{"cell_type": "markdown", "id": "about", "metadata": {}, "source": md},
                  {"cell_type": "code", "execution_count": None, "id": "workbench",
                   "metadata": {}, "outputs": [], "source": code}],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                    "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }


def write_app_notebook(directory: str | Path, data: str | Path, *, overwrite: bool = False,
                       **kw: Any) -> Path:
    """Write `app_notebook` to ``directory/workbench.ipynb`` and return its path (an existing
    notebook only with ``overwrite=True``, never the data file)."""
    import json

    from ...io.write import write_text

    out = Path(directory) / "workbench.ipynb"
    return write_text(out, json.dumps(app_notebook(data, **kw), indent=1), overwrite=overwrite,
                      protect=data)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the operating system picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def voila_command(notebook: str | Path, *, port: int, open_browser: bool = True,
                  idle_minutes: float = 30.0, pool: int = 1) -> list[str]:
    """The command line that serves ``notebook`` with the hardened Voilà
    (`sdcsession.present.workbench.serve`) on ``127.0.0.1:port``; a kernel idle (no page
    connected, no activity) for ``idle_minutes`` is shut down; ``pool`` warm kernels wait for
    the next page (0: each page starts its own kernel).

    The token and the cap on kernels are passed in the environment (`app_environment`), not
    on this command line. `MissingDependencyError` when Voilà is not installed (the ``gui``
    extra).
    """
    import importlib.util

    if importlib.util.find_spec("voila") is None or importlib.util.find_spec("ipywidgets") is None:
        raise MissingDependencyError(
            "app: needs voila and ipywidgets; install them with " + install_hint("gui"))
    idle = max(1, round(float(idle_minutes) * 60))
    cmd = [sys.executable, "-m", "sdcsession.present.workbench.serve", str(notebook),
           f"--port={int(port)}", "--Voila.port_retries=0", "--Voila.ip=127.0.0.1",
           "--show_tracebacks=False", "--strip_sources=True",
           f"--MappingKernelManager.cull_idle_timeout={idle}",
           f"--MappingKernelManager.cull_interval={max(1, min(60, idle // 2))}",
           "--MappingKernelManager.cull_connected=False",
           # an uploaded data file arrives in one websocket message (Tornado's default: 10 MiB)
           f'--Voila.tornado_settings={{"websocket_max_message_size": {UPLOAD_MESSAGE_BYTES}}}',
           f"--VoilaConfiguration.extension_allowlist={list(PAGE_EXTENSIONS)!r}"]
    if pool:
        cmd += ["--preheat_kernel=True", f"--pool_size={int(pool)}"]
    if not open_browser:
        cmd.append("--no-browser")
    return cmd


def new_token() -> str:
    """A random token for the app's URL (32 URL-safe characters from `secrets`)."""
    import secrets

    return secrets.token_urlsafe(24)


def app_environment(token: str, *, max_kernels: int = 3) -> dict[str, str]:
    """The environment of the Voilà process: this one plus the token and the kernel cap."""
    import os

    from .serve import MAX_KERNELS_ENV, TOKEN_ENV

    if isinstance(max_kernels, bool) or not isinstance(max_kernels, int) or max_kernels < 1:
        raise ParameterError(f"max_kernels: expected an integer >= 1, got {max_kernels!r:.60}")
    return dict(os.environ, **{TOKEN_ENV: token, MAX_KERNELS_ENV: str(max_kernels)})


def run_app(data: str | Path, *, port: int | None = None, open_browser: bool = True,
            seed: int | None = None, sep: str | None = None, max_kernels: int = 3,
            idle_minutes: float = 30.0, token: str | None = None, pool: int = 1,
            **roles: Any) -> int:
    """Serve the workbench for the file ``data`` until interrupted (Ctrl-C); the exit code of
    Voilà (0 after Ctrl-C). Every argument is checked before anything starts.

    The URL printed at start carries a random token (``token`` when given, at least 16
    characters); requests without it, or with a Host header that is not a loopback name, are
    refused. At most ``max_kernels`` pages are open at once; a page's kernel stops when the page
    closes or after ``idle_minutes`` without a page connected. ``pool`` kernels (at most
    ``max_kernels - 1``, so a page always has room) run the notebook ahead of the next page,
    so it is ready in about a second (0: each page starts its own kernel, 4-7 s).
    """
    if not isinstance(data, (str, Path)) or not str(data).strip() or "\x00" in str(data):
        raise ParameterError(f"data: expected the path of a data file, got {data!r:.60}")
    path = Path(data).expanduser()
    if not path.is_file():
        raise DataFileError(f"app: no data file {str(path)!r}")
    if port is not None and (isinstance(port, (bool, np.bool_))
                             or not isinstance(port, (int, np.integer)) or not 0 < port < 65536):
        raise ParameterError(f"port: expected an integer in [1, 65535] or None, got {port!r:.40}")
    port = None if port is None else int(port)
    open_browser = check_bool("open_browser", open_browser)
    if sep is not None and (not isinstance(sep, str) or not sep):
        raise ParameterError(f"sep: expected a delimiter (text) or None, got {sep!r:.40}")
    app_notebook(path, seed=seed, sep=sep, **roles)  # checks the seed and the roles
    if token is not None and not isinstance(token, str):
        raise ParameterError(f"token: expected text or None, got {type(token).__name__}")
    if isinstance(max_kernels, (bool, np.bool_)) or not isinstance(max_kernels, (int, np.integer)) \
            or max_kernels < 1:
        raise ParameterError(f"max_kernels: expected an integer >= 1, got {max_kernels!r:.40}")
    max_kernels = int(max_kernels)
    if isinstance(pool, (bool, np.bool_)) or not isinstance(pool, (int, np.integer)) or pool < 0:
        raise ParameterError(f"pool: expected an integer >= 0, got {pool!r:.40}")
    pool = min(int(pool), max_kernels - 1)
    if isinstance(idle_minutes, (bool, np.bool_)) or not isinstance(
            idle_minutes, (int, float, np.integer, np.floating)) or not (
            idle_minutes > 0 and idle_minutes < float("inf")):
        raise ParameterError(f"idle_minutes: expected a number > 0, got {idle_minutes!r:.40}")
    port = free_port() if port is None else port
    token = new_token() if token is None else token
    if len(token) < 16 or not token.replace("-", "").replace("_", "").isalnum():
        raise ParameterError("token: expected at least 16 letters, digits, '-' or '_'")
    env = app_environment(token, max_kernels=max_kernels)
    tmp = tempfile.mkdtemp(prefix="sdcsession-app-")
    main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGTERM, _interrupt) if main else None
    try:
        nb = write_app_notebook(tmp, path, seed=seed, sep=sep, **roles)
        cmd = voila_command(nb, port=port, open_browser=False, idle_minutes=idle_minutes,
                            pool=pool)
        url = f"http://127.0.0.1:{port}/?token={token}"
        print(f"sdcsession app: {url} (Ctrl-C stops it)", file=sys.stderr, flush=True)
        # its own session: Ctrl-C reaches this process only, which stops Voilà (and its kernels)
        proc = subprocess.Popen(cmd, cwd=tmp, start_new_session=True, env=env)
        if open_browser:
            _open_browser(url)
        try:
            return proc.wait()
        except KeyboardInterrupt:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
            return 0
    finally:
        if main:
            signal.signal(signal.SIGTERM, old)
        shutil.rmtree(tmp, ignore_errors=True)


def _open_browser(url: str) -> None:
    import webbrowser

    threading.Timer(2.0, lambda: webbrowser.open(url)).start()


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
