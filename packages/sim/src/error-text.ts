/** The message of an Error, or the text of anything else thrown. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
