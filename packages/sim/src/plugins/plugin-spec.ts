/** How a plugin is given to a simulation, and the index and name it runs with. */
import type { Plugin } from "@nri-ts/stub";

/** A plugin for `simulate`. Without `name` and `index`, a file named `NN-name` gives both. */
export type PluginSpec =
  | { plugin: Plugin; name: string; index: string }
  | { module: string; name?: string; index?: string; config?: string }
  | { executable: string; name?: string; index?: string; config?: string };

export interface Identity {
  index: string;
  name: string;
}
