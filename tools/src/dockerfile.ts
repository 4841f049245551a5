/**
 * What a plugin's Dockerfile says about the image it builds: enough to
 * check it against the package and the DaemonSet, and for a suite that
 * assembles the same image without Docker (packages/e2e) to follow it.
 */

export interface DockerImage {
  /** The base image of the last stage. */
  from: string;
  workdir?: string;
  user?: string;
  env: Record<string, string>;
  /** ENTRYPOINT in its exec (JSON) form. */
  entrypoint: string[];
}

/** The instructions, continuation lines joined and comments dropped: `[keyword, arguments]`. */
function instructions(text: string): [string, string][] {
  const joined = text.replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const space = line.search(/\s/);
      return [line.slice(0, space).toUpperCase(), line.slice(space + 1).trim()];
    });
}

/** `K=V K2="v 2"` (the only ENV form accepted here). */
function envPairs(args: string): [string, string][] {
  return [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)].map(([, key, value]) => [
    key!,
    value!.startsWith('"') ? (JSON.parse(value!) as string) : value!,
  ]);
}

export function parseDockerfile(text: string): DockerImage {
  let image: DockerImage | undefined;
  for (const [keyword, args] of instructions(text)) {
    if (keyword === "FROM") {
      image = { from: args.split(/\s+/)[0]!, env: {}, entrypoint: [] };
      continue;
    }
    if (!image) throw new Error(`${keyword} before FROM`);
    if (keyword === "WORKDIR") image.workdir = args;
    else if (keyword === "USER") image.user = args;
    else if (keyword === "ENV") {
      if (!args.includes("=")) throw new Error(`ENV ${args}: write ENV KEY=value`);
      Object.assign(image.env, Object.fromEntries(envPairs(args)));
    } else if (keyword === "ENTRYPOINT") {
      const entrypoint: unknown = JSON.parse(args);
      if (!Array.isArray(entrypoint)) throw new Error(`ENTRYPOINT ${args}: write the exec form, ["program", "arg"]`);
      image.entrypoint = entrypoint as string[];
    }
  }
  if (!image) throw new Error("no FROM");
  return image;
}
