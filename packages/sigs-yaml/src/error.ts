/** The YAML could not be decoded; `message` is the text the Go plugin gives for the same input. */
export class SigsYamlError extends Error {
  override readonly name = "SigsYamlError";
}
