/**
 * Each packed tarball as npm would publish it: publint, are-the-types-wrong
 * (ESM-only profile), every export target present, source maps and
 * declaration maps that resolve inside the tarball, and Node's types
 * declared where the declarations use them.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { describe, expect, inject, it } from "vitest";
import type { Manifest } from "../src/workspace.js";

const run = promisify(execFile);
const { tarballs, extracted } = inject("packed");
const ATTW = join(
  dirname(createRequire(import.meta.url).resolve("@arethetypeswrong/cli/package.json")),
  "dist",
  "index.js",
);

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

function exportTargets(manifest: Manifest): string[] {
  return Object.values(manifest.exports ?? {}).flatMap((target) =>
    typeof target === "string" ? [target] : Object.values(target),
  );
}

describe.each(Object.keys(tarballs).map((name) => [name] as const))("%s tarball", (name) => {
  const root = extracted[name]!;
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Manifest;
  const contents = files(root);

  it("publint finds nothing, suggestions included", async () => {
    // the tarball's own bytes: readFileSync may return a view into Node's shared pool (64 KiB on Node 26, 8 on 20)
    const bytes = readFileSync(tarballs[name]!);
    const { messages, pkg } = await publint({
      pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer },
      level: "suggestion",
      strict: true,
    });
    expect(messages.map((message) => formatMessage(message, pkg))).toEqual([]);
  });

  it("are-the-types-wrong finds nothing for ESM (node16, bundler)", async () => {
    const result = await run(process.execPath, [
      ATTW,
      tarballs[name]!,
      "--profile",
      "esm-only",
      "--format",
      "ascii",
    ]).catch((error: { stdout: string; stderr: string }) => ({ ...error, failed: true }));
    expect("failed" in result, `${result.stdout}\n${result.stderr}`).toBe(false);
  });

  it("has every file its exports and bin point at, and no tests or test helpers of its own", () => {
    const bins = typeof manifest.bin === "string" ? [manifest.bin] : Object.values(manifest.bin ?? {});
    const missing = [...exportTargets(manifest), ...bins].filter((target) => !existsSync(join(root, target)));
    expect(missing).toEqual([]);
    // A create package's template/ is the project it writes, tests included.
    const shipped = manifest.name.startsWith("@nri-ts/create-")
      ? contents.filter((file) => !file.startsWith("template/"))
      : contents;
    expect(shipped.filter((file) => /\.test\.|tsbuildinfo|\/fixtures\//.test(file))).toEqual([]);
    // Test helpers live in src/testing/ (CONTRIBUTING.md), which the build leaves out: a source
    // shipped without its built file is one (as adaptation's test-runtime.ts was, left out by a list).
    expect(shipped.filter((file) => /^(src|dist)\/testing\//.test(file))).toEqual([]);
    const unbuilt = shipped.filter(
      (file) =>
        /^src\/.*\.ts$/.test(file) && !contents.includes(file.replace(/^src\//, "dist/").replace(/\.ts$/, ".js")),
    );
    expect(unbuilt, "sources in the tarball that the build leaves out (test helpers?)").toEqual([]);
    expect(contents).toContain("LICENSE");
  });

  it("has source maps and declaration maps whose sources are in the tarball", () => {
    const maps = contents.filter((file) => file.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(0);
    const unresolved = maps.flatMap((map) => {
      const { sources } = JSON.parse(readFileSync(join(root, map), "utf8")) as { sources: string[] };
      return sources
        .filter((source) => !existsSync(join(root, dirname(map), source)))
        .map(
          (source) =>
            `${map}: ${source} is not in the tarball (a file left in dist/ by an older build, or restored with it from the nx cache? npm run build:release builds dist/ afresh)`,
        );
    });
    expect(unresolved).toEqual([]);
  });

  it("declares @types/node, and references it, if its declarations use Node's types", () => {
    const text = (file: string) => readFileSync(join(root, file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
    const usesNodeDirectly = (file: string) => /from "node:|\bNodeJS\.|\bBuffer\b/.test(text(file));
    /** Whether the declaration, or one it imports from this package, uses Node's types. */
    const usesNode = (file: string, seen = new Set<string>()): boolean => {
      if (seen.has(file)) return false;
      seen.add(file);
      if (usesNodeDirectly(file)) return true;
      return [...text(file).matchAll(/from "(\.{1,2}\/[^"]+)\.js"/g)].some(([, path]) =>
        usesNode(join(dirname(file), `${path}.d.ts`), seen),
      );
    };
    const entries = exportTargets(manifest)
      .filter((target) => target.endsWith(".d.ts"))
      .map((target) => target.replace(/^\.\//, ""));
    const needing = entries.filter((entry) => usesNode(entry));
    if (needing.length === 0) return;
    expect(manifest.peerDependencies?.["@types/node"], `${needing[0]} uses Node's types`).toBeDefined();
    const unreferenced = needing.filter(
      (entry) => !readFileSync(join(root, entry), "utf8").includes('/// <reference types="node"'),
    );
    expect(unreferenced, 'entry declarations without /// <reference types="node" preserve="true" />').toEqual([]);
  });
});
