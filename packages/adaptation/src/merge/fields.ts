import { type Field, fieldToJSON } from "@nri-ts/api";

/** Fields owned per entry: the key is an annotation name, a mount destination, ... */
export type CompoundField =
  | Field.Annotations
  | Field.Mounts
  | Field.Devices
  | Field.CdiDevices
  | Field.Env
  | Field.HugepageLimits
  | Field.CgroupsUnified
  | Field.Rlimits
  | Field.Namespace
  | Field.Sysctl
  | Field.LinuxNetDevices;

/** Fields owned as a whole. OCI hooks are simple too, but accumulate owners. */
export type SimpleField = Exclude<Field, CompoundField | Field.None | Field.UNRECOGNIZED>;

/** The name a field has in conflict errors: the proto enum name, e.g. "MemLimit". */
export function fieldName(field: Field): string {
  // Go prints an unknown enum value as its number.
  const name = fieldToJSON(field);
  return name === "UNRECOGNIZED" ? String(field) : name;
}
