/**
 * A private containerd's configuration: every socket, state and plugin
 * directory below the runtime's base directory, CRI with host networking
 * and our images, NRI on with its socket, plugin directory and config
 * directory there too. containerd 2.3+ reads format 4; 2.2 and older
 * format 3, where the server addresses are top-level sections and shim
 * sockets cannot be moved (they go to /run/containerd/s).
 */
import { join } from "node:path";
import { PAUSE_IMAGE } from "./images.js";
import type { ContainerdLine } from "./versions.js";

/** The directories and sockets of one runtime, all below `base`. */
export interface RuntimeLayout {
  base: string;
  root: string;
  state: string;
  socket: string;
  nriSocket: string;
  pluginPath: string;
  pluginConfigPath: string;
  logs: string;
  config: string;
  crictlConfig: string;
}

export function runtimeLayout(base: string): RuntimeLayout {
  return {
    base,
    root: join(base, "root"),
    state: join(base, "state"),
    socket: join(base, "containerd.sock"),
    nriSocket: join(base, "nri", "nri.sock"),
    pluginPath: join(base, "nri", "plugins"),
    pluginConfigPath: join(base, "nri", "conf.d"),
    logs: join(base, "logs"),
    config: join(base, "etc", "config.toml"),
    crictlConfig: join(base, "etc", "crictl.yaml"),
  };
}

export interface NriSettings {
  /** containerd's `plugin_request_timeout`; default 2s. */
  requestTimeout?: string;
  /** containerd's `plugin_registration_timeout`; default 5s. */
  registrationTimeout?: string;
}

const q = (text: string) => `'${text}'`;

export function containerdConfig(
  line: ContainerdLine,
  layout: RuntimeLayout,
  runc: string,
  nri: NriSettings = {},
): string {
  const { base } = layout;
  const v4 = line.configVersion === 4;
  const servers = v4
    ? `[plugins.'io.containerd.server.v1.grpc']
  address = ${q(layout.socket)}
[plugins.'io.containerd.server.v1.ttrpc']
  address = ${q(`${layout.socket}.ttrpc`)}
[plugins.'io.containerd.server.v1.debug']
  address = ''
[plugins.'io.containerd.shim.v1.manager']
  socket_dir = ${q(join(base, "shim"))}
`
    : `[grpc]
  address = ${q(layout.socket)}
[ttrpc]
  address = ${q(`${layout.socket}.ttrpc`)}
`;
  return `version = ${line.configVersion}
root = ${q(layout.root)}
state = ${q(layout.state)}
imports = []

[debug]
  level = 'info'
${v4 ? "" : "  address = ''\n"}
${servers}
[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
[plugins.'io.containerd.cri.v1.images'.pinned_images]
  sandbox = ${q(PAUSE_IMAGE)}

[plugins.'io.containerd.cri.v1.runtime']
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  cdi_spec_dirs = [${q(join(base, "cdi"))}]
[plugins.'io.containerd.cri.v1.runtime'.containerd]
  default_runtime_name = 'runc'
[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
  runtime_type = 'io.containerd.runc.v2'
${v4 ? "  disable_pause_image_pull = true\n" : ""}[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
  BinaryName = ${q(runc)}
  Root = ${q(join(layout.state, "runc"))}
  SystemdCgroup = false
[plugins.'io.containerd.cri.v1.runtime'.cni]
  bin_dirs = [${q(join(base, "cni", "bin"))}]
  conf_dir = ${q(join(base, "cni", "net.d"))}

[plugins.'io.containerd.grpc.v1.cri']
  disable_tcp_service = true
  stream_server_address = '127.0.0.1'
  stream_server_port = '0'

[plugins.'io.containerd.image-verifier.v1.bindir']
  bin_dir = ${q(join(base, "opt", "image-verifier", "bin"))}
[plugins.'io.containerd.internal.v1.opt']
  path = ${q(join(base, "opt"))}

[plugins.'io.containerd.nri.v1.nri']
  disable = false
  socket_path = ${q(layout.nriSocket)}
  plugin_path = ${q(layout.pluginPath)}
  plugin_config_path = ${q(layout.pluginConfigPath)}
  plugin_registration_timeout = ${q(nri.registrationTimeout ?? "5s")}
  plugin_request_timeout = ${q(nri.requestTimeout ?? "2s")}
  disable_connections = false
`;
}

export function crictlConfig(layout: RuntimeLayout): string {
  const endpoint = `unix://${layout.socket}`;
  return `runtime-endpoint: ${endpoint}\nimage-endpoint: ${endpoint}\ntimeout: 30\ndebug: false\n`;
}
