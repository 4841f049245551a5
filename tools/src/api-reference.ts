/** Where `npm run docs` writes the API reference (TypeDoc, not hosted), and each package's page in it. */

/** The output directory, relative to the repository root (typedoc.json's `out`). */
export const API_DOCS = "docs/api";

/** `@nri-ts/stub` → `docs/api/modules/_nri-ts_stub.html`: TypeDoc names a module's page after it, other characters than letters, digits and `-` as `_`. */
export function apiPage(packageName: string): string {
  return `${API_DOCS}/modules/${packageName.replace(/[^A-Za-z0-9-]/g, "_")}.html`;
}
