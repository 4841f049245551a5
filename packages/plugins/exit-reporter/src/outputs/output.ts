/**
 * An output of exit records: JSON lines, Prometheus metrics, the gRPC
 * service. `publish` never blocks and never throws at its caller: an
 * output that cannot keep up drops records and says so through `onDrop`.
 */
import type { ExitRecord } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

export interface ExitOutput {
  /** `json-lines`, `prometheus` or `grpc`. */
  readonly name: string;
  /** Where it goes, for the log: `stdout`, a file, `http://127.0.0.1:9309/metrics`, `unix:///run/x.sock`. */
  readonly where?: string;
  publish(record: ExitRecord): void;
  /** Flushes what it can and releases what it holds. */
  close(): Promise<void>;
}

/** Told when an output loses records: how many, and why. */
export type DropListener = (output: string, records: number, why: string) => void;
