/**
 * The two images every pod uses, built for each run from pieces we control:
 * the sandbox's pause image (our own static program in `pause/`) and the
 * test image (Debian's busybox-static with one link per applet).
 */
import { chmod, copyFile, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { debianPackage } from "./debs.js";
import { run } from "./exec.js";
import { writeOciArchive } from "./oci.js";
import { cacheDir, packageDir } from "./paths.js";
import { goEnv } from "./tools.js";

export const PAUSE_IMAGE = "localhost/pause:e2e";
export const BUSYBOX_IMAGE = "localhost/busybox:e2e";

export interface ImageArchive {
  name: string;
  archive: string;
}

/** Builds the pause program and its image below `workDir`. */
export async function pauseImage(workDir: string): Promise<ImageArchive> {
  const rootfs = join(workDir, "pause-rootfs");
  await rm(rootfs, { recursive: true, force: true });
  await mkdir(rootfs, { recursive: true });
  // built into the cache, so that an up-to-date binary is not linked again
  const binary = join(cacheDir, "bin", "pause");
  await mkdir(dirname(binary), { recursive: true });
  await run("go", ["build", "-ldflags=-s -w", "-o", binary, "."], {
    cwd: join(packageDir, "pause"),
    env: goEnv({ CGO_ENABLED: "0" }),
  });
  await copyFile(binary, join(rootfs, "pause"));
  const archive = join(workDir, "pause.tar");
  await writeOciArchive({ name: PAUSE_IMAGE, rootfs, entrypoint: ["/pause"] }, archive);
  return { name: PAUSE_IMAGE, archive };
}

/** Lays out a busybox root (binary, applet links, root user, /tmp) in `rootfs`. */
export async function busyboxRoot(rootfs: string): Promise<void> {
  const busybox = join((await debianPackage("busybox-static")).root, "bin", "busybox");
  await mkdir(join(rootfs, "bin"), { recursive: true });
  await run("cp", [busybox, join(rootfs, "bin", "busybox")]);
  const applets = (await run(busybox, ["--list"])).split("\n").filter((name) => name && name !== "busybox");
  await Promise.all(applets.map((name) => symlink("busybox", join(rootfs, "bin", name))));
  await mkdir(join(rootfs, "etc"));
  await writeFile(join(rootfs, "etc", "passwd"), "root:x:0:0:root:/:/bin/sh\n");
  await writeFile(join(rootfs, "etc", "group"), "root:x:0:\n");
  for (const dir of ["proc", "sys", "dev", "tmp"]) await mkdir(join(rootfs, dir));
  await chmod(join(rootfs, "tmp"), 0o1777);
}

/** The test image: busybox, started as `/bin/sh` unless a container says otherwise. */
export async function busyboxImage(workDir: string): Promise<ImageArchive> {
  const rootfs = join(workDir, "busybox-rootfs");
  await rm(rootfs, { recursive: true, force: true });
  await busyboxRoot(rootfs);
  const archive = join(workDir, "busybox.tar");
  await writeOciArchive({ name: BUSYBOX_IMAGE, rootfs, cmd: ["/bin/sh"] }, archive);
  return { name: BUSYBOX_IMAGE, archive };
}
