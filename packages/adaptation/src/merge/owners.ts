import type { CompoundFieldOwners, FieldOwners, OwningPlugins } from "@nri-ts/api";
import { Field, markForRemoval, parseRemovalMarker } from "@nri-ts/api";
import { goQuote } from "@nri-ts/common";
import type { CompoundField, SimpleField } from "./fields.js";
import { fieldName } from "./fields.js";

/**
 * Two plugins set the same field (or the same entry of a compound field) of
 * one container in one request. The message is the Go adaptation's, down to
 * the trailing space after a simple field's name. It has no stack trace
 * (`stack` is its first line): the plugins' adjustments caused it, not the
 * code that found it, and capturing the frames was a tenth of the runtime's
 * CPU for a request that fails on a conflict.
 */
export class ConflictError extends Error {
  override readonly name = "ConflictError";
  constructor(
    /** Full name (`<idx>-<base>`) of the plugin whose claim failed. */
    readonly plugin: string,
    /** Full name of the plugin that set or removed the field before. */
    readonly other: string,
    readonly field: Field,
    /** The entry key for compound fields. */
    readonly key?: string,
  ) {
    const message = `plugins ${goQuote(plugin)} and ${goQuote(other)} both tried to set ${fieldName(field)} ${key ?? ""}`;
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function ownersFor(owners: OwningPlugins | undefined, id: string): FieldOwners | undefined {
  return owners?.owners[id];
}

/** The owner of a simple field of container `id`: a plugin name, `-<plugin>` once cleared, or undefined. */
export function simpleOwner(owners: OwningPlugins | undefined, id: string, field: SimpleField): string | undefined {
  return ownersFor(owners, id)?.simple[field];
}

/** The owner of one entry of a compound field of container `id`. */
export function compoundOwner(
  owners: OwningPlugins | undefined,
  id: string,
  field: CompoundField,
  key: string,
): string | undefined {
  return ownersFor(owners, id)?.compound[field]?.owners[key];
}

/** Every entry owner of a compound field (e.g. namespace type → plugin), or undefined if nobody touched it. */
export function compoundOwners(
  owners: OwningPlugins | undefined,
  id: string,
  field: CompoundField,
): Readonly<Record<string, string>> | undefined {
  return ownersFor(owners, id)?.compound[field]?.owners;
}

/**
 * Who set what, for one request: the live `OwningPlugins` message that is
 * later handed to validators. A claim by a plugin fails when another plugin,
 * or the same one, already set the field, unless the field was last cleared
 * (removed) by the claiming plugin itself.
 */
export class Ownership {
  constructor(readonly message: OwningPlugins = { owners: {} }) {}

  private fieldsOf(id: string): FieldOwners {
    return (this.message.owners[id] ??= { simple: {}, compound: {} });
  }

  private entriesOf(id: string, field: CompoundField): CompoundFieldOwners {
    return (this.fieldsOf(id).compound[field] ??= { owners: {} });
  }

  /** Record `plugin` as the owner of a simple field; throws ConflictError if taken. */
  claim(id: string, field: SimpleField, plugin: string): void {
    const fields = this.fieldsOf(id);
    checkClaim(fields.simple[field], plugin, field);
    fields.simple[field] = plugin;
  }

  /** Record `plugin` as the owner of one entry of a compound field; throws ConflictError if taken. */
  claimEntry(id: string, field: CompoundField, key: string, plugin: string): void {
    const entries = this.entriesOf(id, field);
    checkClaim(entries.owners[key], plugin, field, key);
    entries.owners[key] = plugin;
  }

  /** Mark a simple field as removed by `plugin`, whoever owned it. */
  clear(id: string, field: SimpleField, plugin: string): void {
    this.fieldsOf(id).simple[field] = markForRemoval(plugin);
  }

  /** Mark an entry of a compound field as removed by `plugin`, whoever owned it. */
  clearEntry(id: string, field: CompoundField, key: string, plugin: string): void {
    this.entriesOf(id, field).owners[key] = markForRemoval(plugin);
  }

  /** OCI hooks never conflict: owners accumulate as "p1,p2,...". */
  claimHooks(id: string, plugin: string): void {
    const fields = this.fieldsOf(id);
    const previous = fields.simple[Field.OciHooks];
    fields.simple[Field.OciHooks] = previous === undefined ? plugin : `${previous},${plugin}`;
  }

  /** Clear the three RDT fields (closID, schemata, monitoring) for `plugin`. */
  clearRdt(id: string, plugin: string): void {
    this.clear(id, Field.RdtClosID, plugin);
    this.clear(id, Field.RdtSchemata, plugin);
    this.clear(id, Field.RdtEnableMonitoring, plugin);
  }

  owner(id: string, field: SimpleField): string | undefined {
    return simpleOwner(this.message, id, field);
  }

  entryOwner(id: string, field: CompoundField, key: string): string | undefined {
    return compoundOwner(this.message, id, field, key);
  }

  entryOwners(id: string, field: CompoundField): Readonly<Record<string, string>> | undefined {
    return compoundOwners(this.message, id, field);
  }
}

function checkClaim(current: string | undefined, plugin: string, field: Field, key?: string): void {
  if (current === undefined) return;
  const { key: clearer, marked } = parseRemovalMarker(current);
  if (marked && clearer === plugin) return;
  throw new ConflictError(plugin, marked ? clearer : current, field, key);
}
