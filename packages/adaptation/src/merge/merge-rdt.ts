import type { LinuxRdt } from "@nri-ts/api";
import { Field, LinuxRdt as LinuxRdtFns } from "@nri-ts/api";
import type { AdjustmentTarget } from "./merge-context.js";

/**
 * RDT. QUIRK (reproduced): Go runs this for every adjustment that has a
 * `linux` part, so the reply's `linux.rdt` becomes `{}` from then on even
 * when nobody touches RDT. `remove` clears the three fields for the plugin
 * and replaces the reply's RDT by `{remove: true}`, dropping earlier
 * plugins' values; each set field is claimed, copied, and resets `remove`.
 * The request copy's RDT is not changed.
 */
export function mergeRdt(rdt: LinuxRdt | undefined, target: AdjustmentTarget): void {
  const { owners, id, plugin } = target;
  const linux = target.reply.linux;
  linux.rdt ??= LinuxRdtFns.create();

  if (rdt?.remove) {
    owners.clearRdt(id, plugin);
    linux.rdt = { ...LinuxRdtFns.create(), remove: true };
  }
  const reply = linux.rdt;
  if (rdt?.closId !== undefined) {
    owners.claim(id, Field.RdtClosID, plugin);
    reply.closId = { value: rdt.closId.value };
    reply.remove = false;
  }
  if (rdt?.schemata !== undefined) {
    owners.claim(id, Field.RdtSchemata, plugin);
    reply.schemata = { value: [...rdt.schemata.value] };
    reply.remove = false;
  }
  if (rdt?.enableMonitoring !== undefined) {
    owners.claim(id, Field.RdtEnableMonitoring, plugin);
    reply.enableMonitoring = { value: rdt.enableMonitoring.value };
    reply.remove = false;
  }
}
