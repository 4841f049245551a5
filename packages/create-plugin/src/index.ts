export { nameProblem } from "./name.js";
export { ScaffoldError, type Scaffolded, scaffold } from "./scaffold.js";
