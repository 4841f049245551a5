import type { PodSandbox } from "./gen/nri/pkg/api/v1alpha1/api.js";

/** The domain of NRI's own annotations. */
export const ANNOTATION_DOMAIN = "noderesource.dev";

/** Pod annotation listing plugins that must take part in creating a container (a YAML list). */
export const REQUIRED_PLUGINS_ANNOTATION = `required-plugins.${ANNOTATION_DOMAIN}`;

/**
 * The value of an NRI annotation for one container of a pod, as Go's
 * `pkg/plugin.GetEffectiveAnnotation` finds it (plugins and the default
 * validator use it), looked up on the pod's annotations only: `<key>/container.<container>` first, then
 * `<key>/pod`, then `<key>`. Undefined when none is set.
 */
export function effectiveAnnotation(pod: PodSandbox | undefined, key: string, container: string): string | undefined {
  const annotations = pod?.annotations;
  if (annotations === undefined) return undefined;
  for (const candidate of [`${key}/container.${container}`, `${key}/pod`, key]) {
    if (Object.hasOwn(annotations, candidate)) return annotations[candidate];
  }
  return undefined;
}
