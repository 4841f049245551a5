import type { AdjustmentBuilder, ContainerAdjustment, UpdateBuilder } from "@nri-ts/api";
import type { CreateContainerReply, Plugin, UpdateContainerReply } from "./plugin.js";

/*
 * TypeScript checks an object literal returned by an arrow function against
 * the declared return type without its excess-property check, so
 * `createContainer: () => ({ annotations, anotations })` type-checks against
 * `Plugin` alone. Functions that take a plugin infer its exact type and
 * refuse the keys no answer form has, naming them.
 */

/** What a handler `H` resolves to. */
type Answer<H> = H extends (...args: never[]) => infer R ? Awaited<R> : never;

/** The handler `K` of `P`, if it has one. */
type Handler<P, K extends string> = P extends { [_ in K]?: infer H } ? H : never;

type Builder = AdjustmentBuilder | UpdateBuilder;

/** The keys of `M` that may hold a value: one that can only be undefined loses nothing. */
type DefinedKeys<M> = { [K in keyof M]-?: [Exclude<M[K], undefined>] extends [never] ? never : K }[keyof M];

/** The keys of a message answer `M` that `Known` lacks, prefixed with where it sits. */
type StrayMessageKeys<M, Known extends PropertyKey, Where extends string> = M extends Builder | readonly unknown[]
  ? never
  : M extends object
    ? `${Where}${Exclude<DefinedKeys<M>, Known> & string}`
    : never;

/** The stray keys of a createContainer answer, in whichever form it takes. */
type CreateContainerStrays<R> = R extends object
  ? Extract<DefinedKeys<R>, keyof CreateContainerReply> extends never
    ? StrayMessageKeys<R, keyof ContainerAdjustment, "">
    :
        | `${Exclude<DefinedKeys<R>, keyof CreateContainerReply | keyof ContainerAdjustment> & string}`
        | (R extends { adjust?: infer A } ? StrayMessageKeys<A, keyof ContainerAdjustment, "adjust."> : never)
  : never;

/** The stray keys of an updateContainer answer in the `{update, evict}` form. */
type UpdateContainerStrays<R> = R extends readonly unknown[]
  ? never
  : R extends object
    ? Extract<DefinedKeys<R>, keyof UpdateContainerReply> extends never
      ? never
      : `${Exclude<DefinedKeys<R>, keyof UpdateContainerReply> & string}`
    : never;

/** Every key in `P`'s handler answers that no answer form has. */
export type StrayResultKeys<P> =
  | CreateContainerStrays<Answer<Handler<P, "createContainer">>>
  | UpdateContainerStrays<Answer<Handler<P, "updateContainer">>>;

/**
 * Nothing for a plugin whose answers have only known keys; for any other,
 * a required property that names the stray keys in the type error.
 */
export type CheckResultKeys<P> = [StrayResultKeys<P>] extends [never]
  ? unknown
  : { "unknown keys in handler results": StrayResultKeys<P> };

/** A plugin whose handler answers are checked for unknown keys, as {@link runPlugin} and `new Stub` take it. */
export type CheckedPlugin<P extends Plugin> = P & CheckResultKeys<NoInfer<P>>;

/**
 * Returns the plugin as it is; at the type level, refuses keys in its
 * handlers' answers that no answer form has, which `const p: Plugin = {...}`
 * cannot do. For plugins kept in a variable or exported from a module.
 *
 * ```ts
 * export const plugin = definePlugin({ createContainer: () => ({ annotations: { seen: "yes" } }) });
 * ```
 */
export function definePlugin<P extends Plugin>(plugin: CheckedPlugin<P>): P {
  return plugin;
}
