/**
 * A TypeDoc plugin for the docs site (`npm run docs`, typedoc.json's
 * `plugin`): declarations link to their source on GitHub, and the package READMEs, which are the packages' pages, link to
 * directories as GitHub shows them (`../../stub`, `deploy/`). On the merged
 * site a link to a package's directory or README (the guides link those)
 * goes to that package's page, a link
 * to another directory of the repository goes to it on GitHub, and a link
 * to a path that does not exist is an error, as TypeDoc's own broken links
 * are. Each package is converted with `validation.invalidPath` off
 * (packageOptions), since its links to other packages resolve only once the
 * packages are merged; the merged site is checked with it on.
 */
import { existsSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import {
  Application,
  type CommentDisplayPart,
  type NormalizedPath,
  type ProjectReflection,
  type Reflection,
  ReflectionKind,
} from "typedoc";
import { publicPackages, ROOT } from "./workspace.js";

/** Where the repository's directories and files are shown: on GitHub, on main. */
export const REPOSITORY_TREE = "https://github.com/nri-ts/nri-ts/tree/main";
export const REPOSITORY_BLOB = "https://github.com/nri-ts/nri-ts/blob/main";

/**
 * Each declaration's "Defined in" links to its line on GitHub. TypeDoc
 * would find the repository with git, which fails in a git worktree (its
 * `.git` is a file) and names whatever remote a clone has; the site always
 * links to the repository's main branch.
 */
export function linkSources(project: ProjectReflection): void {
  for (const reflection of Object.values(project.reflections)) {
    const sources = (reflection as { sources?: { fileName: string; line: number; url?: string }[] }).sources;
    for (const source of sources ?? []) {
      if (source.fileName.startsWith("packages/")) source.url = `${REPOSITORY_BLOB}/${source.fileName}#L${source.line}`;
    }
  }
}

/** The display parts of a reflection's readme, document text and comment. */
function partLists(reflection: Reflection | ProjectReflection): CommentDisplayPart[][] {
  const lists: CommentDisplayPart[][] = [];
  const withText = reflection as { readme?: CommentDisplayPart[]; content?: CommentDisplayPart[] };
  if (withText.readme) lists.push(withText.readme);
  if (withText.content) lists.push(withText.content);
  if (reflection.comment) {
    lists.push(reflection.comment.summary);
    for (const tag of reflection.comment.blockTags) lists.push(tag.content);
  }
  return lists;
}

/** The registry's maps from file ids to paths and back (TypeDoc 0.28's FileRegistry). */
interface Registry {
  mediaToPath: Map<number, string>;
  pathToMedia: Map<string, number>;
}

export function fixDirectoryLinks(project: ProjectReflection, error: (message: string) => void): void {
  // the packages' own modules (a package of several entry points has one module per entry point under it)
  const modules = new Map(
    (project.children ?? [])
      .filter((child) => child.kindOf(ReflectionKind.Module))
      .map((module) => [module.name, module] as const),
  );
  for (const pkg of publicPackages()) {
    const module = modules.get(pkg.manifest.name);
    if (!module) continue;
    // its directory (as GitHub links it) and its README (as the guides link it) are its page
    // (paths from join are normalized as TypeDoc's are: absolute, with / between parts)
    project.files.registerReflectionPath(pkg.dir.replace(/\/$/, "") as NormalizedPath, module);
    project.files.registerReflectionPath(join(pkg.dir, "README.md") as NormalizedPath, module);
  }
  const registry = project.files as unknown as Registry;
  const directories = new Map<number, string>();
  for (const path of project.files.getMediaPaths()) {
    if (!existsSync(path)) error(`docs: a link to ${path}, which does not exist`);
    else if (statSync(path).isDirectory()) directories.set(registry.pathToMedia.get(path)!, path);
  }
  for (const reflection of [project, ...Object.values(project.reflections)]) {
    for (const parts of partLists(reflection)) {
      parts.forEach((part, i) => {
        if (part.kind !== "relative-link") return;
        if (part.target === undefined) {
          error(`docs: ${reflection.getFriendlyFullName()} links to ${part.text}, which does not exist`);
          return;
        }
        if (typeof part.target !== "number") return;
        const directory = directories.get(part.target);
        if (directory === undefined) return;
        const anchor = part.targetAnchor ? `#${part.targetAnchor}` : "";
        parts[i] = { kind: "text", text: `${REPOSITORY_TREE}/${relative(ROOT, directory)}${anchor}` };
      });
    }
  }
  for (const [id, path] of directories) {
    registry.mediaToPath.delete(id);
    registry.pathToMedia.delete(path);
  }
}

export function load(app: Application): void {
  app.on(Application.EVENT_PROJECT_REVIVE, (project: ProjectReflection) => {
    fixDirectoryLinks(project, (message) => app.logger.error(message));
    linkSources(project);
  });
}
