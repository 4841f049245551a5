/**
 * A parsed YAML document as go-yaml v2's decoder sees it: scalars with their
 * text, whether they were plain (only plain scalars are resolved to numbers,
 * bools and null) and their tag; collections; aliases with the node their
 * anchor named (the latest with that anchor before them).
 */
export type YamlNode = YamlScalar | YamlSeq | YamlMap | YamlAlias;

export interface YamlScalar {
  readonly kind: "scalar";
  readonly text: string;
  readonly plain: boolean;
  /** The tag as written, `!!int` style shorthands expanded to `tag:yaml.org,2002:int`. */
  readonly tag?: string;
}

export interface YamlSeq {
  readonly kind: "seq";
  readonly items: readonly (YamlNode | null)[];
}

export interface YamlMap {
  readonly kind: "map";
  readonly pairs: readonly (readonly [YamlNode | null, YamlNode | null])[];
}

export interface YamlAlias {
  readonly kind: "alias";
  readonly name: string;
  /** Undefined when no node before it has the anchor. */
  readonly target: YamlNode | undefined;
}
