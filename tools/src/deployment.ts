/**
 * The deployment files every reference plugin has (CONTRIBUTING.md,
 * "Reference plugins"), checked against the package: the Dockerfile runs
 * the package's program, the rendered DaemonSet runs that image with flags
 * the program accepts and mounts the socket where the program connects.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DaemonSet } from "kubernetes-types/apps/v1.js";
import { parseDockerfile } from "./dockerfile.js";
import type { WorkspacePackage } from "./workspace.js";

/** Where the runtime's NRI socket is, on the node and for the plugin. */
export const NRI_SOCKET = "/var/run/nri/nri.sock";
/** Where a plugin's image installs the packages. */
export const IMAGE_APP_DIR = "/app";
/** Node in the base image (and where packages/e2e puts the host's). */
export const IMAGE_NODE = "/usr/local/bin/node";
/** The overlays every plugin has, and the image each one runs. */
export const OVERLAYS = ["release", "local"] as const;

export const DEPLOY_FILES = [
  "deploy/Dockerfile",
  "deploy/kustomize/base/kustomization.yaml",
  "deploy/kustomize/base/daemonset.yaml",
  ...OVERLAYS.map((overlay) => `deploy/kustomize/overlays/${overlay}/kustomization.yaml`),
];

/** `@nri-ts/plugin-logger` → `logger`. */
export function pluginName(pkg: WorkspacePackage): string {
  return pkg.manifest.name.replace(/^@nri-ts\/plugin-/, "");
}

export function isPlugin(pkg: WorkspacePackage): boolean {
  return pkg.path.startsWith("packages/plugins/") && !pkg.manifest.private;
}

/**
 * The program's file in the package (`dist/main.js`): its one `bin`, or,
 * for a package with more programs (the exit reporter also has its
 * `nri-exits` command), the bin `nri-<name>`.
 */
export function programFile(pkg: WorkspacePackage): string | undefined {
  const bin = pkg.manifest.bin;
  const entries = typeof bin === "string" ? [[`nri-${pluginName(pkg)}`, bin]] : Object.entries(bin ?? {});
  const target =
    entries.length === 1 ? entries[0]![1] : entries.find(([command]) => command === `nri-${pluginName(pkg)}`)?.[1];
  return target?.replace(/^\.\//, "");
}

/** A plugin's Helm chart, where it has one (the exit-reporter and the template do). */
export const CHART_DIR = "deploy/helm";

export function hasChart(pkg: WorkspacePackage): boolean {
  return existsSync(join(pkg.dir, CHART_DIR, "Chart.yaml"));
}

/** The values that make a chart run the image built on the node, as every chart's values.yaml says. */
export function localChartValues(name: string): string[] {
  return ["--set", `image.repository=localhost/nri-plugin-${name},image.tag=dev,image.pullPolicy=Never`];
}

/** What Chart.yaml must say: the chart is `nri-plugin-<name>`, and its version and appVersion are the package's. */
export function chartProblems(pkg: WorkspacePackage): string[] {
  const file = `${pkg.path}/${CHART_DIR}/Chart.yaml`;
  const text = readFileSync(join(pkg.dir, CHART_DIR, "Chart.yaml"), "utf8");
  const field = (key: string) => new RegExp(`^${key}:\\s*"?([^"\\s]+)"?\\s*$`, "m").exec(text)?.[1];
  const version = pkg.manifest.version;
  const problems: string[] = [];
  if (field("name") !== `nri-plugin-${pluginName(pkg)}`) problems.push(`name must be nri-plugin-${pluginName(pkg)}`);
  if (field("version") !== version)
    problems.push(`version must be the package's, ${version} (npm run version sets it)`);
  if (field("appVersion") !== version)
    problems.push(`appVersion must be the package's, ${version} (npm run version sets it)`);
  return problems.map((problem) => `${file}: ${problem}`);
}

export function missingDeployFiles(pkg: WorkspacePackage): string[] {
  return DEPLOY_FILES.filter((file) => !existsSync(join(pkg.dir, file))).map(
    (file) =>
      `${pkg.path}/${file} is missing: every plugin ships deployment files (CONTRIBUTING.md, "Reference plugins"); ` +
      `copy packages/plugins/logger/deploy and replace "logger" with "${pluginName(pkg)}"`,
  );
}

export function imageFor(name: string, overlay: (typeof OVERLAYS)[number], version: string): string {
  return overlay === "release" ? `ghcr.io/nri-ts/nri-plugin-${name}:${version}` : `localhost/nri-plugin-${name}:dev`;
}

export function dockerfileProblems(pkg: WorkspacePackage): string[] {
  const path = join(pkg.dir, "deploy/Dockerfile");
  const text = readFileSync(path, "utf8");
  const image = parseDockerfile(text);
  const program = programFile(pkg);
  const problems: string[] = [];
  if (!/^node:(2[2-9]|[3-9]\d)(\.\d+)*-(bookworm-slim|trixie-slim|alpine[\d.]*)$/.test(image.from)) {
    problems.push(`FROM ${image.from}: use a small Node ≥ 22 base (node:26-bookworm-slim)`);
  }
  if (image.workdir !== IMAGE_APP_DIR)
    problems.push(`WORKDIR must be ${IMAGE_APP_DIR}, where the packages are installed`);
  const entrypoint = [IMAGE_NODE, `${IMAGE_APP_DIR}/node_modules/${pkg.manifest.name}/${program}`];
  if (JSON.stringify(image.entrypoint) !== JSON.stringify(entrypoint)) {
    problems.push(
      `ENTRYPOINT must be ${JSON.stringify(entrypoint)} (the package's bin), not ${JSON.stringify(image.entrypoint)}`,
    );
  }
  if (!text.includes(`npm run image-context -- ${pkg.manifest.name} `)) {
    problems.push(`the build instructions must use \`npm run image-context -- ${pkg.manifest.name} <dir>\``);
  }
  return problems.map((problem) => `${pkg.path}/deploy/Dockerfile: ${problem}`);
}

/** The value of a Go-style flag among the arguments (`-flag v`, `--flag=v`), if given. */
export function flagValue(args: string[], names: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const match = /^--?([^=]+)(?:=(.*))?$/.exec(args[i]!);
    if (match && names.includes(match[1]!)) return match[2] ?? args[i + 1];
  }
  return undefined;
}

/** The problems of one rendered overlay of a reference plugin (the decoded DaemonSet objects it holds). */
export function daemonSetProblems(
  pkg: WorkspacePackage,
  overlay: (typeof OVERLAYS)[number],
  resources: { kind?: string }[],
): string[] {
  const name = pluginName(pkg);
  const where = `${pkg.path}/deploy/kustomize/overlays/${overlay}`;
  return pluginDaemonSetProblems(
    { name, where, image: imageFor(name, overlay, pkg.manifest.version ?? ""), local: overlay === "local" },
    resources,
  );
}

/** What a plugin's rendered overlay must run: any plugin's, a reference plugin's or one made by `npm create @nri-ts/plugin`. */
export interface WantedDaemonSet {
  /** The plugin's name: the DaemonSet is `nri-plugin-<name>`. */
  name: string;
  /** The overlay, for the messages. */
  where: string;
  image: string;
  /** An image built on the node (imagePullPolicy: Never). */
  local: boolean;
}

export function pluginDaemonSetProblems(
  { name, where, image, local }: WantedDaemonSet,
  resources: { kind?: string }[],
): string[] {
  const sets = resources.filter((resource) => resource.kind === "DaemonSet") as DaemonSet[];
  if (sets.length !== 1) return [`${where}: renders ${sets.length} DaemonSets, expected one`];
  const set = sets[0]!;
  const problems: string[] = [];
  const expect = (ok: boolean, problem: string) => ok || problems.push(`${where}: ${problem}`);
  const app = `nri-plugin-${name}`;
  expect(set.metadata?.name === app, `the DaemonSet must be named ${app}, not ${set.metadata?.name}`);
  expect(
    set.metadata?.namespace === "kube-system",
    `the DaemonSet must be in kube-system, not ${set.metadata?.namespace}`,
  );
  const labels = set.spec?.template.metadata?.labels ?? {};
  const selector = set.spec?.selector.matchLabels ?? {};
  expect(selector["app.kubernetes.io/name"] === app, `the selector must match app.kubernetes.io/name: ${app}`);
  expect(
    Object.entries(selector).every(([key, value]) => labels[key] === value),
    "the pod template's labels must match the selector",
  );
  const containers = set.spec?.template.spec?.containers ?? [];
  if (containers.length !== 1)
    return [...problems, `${where}: the pod must have one container, not ${containers.length}`];
  const container = containers[0]!;
  expect(container.image === image, `the image must be ${image}, not ${container.image}`);
  if (local) expect(container.imagePullPolicy === "Never", "a local image must have imagePullPolicy: Never");
  expect(container.command === undefined, "the container must not set command: the image's ENTRYPOINT runs the plugin");
  expect(
    container.securityContext?.allowPrivilegeEscalation === false,
    "securityContext.allowPrivilegeEscalation must be false",
  );
  expect(
    container.securityContext?.capabilities?.drop?.includes("ALL") === true,
    "securityContext.capabilities.drop must hold ALL",
  );
  expect(
    container.resources?.requests?.memory !== undefined,
    "resources.requests.memory must be set (Node needs about 60Mi)",
  );
  const volumes = new Map((set.spec?.template.spec?.volumes ?? []).map((volume) => [volume.name, volume]));
  for (const mount of container.volumeMounts ?? []) {
    expect(volumes.has(mount.name), `volumeMount ${mount.name} has no volume`);
  }
  const socketPath = flagValue(container.args ?? [], ["socket", "socket-path"]) ?? NRI_SOCKET;
  const socketMount = (container.volumeMounts ?? []).find((mount) => mount.mountPath === socketPath);
  const socketVolume = socketMount && volumes.get(socketMount.name);
  expect(
    socketVolume?.hostPath?.path === NRI_SOCKET && socketVolume.hostPath.type === "Socket",
    `the plugin connects to ${socketPath}: mount the host's ${NRI_SOCKET} (hostPath, type Socket) there`,
  );
  return problems;
}

/** What the README must tell a user about deploying the plugin. */
export function readmeDeployProblems(pkg: WorkspacePackage): string[] {
  const readme = readFileSync(join(pkg.dir, "README.md"), "utf8");
  const wanted = [
    ["deploy/Dockerfile", "how to build the image"],
    ["kubectl apply -k", "how to deploy the DaemonSet"],
    ["/opt/nri/plugins/", "how to install it as a runtime-launched plugin"],
  ];
  return wanted
    .filter(([text]) => !readme.includes(text!))
    .map(([text, what]) => `${pkg.path}/README.md must say ${what} (it does not mention ${text})`);
}
