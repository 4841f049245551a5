/**
 * The writable-cgroups plugin under a real containerd, on each line: a
 * container whose pod asks for writable cgroups finds `/sys/fs/cgroup`
 * mounted read-write and can create a cgroup below its own, while a
 * container of a pod that does not ask finds it read-only and cannot.
 *
 * Our machines run cgroup v1, whose hierarchy has no `nsdelegate`, so the
 * plugin is given a mount table (`-host-mount-file`) that says the host's
 * cgroup v2 mount has it: this checks what the plugin asks the runtime for
 * and that the runtime's container gets it, not the kernel's delegation
 * rules (which need a cgroup v2 host with nsdelegate).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachLine } from "./context.js";
import { observed, observing } from "./observe.js";
import { writableCgroups } from "./our-plugins.js";
import type { ExternalPlugin } from "./plugins.js";
import { Runtime } from "./runtime.js";

/**
 * Creates a cgroup below the container's own in the first cgroup directory
 * (one with `cgroup.procs`: not cgroup v1's tmpfs above the hierarchies)
 * that lets it, and removes it again.
 */
const TRY_CGROUP = [
  'made=""',
  'for dir in /sys/fs/cgroup /sys/fs/cgroup/*; do if [ -z "$made" ] && [ -e "$dir/cgroup.procs" ] && mkdir "$dir/nri-e2e-child" 2>/dev/null; then made="$dir"; rmdir "$dir/nri-e2e-child"; fi; done',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, for the container's shell
  'echo "cgroup created: ${made:-none}"',
].join("; ");

describeEachLine("writable-cgroups", (line) => {
  let runtime: Runtime;
  let plugin: ExternalPlugin;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-e2e-writable-cgroups-"));
    await writeFile(
      join(dir, "mountinfo"),
      "25 1 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n",
    );
    runtime = await Runtime.start({ label: "writable-cgroups", line });
    plugin = await runtime.startPlugin(writableCgroups(runtime, "40", join(dir, "mountinfo")));
  });
  afterAll(async () => {
    await runtime?.teardown();
    await rm(dir, { recursive: true, force: true });
  });

  it("mounts /sys/fs/cgroup read-write in the containers that ask, and they can create a cgroup there", async () => {
    const asked = await runtime.runPod({
      annotations: { "writable-cgroups.noderesource.dev": "true" },
      containers: [{ name: "app", ...observing({ andThen: TRY_CGROUP }) }],
    });
    const plain = await runtime.runPod({
      containers: [{ name: "app", ...observing({ andThen: TRY_CGROUP }) }],
    });
    expect(plugin.name).toBe("40-writable-cgroups");
    const cgroupMounts = (seen: ReturnType<typeof observed>) =>
      seen.mounts.filter((m) => m.path === "/sys/fs/cgroup" || m.path.startsWith("/sys/fs/cgroup/"));

    const writable = cgroupMounts(observed(asked.containers.app));
    expect(writable.length).toBeGreaterThan(0);
    for (const mount of writable.filter((m) => m.fsType.startsWith("cgroup"))) expect(mount.options).toContain("rw");
    expect(asked.containers.app.stdout).toMatch(/^cgroup created: \/sys\/fs\/cgroup\S*$/m);

    const readOnly = cgroupMounts(observed(plain.containers.app));
    for (const mount of readOnly.filter((m) => m.fsType.startsWith("cgroup"))) expect(mount.options).toContain("ro");
    expect(plain.containers.app.stdout).toMatch(/^cgroup created: none$/m);
  });
});
