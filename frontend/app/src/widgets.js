/* The widget manager of the app's page (loaded by index.js while the kernel answers): the
models and views of ipywidgets' base and controls modules, nothing fetched from elsewhere. */
import { ManagerBase } from '@jupyter-widgets/base-manager';
import * as base from '@jupyter-widgets/base';
import * as controls from '@jupyter-widgets/controls';
import { Widget } from '@lumino/widgets';

const WIDGET_MIME = 'application/vnd.jupyter.widget-view+json';
const MODULES = {
  '@jupyter-widgets/base': base,
  '@jupyter-widgets/controls': controls
};

function dataView(b) {
  if (b instanceof DataView) {
    return b;
  }
  return new DataView(b instanceof ArrayBuffer ? b : b.buffer);
}

class AppWidgetManager extends ManagerBase {
  constructor(kernel) {
    super();
    this.kernel = kernel;
  }

  openComm(comm, msg) {
    return this.handle_comm_open(new base.shims.services.Comm(comm), msg);
  }

  async loadClass(className, moduleName, moduleVersion) {
    const mod = MODULES[moduleName];
    if (mod === undefined || mod[className] === undefined) {
      throw new Error(`the app's page has no widget ${moduleName}@${moduleVersion} ${className}`);
    }
    return mod[className];
  }

  async _create_comm(targetName, modelId, data, metadata, buffers) {
    const comm = this.kernel.createComm(targetName, modelId);
    if (data || metadata) {
      comm.open(data, metadata, buffers);
    }
    return new base.shims.services.Comm(comm);
  }

  async _get_comm_info() {
    const reply = await this.kernel.requestCommInfo({ target_name: this.comm_target_name });
    return reply.content.status === 'ok' ? reply.content.comms : {};
  }

  /* Build the models from the kernel's answer to `request_states` (as
  `ManagerBase._loadFromKernel` does once it has the answer); without an answer, ask again
  the way ManagerBase does. */
  async loadStates(answer) {
    if (!answer) {
      return this._loadFromKernel();
    }
    const { data } = answer;
    const buffers = answer.buffers.map(dataView);
    const states = data.states;
    const paths = {};
    const groups = {};
    data.buffer_paths.forEach(([id, ...path], i) => {
      (paths[id] = paths[id] || []).push(path);
      (groups[id] = groups[id] || []).push(buffers[i]);
    });
    const comms = await Promise.all(Object.keys(states).map(async (id) => ({
      id,
      comm: this.has_model(id) ? undefined : await this._create_comm('jupyter.widget', id)
    })));
    await Promise.all(comms.map(async ({ id, comm }) => {
      const state = states[id];
      if (id in paths) {
        base.put_buffers(state, paths[id], groups[id]);
      }
      try {
        if (comm) {
          await this.new_model({
            model_name: state.model_name,
            model_module: state.model_module,
            model_module_version: state.model_module_version,
            model_id: id,
            comm
          }, state.state);
        } else {
          const model = await this.get_model(id);
          model.set_state(await model.constructor._deserialize_state(state.state, this));
        }
      } catch (err) {
        console.error(err);  // the other widgets are still drawn
      }
    }));
  }

  /* Draw the view of each widget output Voila wrote into the page (other outputs as text). */
  async renderOutputs(root) {
    const scripts = root.querySelectorAll('script[type="application/vnd.voila.cell-output+json"]');
    await Promise.all(Array.from(scripts).map((s) => this.renderOutput(s).catch((err) => {
      console.error('sdcsession app: an output could not be drawn', err);
    })));
  }

  async renderOutput(script) {
    const host = document.createElement('div');
    host.className = 'sdc-app-output';
    script.parentNode.insertBefore(host, script);
    const output = JSON.parse(script.textContent || '{}');
    const data = output.data || {};
    const view = data[WIDGET_MIME];
    if (view && view.model_id && this.has_model(view.model_id)) {
      const model = await this.get_model(view.model_id);
      const widget = await this.create_view(model);
      Widget.attach(widget.luminoWidget, host);
      return;
    }
    let text = '';
    if (output.output_type === 'error') {
      text = `${output.ename}: ${output.evalue}`;
    } else if (output.output_type === 'stream') {
      text = [].concat(output.text || '').join('');
    } else if (data['text/plain'] !== undefined) {
      text = [].concat(data['text/plain']).join('');
    }
    if (text) {
      const pre = document.createElement('pre');
      pre.className = 'sdc-app-text';
      pre.textContent = text;  // text, never markup
      host.appendChild(pre);
    }
  }
}

export function createManager(kernel) {
  return new AppWidgetManager(kernel);
}
