/**
 * The plugin's name: it names the npm package, the program (`nri-<name>`),
 * the NRI plugin (`10-<name>`) and the Kubernetes objects
 * (`nri-plugin-<name>`), so it must suit all of them.
 */

/** Kubernetes' limit for a label value, which `nri-plugin-<name>` is. */
const LABEL_MAX = 63;
const PREFIX = "nri-plugin-";

/** Why `name` cannot name a plugin, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(name)) {
    return `invalid plugin name ${JSON.stringify(name)}: use lowercase letters, digits and "-", starting and ending with a letter or digit (it names the npm package, the NRI plugin and its Kubernetes objects)`;
  }
  if (PREFIX.length + name.length > LABEL_MAX) {
    return `invalid plugin name ${JSON.stringify(name)}: at most ${LABEL_MAX - PREFIX.length} characters (Kubernetes allows ${LABEL_MAX} for the label "${PREFIX}${name}")`;
  }
  return undefined;
}
