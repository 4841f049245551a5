/**
 * Writes a new plugin project: the template's files with the plugin's name
 * filled in, and its package.json. It writes only into a new or empty
 * directory, and on a failure removes what it wrote, so that nothing is
 * left half made and nothing of the user's is touched.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { nameProblem } from "./name.js";
import { projectManifest } from "./project-manifest.js";

const TEMPLATE = fileURLToPath(new URL("../template/", import.meta.url));
const PLACEHOLDER = /\{\{name\}\}/g;

/** The directory cannot take a project, or the name is not a plugin's; nothing was written. */
export class ScaffoldError extends Error {
  override name = "ScaffoldError";
  constructor(
    message: string,
    /** What was wrong: the plugin's name, or the directory. */
    readonly reason: "name" | "directory",
  ) {
    super(message);
  }
}

export interface Scaffolded {
  /** The project's absolute directory. */
  directory: string;
  /** The plugin's name (the directory's). */
  name: string;
  /** The files written, relative to the directory, sorted. */
  files: string[];
}

/**
 * The template's files, relative to it; `_gitignore` at its top is written
 * as `.gitignore` (npm would drop a dot file from the tarball), while a `_`
 * below it stays (Helm's `templates/_helpers.tpl`).
 */
function templateFiles(dir = TEMPLATE): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? templateFiles(join(dir, entry.name)) : [relative(TEMPLATE, join(dir, entry.name))],
  );
}

const target = (file: string) => (dirname(file) === "." ? file.replace(/^_/, ".") : file);

/** `directory` must be new or empty; its base name becomes the plugin's name. */
function checkDirectory(directory: string): void {
  let entries: string[];
  try {
    if (!statSync(directory).isDirectory())
      throw new ScaffoldError(`${directory} exists and is not a directory; nothing was written`, "directory");
    entries = readdirSync(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (entries.length > 0) {
    throw new ScaffoldError(
      `${directory} is not empty (${entries.length} entries); choose a new directory or empty it; nothing was written`,
      "directory",
    );
  }
}

/** Creates the project in `directory` (resolved against `cwd`). */
export function scaffold(directory: string, cwd = process.cwd()): Scaffolded {
  const absolute = resolve(cwd, directory);
  const name = basename(absolute);
  const problem = nameProblem(name);
  if (problem) throw new ScaffoldError(`${problem}; nothing was written`, "name");
  checkDirectory(absolute);
  const contents = new Map<string, string>(
    templateFiles().map((file) => [
      target(file),
      readFileSync(join(TEMPLATE, file), "utf8").replace(PLACEHOLDER, name),
    ]),
  );
  contents.set("package.json", projectManifest(name));
  const created = mkdirSync(absolute, { recursive: true });
  const topLevel = new Set<string>();
  try {
    for (const [file, text] of contents) {
      topLevel.add(file.split(sep)[0]!);
      mkdirSync(dirname(join(absolute, file)), { recursive: true });
      writeFileSync(join(absolute, file), text, { flag: "wx" });
    }
  } catch (error) {
    // Undo: remove the directories mkdir created, or else what was written into the empty one.
    if (created) rmSync(created, { recursive: true, force: true });
    else for (const entry of topLevel) rmSync(join(absolute, entry), { recursive: true, force: true });
    throw error;
  }
  return { directory: absolute, name, files: [...contents.keys()].sort() };
}
