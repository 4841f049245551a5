/**
 * `npm run version` calls this after `changeset version`: each plugin's
 * release overlay runs the image of the plugin's new version, and its Helm
 * chart (where it has one) takes the new version as its version and
 * appVersion.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CHART_DIR, hasChart, isPlugin, pluginName } from "./deployment.js";
import { publicPackages } from "./workspace.js";

for (const pkg of publicPackages().filter(isPlugin)) {
  const file = join(pkg.dir, "deploy/kustomize/overlays/release/kustomization.yaml");
  const text = readFileSync(file, "utf8");
  const pattern = new RegExp(`(newName: ghcr\\.io/nri-ts/nri-plugin-${pluginName(pkg)}\\n\\s+newTag: )\\S+`);
  if (!pattern.test(text))
    throw new Error(`${file}: no newName/newTag pair for ghcr.io/nri-ts/nri-plugin-${pluginName(pkg)}`);
  const updated = text.replace(pattern, `$1${pkg.manifest.version}`);
  if (updated !== text) {
    writeFileSync(file, updated);
    process.stdout.write(`${file}: ${pkg.manifest.version}\n`);
  }
}

for (const pkg of publicPackages().filter((pkg) => isPlugin(pkg) && hasChart(pkg))) {
  const file = join(pkg.dir, CHART_DIR, "Chart.yaml");
  const text = readFileSync(file, "utf8");
  const version = pkg.manifest.version;
  const updated = text
    .replace(/^version: .*$/m, `version: ${version}`)
    .replace(/^appVersion: .*$/m, `appVersion: "${version}"`);
  if (updated !== text) {
    writeFileSync(file, updated);
    process.stdout.write(`${file}: ${version}\n`);
  }
}
