import type { FilledAdjustment, FilledContainer } from "./normalize.js";
import type { Ownership } from "./owners.js";

/** What one plugin's adjustment is merged into. */
export interface AdjustmentTarget {
  readonly owners: Ownership;
  /** Id of the container being created: the scope of every claim. */
  readonly id: string;
  /** Full name (`<idx>-<base>`) of the plugin whose response is merged. */
  readonly plugin: string;
  /** The request copy: later plugins see what earlier ones changed here. */
  readonly container: FilledContainer;
  /** The merged reply that goes back to the runtime. */
  readonly reply: FilledAdjustment;
}
