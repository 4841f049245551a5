/**
 * One line about a container's status, for the status fields (created,
 * started and finished times, exit code, reason, message) that runtimes
 * fill in from NRI v0.10 on. Absent when the runtime sent none of them.
 */
import { type Container, ContainerState, describeContainerStatus, nsToDate } from "@nri-ts/api";

function time(ns: bigint): string | undefined {
  return nsToDate(ns)?.toISOString();
}

export function statusLine(container: Container): string | undefined {
  const { createdAt, startedAt, finishedAt, exitCode, statusReason, statusMessage } = container;
  const parts = [
    createdAt !== 0n && `created_at ${time(createdAt)}`,
    startedAt !== 0n && `started_at ${time(startedAt)}`,
    finishedAt !== 0n && `finished_at ${time(finishedAt)}`,
    (finishedAt !== 0n || exitCode !== 0) && `exit_code ${exitCode}`,
    statusReason !== "" && `status_reason ${statusReason}`,
    statusMessage !== "" && `status_message ${JSON.stringify(statusMessage)}`,
  ].filter((part): part is string => typeof part === "string");
  if (parts.length === 0) return undefined;
  // "running" without a duration: the plugin's clock need not be the runtime's.
  const state = container.state === ContainerState.CONTAINER_RUNNING ? "running" : describeContainerStatus(container);
  return `${state} (${parts.join(", ")})`;
}
