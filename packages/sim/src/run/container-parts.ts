import type { Container, LinuxContainer, LinuxResources } from "@nri-ts/api";

/** A container's linux part with its resources present. */
export type FilledLinux = LinuxContainer & { resources: LinuxResources };

/** Empty Linux resources: nothing set. */
export function emptyResources(): LinuxResources {
  return { hugepageLimits: [], unified: {}, devices: [] };
}

/** The container's linux part, created (with empty resources) when missing. */
export function filledLinux(container: Container): FilledLinux {
  const linux = (container.linux ??= {
    namespaces: [],
    devices: [],
    cgroupsPath: "",
    sysctl: {},
    netDevices: {},
  });
  linux.resources ??= emptyResources();
  return linux as FilledLinux; // resources was filled above
}
