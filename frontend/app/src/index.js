/* The page script of `sdcsession app` (entry): connect to the page's kernel and ask for every
widget's state at once, while the browser loads and evaluates the widget code (widgets.js,
imported here on demand).

It replaces Voila's JupyterLab front end on the app's page. Voila's front end evaluates
JupyterLab's application, notebook, console and code editor modules, then loads the widget
managers as JupyterLab extensions, before it opens the kernel's websocket (about 1.5 s of
script on a 2-core machine). The app's page shows ipywidgets' controls only (no Output widget,
no rich output), so it needs the kernel connection (@jupyterlab/services, here) and the widget
models and views (@jupyter-widgets/base, base-manager and controls, in widgets.js).

Order: open the websocket (the kernel's id is in the page's `jupyter-config-data`), send
`request_states` on the widget control comm once the kernel has answered kernel_info, import
the widget code (evaluated while the kernel serializes the widgets' state), then hand the answer
to the widget manager, which builds the models and draws the page's widget outputs. Comm messages go to the kernel's main shell (no
subshells), as with Voila's front end. When the page closes (beforeunload or pagehide) it asks
the server to shut its kernel down (the same beacon as Voila's widget manager, with the `_xsrf`
cookie).
*/
import { CommsOverSubshells } from '@jupyterlab/services/lib/kernel/comm';
import { KernelConnection } from '@jupyterlab/services/lib/kernel/default';
import { ServerConnection } from '@jupyterlab/services/lib/serverconnection';
import { UUID } from '@lumino/coreutils';

import '@lumino/widgets/style/index.css';
import '@jupyter-widgets/base/css/index.css';
import '@jupyter-widgets/controls/css/widgets.css';
import './page.css';

const CONTROL_TARGET = 'jupyter.widget.control';
const WIDGET_TARGET = 'jupyter.widget';
const STATE_TIMEOUT_MS = 60000;

function config() {
  const el = document.getElementById('jupyter-config-data');
  return el ? JSON.parse(el.textContent || '{}') : {};
}

export function showCells() {
  const spinner = document.getElementById('loading');
  if (spinner) {
    spinner.parentNode.removeChild(spinner);
  }
  const cells = document.getElementById('rendered_cells');
  if (cells) {
    cells.style.display = '';
  }
}

/* The kernel's answer to `request_states` ({data, buffers}), asked on a new control comm
(ipywidgets' control protocol 1.0.0, as `ManagerBase._loadFromKernel` asks it). */
function requestStates(kernel) {
  return new Promise((resolve, reject) => {
    const comm = kernel.createComm(CONTROL_TARGET, UUID.uuid4());
    const timer = setTimeout(() => reject(new Error('no widget state in time')), STATE_TIMEOUT_MS);
    comm.onMsg = (msg) => {
      const data = msg.content.data;
      if (data.method === 'update_states') {
        clearTimeout(timer);
        resolve({ data, buffers: msg.buffers || [] });
        comm.close();
      }
    };
    comm.onClose = () => reject(new Error('the control comm closed early'));
    comm.open({}, { version: '1.0.0' });
    comm.send({ method: 'request_states' }, {});
  });
}

async function main() {
  const page = config();
  const baseUrl = page.baseUrl || '/';
  const kernelId = page.kernelId;
  if (!kernelId) {
    showCells();
    return;
  }
  const kernel = new KernelConnection({
    model: { id: kernelId, name: 'python3' },
    serverSettings: ServerConnection.makeSettings({ baseUrl }),
    handleComms: true,
    // comm messages on the kernel's main shell, as with Voila's front end (ipywidgets' handlers
    // in the kernel are not meant to run on a subshell's thread beside the main one)
    commsOverSubshells: CommsOverSubshells.Disabled
  });
  let closed = false;
  const shutdown = () => {
    if (closed) {
      return;
    }
    closed = true;
    const form = new FormData();
    const xsrf = document.cookie.match('\\b_xsrf=([^;]*)\\b');
    form.append('_xsrf', (xsrf && xsrf[1]) || '');
    window.navigator.sendBeacon(`${baseUrl}voila/api/shutdown/${kernelId}`, form);
    kernel.dispose();
  };
  // beforeunload as Voila's widget manager; pagehide too (a closed tab may skip beforeunload)
  window.addEventListener('beforeunload', shutdown);
  window.addEventListener('pagehide', shutdown);
  // widgets the kernel opens before the manager exists wait for it
  const early = [];
  let onOpen = (comm, msg) => {
    early.push([comm, msg]);
  };
  kernel.registerCommTarget(WIDGET_TARGET, (comm, msg) => onOpen(comm, msg));
  const states = requestStates(kernel).catch((err) => {
    console.warn('sdcsession app: asking the widgets state again', err);
    return null;
  });
  // the request leaves when the kernel has answered kernel_info; the widget code is evaluated
  // after that, while the kernel serializes the widgets' state
  await kernel.info.catch(() => null);
  const widgets = await import('./widgets.js');
  const manager = widgets.createManager(kernel);
  window.sdcsessionWidgetManager = manager;
  onOpen = (comm, msg) => manager.openComm(comm, msg);
  early.splice(0).forEach(([comm, msg]) => onOpen(comm, msg));
  try {
    await manager.loadStates(await states);
  } catch (err) {
    console.error('sdcsession app: the widgets could not be loaded from the kernel', err);
  }
  await manager.renderOutputs(document);
  showCells();
}

window.themeLoaded = true;
main();
