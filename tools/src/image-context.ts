/**
 * `npm run image-context -- <package> <dir>`: the build context of a
 * plugin's Dockerfile, the packed tarballs of the plugin and of the
 * workspace packages it depends on (build first: `npm run build`).
 */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { dependencyClosure, pack } from "./pack.js";

const [name, dir] = process.argv.slice(2);
if (!name || !dir) {
  process.stderr.write("usage: npm run image-context -- <package, e.g. @nri-ts/plugin-logger> <directory>\n");
  process.exit(2);
}
mkdirSync(resolve(dir), { recursive: true });
for (const tarball of Object.values(await pack(dependencyClosure(name), resolve(dir))))
  process.stdout.write(`${tarball}\n`);
