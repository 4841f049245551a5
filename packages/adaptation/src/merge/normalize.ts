import type {
  Container,
  ContainerAdjustment,
  CreateContainerRequest,
  Hooks,
  LinuxContainer,
  LinuxContainerAdjustment,
  LinuxCPU,
  LinuxMemory,
  LinuxResources,
  UpdateContainerRequest,
} from "@nri-ts/api";
import {
  Container as ContainerFns,
  Hooks as HooksFns,
  LinuxContainer as LinuxContainerFns,
  LinuxCPU as LinuxCPUFns,
  LinuxResources as LinuxResourcesFns,
} from "@nri-ts/api";

/** Resources whose memory and cpu parts exist. */
export type FilledResources = LinuxResources & { memory: LinuxMemory; cpu: LinuxCPU };

/** A container with every part the merge writes into present. */
export type FilledContainer = Container & {
  hooks: Hooks;
  linux: LinuxContainer & { resources: FilledResources };
};

/** The merged adjustment, with every part the merge writes into present. */
export type FilledAdjustment = ContainerAdjustment & {
  hooks: Hooks;
  linux: LinuxContainerAdjustment & { resources: FilledResources };
};

/** A create request whose container is filled. */
export type FilledCreateContainerRequest = CreateContainerRequest & { container: FilledContainer };

/** An update request whose requested resources are filled. */
export type FilledUpdateContainerRequest = UpdateContainerRequest & {
  container: Container;
  linuxResources: FilledResources;
};

function fillResources(resources: LinuxResources): FilledResources {
  resources.memory ??= {};
  resources.cpu ??= LinuxCPUFns.create();
  resources.hugepageLimits ??= [];
  resources.unified ??= {};
  resources.devices ??= [];
  return resources as FilledResources; // memory and cpu were filled above
}

/** Empty resources as the merge starts them: memory and cpu present, nothing set. */
export function emptyResources(): FilledResources {
  return fillResources(LinuxResourcesFns.create());
}

/**
 * Fill in, in place, every part of the container that plugins may adjust
 * and that is missing: labels, annotations, mounts, env, rlimits, hooks,
 * linux with devices, resources (memory, cpu, unified), namespaces, net
 * devices and sysctl. The caller's object is the request copy the merge
 * mutates, as in the Go adaptation.
 */
export function fillCreateContainerRequest(request: CreateContainerRequest): FilledCreateContainerRequest {
  const container = (request.container ??= ContainerFns.create());
  container.labels ??= {};
  container.annotations ??= {};
  container.args ??= [];
  container.env ??= [];
  container.mounts ??= [];
  container.rlimits ??= [];
  container.hooks ??= HooksFns.create();
  const linux = (container.linux ??= LinuxContainerFns.create());
  linux.namespaces ??= [];
  linux.devices ??= [];
  linux.sysctl ??= {};
  linux.netDevices ??= {};
  linux.resources = fillResources(linux.resources ?? LinuxResourcesFns.create());
  return request as FilledCreateContainerRequest; // every part was filled above
}

/** Fill in, in place, the requested resources of an update (memory and cpu). */
export function fillUpdateContainerRequest(request: UpdateContainerRequest): FilledUpdateContainerRequest {
  request.container ??= ContainerFns.create();
  request.linuxResources = fillResources(request.linuxResources ?? LinuxResourcesFns.create());
  return request as FilledUpdateContainerRequest; // container and resources were filled above
}

/** The adjustment a CreateContainer reply starts with: every collection empty, never null. */
export function emptyAdjustment(): FilledAdjustment {
  return {
    annotations: {},
    mounts: [],
    env: [],
    hooks: HooksFns.create(),
    rlimits: [],
    CDIDevices: [],
    args: [],
    linux: {
      devices: [],
      resources: emptyResources(),
      cgroupsPath: "",
      namespaces: [],
      sysctl: {},
      netDevices: {},
    },
  };
}
