import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server as NetServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CreateContainerRequest, PluginDefinition, RuntimeDefinition } from "@nri-ts/api";
import { Mux, PLUGIN_SERVICE_CONN, RUNTIME_SERVICE_CONN } from "@nri-ts/mux";
import { Channel, createClient, encodeRequestFrame, Server } from "@nri-ts/ttrpc";
import { afterEach, expect, it } from "vitest";
import { Flood, floodCost, MeasuredChild } from "../../ttrpc/src/testing/flood.js";

/*
 * A runtime that sends 30 MB of CreateContainer requests and reads nothing
 * back. The plugin, in a child process so that its memory is its own, stops
 * reading while its answers wait, and answers everything once the runtime
 * reads again.
 */

const FLOOD_BYTES = 30 << 20;
const RSS_BOUND = 4 << 20;
const service = PluginDefinition.fullName;
const target = fileURLToPath(new URL("../fixtures/flood-target.ts", import.meta.url));

let dir: string | undefined;
let child: MeasuredChild | undefined;
let listener: NetServer | undefined;
let trunk: Socket | undefined;
afterEach(async () => {
  trunk?.destroy();
  listener?.close();
  await child?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("a runtime that sends without reading costs the plugin bounded memory", { timeout: 60_000 }, async () => {
  dir = await mkdtemp(join(tmpdir(), "nri-ts-stub-flood-"));
  const path = join(dir, "nri.sock");
  listener = createServer();
  listener.listen(path);
  await once(listener, "listening");
  const accepted = once(listener, "connection") as Promise<[Socket]>;
  child = await MeasuredChild.start(target, [path]);
  [trunk] = await accepted;

  // a runtime as far as the handshake goes
  const mux = new Mux(trunk);
  const registered = new Promise<void>((resolve) => {
    void new Server()
      .add(RuntimeDefinition, {
        registerPlugin: async () => {
          resolve();
          return {};
        },
      })
      .serve(mux.open(RUNTIME_SERVICE_CONN));
  });
  const toPlugin = mux.open(PLUGIN_SERVICE_CONN);
  const plugin = createClient(PluginDefinition, new Channel(toPlugin));
  await registered;
  await plugin.configure({ runtimeName: "flood", runtimeVersion: "0", NRIVersion: "v0.12.2" });
  await plugin.synchronize({});
  const request = CreateContainerRequest.encode(
    CreateContainerRequest.fromPartial({ pod: { id: "pod" }, container: { id: "ctr", name: "app" } }),
  ).finish();
  let id = 1001;
  const flood = new Flood(toPlugin, trunk, () =>
    encodeRequestFrame((id += 2), 0, {
      service,
      method: "CreateContainer",
      payload: request,
      timeoutNano: 0n,
      metadata: [],
    }),
  );
  const { written, rssBefore, rssAfter } = await floodCost(flood, child, FLOOD_BYTES);
  expect(written, "the plugin stopped reading").toBeLessThan(FLOOD_BYTES);
  expect(rssAfter - rssBefore, `RSS grew from ${rssBefore} to ${rssAfter}`).toBeLessThan(RSS_BOUND);
  // every request is answered once the runtime reads again
  await flood.recover();
});
