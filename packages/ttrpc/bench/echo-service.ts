import { KeyValue } from "../src/index.js";

/**
 * The Echo method of the conformance test service
 * (packages/conformance/cmd/ttrpc-peer/service.go), which the Go peer serves.
 */
export const EchoDefinition = {
  name: "Test",
  fullName: "nrits.conformance.Test",
  methods: {
    echo: {
      name: "Echo",
      requestType: KeyValue,
      responseType: KeyValue,
      requestStream: false,
      responseStream: false,
      options: {},
    },
  },
} as const;
