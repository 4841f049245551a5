export * from "./gen/nri/pkg/api/v1alpha1/api.js";
