/**
 * A plugin that talks to the API server (the exit reporter's Kubernetes
 * output) is deployed with what that needs and no more, checked on the
 * rendered overlay: the DaemonSet's pods run as a ServiceAccount the
 * overlay renders, a ClusterRoleBinding binds it to a ClusterRole that
 * grants exactly the rules wanted (no wildcard, nothing else), and the node
 * name reaches the pod through the downward API.
 */
import type { DaemonSet } from "kubernetes-types/apps/v1.js";
import type { ServiceAccount } from "kubernetes-types/core/v1.js";
import type { ClusterRole, ClusterRoleBinding, PolicyRule } from "kubernetes-types/rbac/v1.js";

/** A rule as `verb group/resource` texts, e.g. `create events.k8s.io/events`, `patch /pods`. */
function grants(rules: readonly PolicyRule[]): string[] {
  return rules.flatMap((rule) =>
    (rule.apiGroups ?? []).flatMap((group) =>
      (rule.resources ?? []).flatMap((resource) => rule.verbs.map((verb) => `${verb} ${group}/${resource}`)),
    ),
  );
}

export interface WantedAccess {
  /** The overlay, for the messages. */
  where: string;
  /** Every `verb group/resource` the plugin needs; the role must grant these and nothing else. */
  grants: readonly string[];
  /** The environment variable that must carry the node's name (fieldRef spec.nodeName). */
  nodeNameEnv: string;
}

export function apiAccessProblems(wanted: WantedAccess, resources: readonly { kind?: string }[]): string[] {
  const problems: string[] = [];
  const problem = (text: string) => problems.push(`${wanted.where}: ${text}`);
  const of = <T>(kind: string) => resources.filter((resource) => resource.kind === kind) as T[];
  const set = of<DaemonSet>("DaemonSet")[0];
  if (!set) return [`${wanted.where}: renders no DaemonSet`];
  const namespace = set.metadata?.namespace;
  const pod = set.spec?.template.spec;
  const account = pod?.serviceAccountName;
  if (!account)
    return [`${wanted.where}: the DaemonSet's pods must run as a ServiceAccount of their own (serviceAccountName)`];
  if (
    !of<ServiceAccount>("ServiceAccount").some(
      (sa) => sa.metadata?.name === account && sa.metadata?.namespace === namespace,
    )
  )
    problem(`the ServiceAccount ${namespace}/${account} is not among the rendered resources`);
  const bindings = of<ClusterRoleBinding>("ClusterRoleBinding").filter((binding) =>
    (binding.subjects ?? []).some(
      (s) => s.kind === "ServiceAccount" && s.name === account && s.namespace === namespace,
    ),
  );
  const roles = of<ClusterRole>("ClusterRole").filter((role) =>
    bindings.some((binding) => binding.roleRef.kind === "ClusterRole" && binding.roleRef.name === role.metadata?.name),
  );
  if (bindings.length === 0) problem(`no ClusterRoleBinding binds the ServiceAccount ${namespace}/${account}`);
  else if (roles.length === 0) problem("the ClusterRoleBinding's ClusterRole is not among the rendered resources");
  const granted = roles.flatMap((role) => grants(role.rules ?? []));
  if (granted.some((grant) => grant.includes("*")))
    problem(`the ClusterRole grants a wildcard (${granted.join(", ")})`);
  const missing = wanted.grants.filter((grant) => !granted.includes(grant));
  const extra = granted.filter((grant) => !wanted.grants.includes(grant));
  if (roles.length > 0 && missing.length > 0) problem(`the ClusterRole must grant ${missing.join(", ")}`);
  if (extra.length > 0) problem(`the ClusterRole grants more than the plugin needs: ${extra.join(", ")}`);
  const env = pod?.containers[0]?.env?.find((variable) => variable.name === wanted.nodeNameEnv);
  if (env?.valueFrom?.fieldRef?.fieldPath !== "spec.nodeName")
    problem(`${wanted.nodeNameEnv} must come from the downward API (valueFrom.fieldRef.fieldPath: spec.nodeName)`);
  return problems;
}
