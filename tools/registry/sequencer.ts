/**
 * The registry test's files in one fixed order: the users of the first
 * release, then the second release (second-release.test.ts), which changes
 * what the registry holds.
 */
import type { TestSpecification } from "vitest/node";
import { BaseSequencer } from "vitest/node";

export class ReleaseOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const last = (spec: TestSpecification) => (spec.moduleId.endsWith("second-release.test.ts") ? 1 : 0);
    return [...files].sort((a, b) => last(a) - last(b) || a.moduleId.localeCompare(b.moduleId));
  }
}
