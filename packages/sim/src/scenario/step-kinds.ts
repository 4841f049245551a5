import type { StepKind } from "./scenario.js";

/** Every action a step can take, in lifecycle order. */
export const STEP_KINDS: readonly StepKind[] = [
  "run-pod",
  "update-pod",
  "create",
  "start",
  "update",
  "exit",
  "stop",
  "remove",
  "stop-pod",
  "remove-pod",
  "plugin-update",
  "wait",
];
