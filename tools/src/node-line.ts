/**
 * The pinned Node.js lines (tools/node-lines.json) from TypeScript: their
 * names, and the bin directory of one, fetched once by tools/node-line.mjs.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./workspace.js";

interface Pins {
  default: string;
  lines: Record<string, { version: string; integrity: string }>;
}

const pins = JSON.parse(readFileSync(join(ROOT, "tools/node-lines.json"), "utf8")) as Pins;

/** The supported lines, newest first (`26`, `24`, `22`), and the one CI runs everything on. */
export const NODE_LINES = Object.keys(pins.lines).sort((a, b) => Number(b) - Number(a));
export const DEFAULT_NODE_LINE = pins.default;

/** The bin directory of a pinned line's Node.js (default: the default line), fetched into the cache the first time. */
export function nodeLineBin(line = DEFAULT_NODE_LINE): string {
  return execFileSync(process.execPath, [join(ROOT, "tools/node-line.mjs"), line], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}
