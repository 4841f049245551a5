import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RuntimeDefinition, UpdateContainersRequest } from "@nri-ts/api";
import { encodeRequestFrame } from "@nri-ts/ttrpc";
import { afterEach, expect, it } from "vitest";
import { Flood, floodCost, MeasuredChild } from "../../ttrpc/src/testing/flood.js";
import { ScriptedPlugin } from "./testing/scripted-plugin.js";

/*
 * A plugin that sends 30 MB of UpdateContainers requests and reads nothing
 * back. The adaptation, in a child process so that its memory is its own,
 * stops reading that plugin while its answers wait, and answers everything
 * once the plugin reads again.
 */

const FLOOD_BYTES = 30 << 20;
const RSS_BOUND = 4 << 20;
const target = fileURLToPath(new URL("../fixtures/flood-target.ts", import.meta.url));

let dir: string | undefined;
let child: MeasuredChild | undefined;
let plugin: ScriptedPlugin | undefined;
afterEach(async () => {
  plugin?.close();
  await child?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("a plugin that sends without reading costs the runtime bounded memory", { timeout: 60_000 }, async () => {
  dir = await mkdtemp(join(tmpdir(), "nri-ts-adaptation-flood-"));
  const socketPath = join(dir, "nri.sock");
  child = await MeasuredChild.start(target, [socketPath, join(dir, "no-plugins")]);
  const synchronized = new Promise<void>((resolve) => {
    void ScriptedPlugin.connect(socketPath, {
      name: "flood",
      index: "10",
      handlers: {
        synchronize: async () => {
          resolve();
          return { update: [], more: false };
        },
      },
    }).then((connected) => (plugin = connected));
  });
  await synchronized;
  const connected = plugin as ScriptedPlugin;

  const payload = UpdateContainersRequest.encode(
    UpdateContainersRequest.fromPartial({
      update: [{ containerId: "ctr", linux: { resources: { cpu: { shares: { value: 512n } } } } }],
    }),
  ).finish();
  let id = 1001;
  const flood = new Flood(connected.runtimeConnection, connected.mux.trunk, () =>
    encodeRequestFrame((id += 2), 0, {
      service: RuntimeDefinition.fullName,
      method: "UpdateContainers",
      payload,
      timeoutNano: 0n,
      metadata: [],
    }),
  );
  const { written, rssBefore, rssAfter } = await floodCost(flood, child, FLOOD_BYTES);
  expect(written, "the adaptation stopped reading").toBeLessThan(FLOOD_BYTES);
  expect(rssAfter - rssBefore, `RSS grew from ${rssBefore} to ${rssAfter}`).toBeLessThan(RSS_BOUND);
  // every request is answered once the plugin reads again
  await flood.recover();
});
