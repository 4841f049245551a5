/**
 * An `events:` expectation names plugins by their full name; one naming a
 * plugin the run does not have (a typo such as `10-logr`) would pass with
 * an empty list, so it is a scenario error, found once the plugins are
 * connected and before the first step.
 */
import { ScenarioError } from "../scenario/parse-scenario.js";
import type { Scenario } from "../scenario/scenario.js";
import type { ScenarioIssue } from "../scenario/yaml-value.js";

/**
 * @param running the full names of the plugins in the run (as the report lists them)
 * @param scripted the scenario's own scripted plugins (`plugin-update`), whose events reports leave out
 * @throws ScenarioError with every such name, each where the scenario writes it
 */
export function checkEventPlugins(scenario: Scenario, running: readonly string[], scripted: readonly string[]): void {
  const issues: ScenarioIssue[] = [];
  for (const [i, expectation] of scenario.expect.entries()) {
    for (const plugin of Object.keys(expectation.events ?? {})) {
      if (running.includes(plugin)) continue;
      const place = expectation.eventPlugins?.[plugin] ?? { path: `expect[${i}].events.${plugin}` };
      const message = scripted.includes(plugin)
        ? `${plugin} is the scenario's scripted plugin (plugin-update); reports leave its events out`
        : `no plugin ${JSON.stringify(plugin)} is in the run; plugins: ${running.join(", ") || "none"}`;
      issues.push({ ...place, message });
    }
  }
  if (issues.length === 0) return;
  issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  throw new ScenarioError(scenario.file, issues);
}
