import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCgroup2Mount, hostHasNsDelegate, MountInfoError } from "./mountinfo.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "nri-mountinfo-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function check(table: string): Promise<boolean> {
  const path = join(dir, `mountinfo-${Math.random()}`);
  await writeFile(path, table);
  return hostHasNsDelegate(path);
}

const run = "35 24 0:31 / /run rw,nosuid,nodev,relatime - tmpfs tmpfs rw,mode=755\n";

// The five cases of the Go plugin's tests, with our own inputs.
describe("hostHasNsDelegate", () => {
  it("finds nsdelegate in the cgroup2 mount's super block options", async () => {
    expect(
      await check(
        "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n",
      ),
    ).toBe(true);
  });

  it("says no when the option is missing", async () => {
    expect(await check("29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,memory_recursiveprot\n")).toBe(
      false,
    );
  });

  it("looks only at /sys/fs/cgroup and /sys/fs/cgroup/unified", async () => {
    expect(await check("29 23 0:26 / /mnt/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n")).toBe(false);
    expect(await check(`${run}41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n`)).toBe(
      true,
    );
  });

  it("finds the mount among others", async () => {
    expect(await check(`${run}29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n`)).toBe(true);
  });

  it("says no without a cgroup2 mount (a cgroup v1 host)", async () => {
    expect(
      await check(
        `${run}31 23 0:28 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755\n32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n`,
      ),
    ).toBe(false);
  });
});

describe("reading the mount table as github.com/moby/sys/mountinfo does", () => {
  it("takes the first matching mount and reads no further", () => {
    const table =
      "1 0 0:1 / /sys/fs/cgroup rw - cgroup2 a rw\n2 0 0:1 / /sys/fs/cgroup rw - cgroup2 b rw,nsdelegate\nnot a line\n";
    expect(findCgroup2Mount(table)).toEqual({
      mountpoint: "/sys/fs/cgroup",
      fstype: "cgroup2",
      source: "a",
      vfsOptions: "rw",
    });
  });

  it("finds the separator among optional fields, and unescapes octal escapes", () => {
    expect(
      findCgroup2Mount("1 0 0:1 / /sys/fs/cgroup rw shared:4 master:1 - cgroup2 my\\040src rw,nsdelegate\r\n"),
    ).toEqual({
      mountpoint: "/sys/fs/cgroup",
      fstype: "cgroup2",
      source: "my src",
      vfsOptions: "rw,nsdelegate",
    });
    expect(findCgroup2Mount("1 0 0:1 / /sys/fs/cgroup\\040 rw - cgroup2 x rw,nsdelegate\n")).toBeUndefined();
  });

  it.each([
    ["1 0 0:1 / /x rw - ext4", "parsing '1 0 0:1 / /x rw - ext4' failed: not enough fields (8)"],
    ["", "parsing '' failed: not enough fields (1)"],
    ["1 0 0:1 / /x rw a b c d", "parsing '1 0 0:1 / /x rw a b c d' failed: missing - separator"],
    [
      "1 0 0:1 / /x\\04 rw - ext4 /dev/x rw",
      "parsing '/x\\04' failed: mount point: bad escape sequence \"\\\\04\": too short",
    ],
    [
      "1 0 0:1 / /x\\0a4 rw - ext4 /dev/x rw",
      "parsing '/x\\0a4' failed: mount point: bad escape sequence \"\\\\0a\": not a digit",
    ],
    [
      "1 0 0:1 / /x\\a04 rw - ext4 /dev/x rw",
      "parsing '/x\\a04' failed: mount point: bad escape sequence %!q(MISSING): not a digit\\a0",
    ],
    [
      "1 0 0:1:2 / /x rw - ext4 /dev/x rw",
      "parsing '1 0 0:1:2 / /x rw - ext4 /dev/x rw' failed: unexpected major:minor pair [0 1 2]",
    ],
    [
      "1 0 01 / /x rw - ext4 /dev/x rw",
      "parsing '1 0 01 / /x rw - ext4 /dev/x rw' failed: unexpected major:minor pair [01]",
    ],
    ["1 0 0:1 /r\\7 /x rw - ext4 /dev/x rw", "parsing '/r\\7' failed: root: bad escape sequence \"\\\\7\": too short"],
  ])("refuses %j", (line, message) => {
    expect(() => findCgroup2Mount(`${line}\n`)).toThrow(message);
  });

  it("wraps what cannot be read as the Go plugin does", async () => {
    await expect(hostHasNsDelegate(join(dir, "missing"))).rejects.toThrow(
      new MountInfoError(
        `failed to open mount file "${join(dir, "missing")}": open ${join(dir, "missing")}: no such file or directory`,
      ),
    );
    await expect(hostHasNsDelegate(dir)).rejects.toThrow(
      new MountInfoError(`error scanning mount file: read ${dir}: is a directory`),
    );
    await expect(check("bad\n")).rejects.toThrow(
      "error scanning mount file: parsing 'bad' failed: not enough fields (1)",
    );
    await expect(check(`${"x".repeat(70_000)}\n`)).rejects.toThrow(
      "error scanning mount file: bufio.Scanner: token too long",
    );
  });

  it("never fails otherwise than with the library's parse errors, whatever the table", () => {
    const field = fc.oneof(
      fc.constantFrom("/sys/fs/cgroup", "cgroup2", "-", "rw,nsdelegate", "0:1", "\\040", "\\7", ""),
      fc.string({ maxLength: 5 }),
    );
    const table = fc
      .array(
        fc.array(field, { maxLength: 12 }).map((fields) => fields.join(" ")),
        { maxLength: 4 },
      )
      .map((lines) => lines.join("\n"));
    fc.assert(
      fc.property(table, (text) => {
        try {
          findCgroup2Mount(text);
        } catch (error) {
          expect((error as Error).message).toMatch(/^parsing '.*' failed: /s);
        }
      }),
    );
  });
});
