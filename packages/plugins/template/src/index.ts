export { decodeTemplateConfig, type TemplateConfig, TemplateConfigError, type UpdateDemo } from "./config.js";
export { createTemplatePlugin, type TemplatePluginOptions, templateForSim as plugin } from "./plugin.js";
