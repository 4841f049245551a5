/**
 * A decoded protocol message seen as the Go struct the Go differ holds:
 * its fields in declaration order, each with its Go name (`PodSandboxId`,
 * `CDIDevices`), its name in the text format (`pod_sandbox_id`) and what
 * kind of Go value it is. ts-proto decodes every field of a message, in the
 * order the .proto declares them, which is the order of the Go struct's
 * fields.
 */
import {
  Container,
  ContainerState,
  IOPrioClass,
  LinuxIOPriority,
  LinuxMemoryPolicy,
  LinuxScheduler,
  LinuxSchedulerFlag,
  LinuxSchedulerPolicy,
  MpolFlag,
  MpolMode,
  SecurityProfile,
  SecurityProfile_ProfileType,
} from "@nri-ts/api";
import { jsonTag, MAP_FIELDS } from "@nri-ts/sigs-yaml";

/** A message as ts-proto decodes it. */
export type Message = { readonly [field: string]: unknown };

/** A TypeScript enum object: names by number. */
type EnumNames = Readonly<Record<number, string>>;

/**
 * What a field holds, as Go sees it: a scalar (string, number, bool), an
 * enum (printed by name), a pointer to a message (nil when absent), a slice
 * or a map (of scalars, enums or messages).
 */
export type Kind =
  | { readonly of: "scalar" }
  | { readonly of: "enum"; readonly names: EnumNames }
  | { readonly of: "message" }
  | { readonly of: "slice"; readonly element?: EnumNames }
  | { readonly of: "map" };

export interface GoField {
  /** The field in the TypeScript message. */
  readonly field: string;
  /** The Go struct field's name: what r3labs/diff puts in a change's path. */
  readonly goName: string;
  /** The field's proto name: what the text format writes. */
  readonly textName: string;
  readonly kind: Kind;
}

const shape = (message: object) => Object.keys(message).sort().join(",");

/** The enum fields of the messages a pod and a container hold. */
const ENUM_FIELDS: ReadonlyMap<string, Readonly<Record<string, EnumNames>>> = new Map<
  string,
  Readonly<Record<string, EnumNames>>
>([
  [shape(Container.fromPartial({})), { state: ContainerState }],
  [shape(LinuxIOPriority.fromPartial({})), { class: IOPrioClass }],
  [shape(LinuxScheduler.fromPartial({})), { policy: LinuxSchedulerPolicy, flags: LinuxSchedulerFlag }],
  [shape(LinuxMemoryPolicy.fromPartial({})), { mode: MpolMode, flags: MpolFlag }],
  [shape(SecurityProfile.fromPartial({})), { profileType: SecurityProfile_ProfileType }],
]);

/**
 * A Go name from a proto name, as protoc-gen-go makes it: an underscore
 * before a lower-case letter goes and the letter is capitalised, as is the
 * first letter and a letter after a digit.
 */
export function goCamelCase(protoName: string): string {
  let out = "";
  for (let i = 0; i < protoName.length; i++) {
    const c = protoName[i];
    const next = protoName[i + 1] ?? "";
    if (c === "_" && i > 0 && /[a-z]/.test(next)) continue;
    if (c === "_" && i === 0) out += "X";
    else if (/[0-9]/.test(c)) out += c;
    else {
      out += c.toUpperCase();
      while (/[a-z]/.test(protoName[i + 1] ?? "")) out += protoName[++i];
    }
  }
  return out;
}

const cache = new Map<string, readonly GoField[]>();

/** The Go struct fields of a decoded message, in the Go struct's order. */
export function goFields(message: Message): readonly GoField[] {
  const key = shape(message);
  let fields = cache.get(key);
  if (!fields) {
    const maps = MAP_FIELDS.get(key);
    const enums = ENUM_FIELDS.get(key) ?? {};
    fields = Object.entries(message).map(([field, value]): GoField => {
      const textName = jsonTag(field);
      const names = enums[field];
      let kind: Kind;
      if (Array.isArray(value)) kind = names ? { of: "slice", element: names } : { of: "slice" };
      else if (names) kind = { of: "enum", names };
      else if (maps?.has(field)) kind = { of: "map" };
      else if (value === undefined || typeof value === "object") kind = { of: "message" };
      else kind = { of: "scalar" };
      return { field, goName: goCamelCase(textName), textName, kind };
    });
    cache.set(key, fields);
  }
  return fields;
}
