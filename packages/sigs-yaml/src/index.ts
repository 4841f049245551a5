export { type DecodeOptions, decodeSigsYaml } from "./decode.js";
export { type EncodeOptions, encodeSigsYaml } from "./encode.js";
export { goMap, type JsonValue } from "./json-value.js";
export { SigsYamlError } from "./error.js";
export { goJson, goJsonArgument, jsonTag, MAP_FIELDS, type MessageArgument, marshalMessageYaml } from "./messages.js";
export {
  type Described,
  type FieldsValue,
  fieldFor,
  go,
  type GoBool,
  type GoInt,
  type GoMap,
  type GoPointer,
  type GoSlice,
  type GoString,
  type GoStruct,
  type GoType,
  type GoValueOf,
  zeroValue,
} from "./go-type.js";
export { jsonInteger } from "./json-decode.js";
export { compareBytes } from "./json.js";
export { MAX_DEPTH } from "./yaml-to-json.js";
export {
  MAX_YAML_NESTING,
  whereYamlNestsDeeperThan,
  type YamlPosition,
  yamlMayNestDeeperThan,
} from "./yaml-nesting.js";
