import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NetworkNamespace } from "./links.js";
import { moveLinkIn, moveLinkOut } from "./move.js";
import { links, noNetns, type ScratchNetns, scratchNetns } from "./testing/support.js";

// Two scratch namespaces stand for the host and the pod: nothing here touches the machine's own links.
describe.skipIf(noNetns !== undefined)(
  `moving links between real network namespaces${noNetns ? ` (skipped: ${noNetns})` : ""}`,
  () => {
    let host: ScratchNetns;
    let pod: ScratchNetns;

    beforeEach(async () => {
      [host, pod] = [await scratchNetns("host"), await scratchNetns("pod")];
      await host.ip("link", "add", "ens9", "type", "veth", "peer", "name", "peer9");
      await host.ip("link", "set", "ens9", "up");
    });

    afterEach(async () => {
      await Promise.all([host.remove(), pod.remove()]);
    });

    it("moves a link in as its new name, up, with its host name as alias, and out again under that name, down", async () => {
      await moveLinkIn(pod.ns, "ens9", "net1", host.ns);
      expect(links(pod)).toEqual(["net1@ens9:up"]);
      expect(links(host)).toEqual(["peer9:down"]);
      await moveLinkOut(pod.ns, "net1", host.ns);
      expect(links(pod)).toEqual([]);
      expect(links(host)).toEqual(["ens9@ens9:down", "peer9:down"]);
    });

    it("moves a link that was down in and up", async () => {
      await host.ip("link", "set", "ens9", "down");
      await moveLinkIn(pod.ns, "ens9", "ens9", host.ns);
      expect(links(pod)).toEqual(["ens9@ens9:up"]);
    });

    it("fails on a link the host does not have, with iproute2's words, and changes nothing", async () => {
      await expect(moveLinkIn(pod.ns, "nope0", "net1", host.ns)).rejects.toThrow('Device "nope0" does not exist.');
      expect(links(host)).toEqual(["ens9:up", "peer9:down"]);
    });

    it("fails on a path that is no network namespace before touching the link", async () => {
      await expect(moveLinkIn(new NetworkNamespace("/proc/self/status"), "ens9", "net1", host.ns)).rejects.toThrow();
      expect(links(host)).toEqual(["ens9:up", "peer9:down"]);
    });

    it("puts the link back, renamed and up as it was, when the pod already has a link of the new name (the alias stays, as in Go)", async () => {
      await pod.ip("link", "add", "net1", "type", "veth", "peer", "name", "podpeer");
      const index = JSON.parse(await host.ip("-json", "link", "show", "ens9"))[0].ifindex as number;
      await expect(moveLinkIn(pod.ns, "ens9", "net1", host.ns)).rejects.toThrow(
        new RegExp(`^failed to rename device "temp_${index}" to "net1": `),
      );
      expect(links(host)).toEqual(["ens9@ens9:up", "peer9:down"]);
      expect(links(pod)).toEqual(["net1:down", "podpeer:down"]);
    });

    it("puts a link that cannot leave its namespace (a bridge) back as it was", async () => {
      await host.ip("link", "add", "br9", "type", "bridge");
      await host.ip("link", "set", "br9", "up");
      await expect(moveLinkIn(pod.ns, "br9", "net1", host.ns)).rejects.toThrow(
        /^failed to move "temp_\d+" to container ns: /,
      );
      expect(links(host)).toEqual(["br9:up", "ens9:up", "peer9:down"]);
      expect(links(pod)).toEqual([]);
    });

    it("fails to release a link the pod does not have", async () => {
      await expect(moveLinkOut(pod.ns, "net1", host.ns)).rejects.toThrow(
        'failed to find "net1": Device "net1" does not exist.',
      );
    });

    it("leaves the link in the pod, named and up as it was, when the host has a link of its alias's name", async () => {
      await moveLinkIn(pod.ns, "ens9", "net1", host.ns);
      await host.ip("link", "add", "ens9", "type", "veth", "peer", "name", "other9");
      await expect(moveLinkOut(pod.ns, "net1", host.ns)).rejects.toThrow(
        /^failed to restore "temp_\d+" to original name "ens9": /,
      );
      expect(links(pod)).toEqual(["net1@ens9:up"]);
    });

    it("puts a link back when its new name is empty, its alias set, as Go does (the kernel refuses the name)", async () => {
      await expect(moveLinkIn(pod.ns, "ens9", "", host.ns)).rejects.toThrow(
        /^failed to rename device "temp_\d+" to "": /,
      );
      expect(links(host)).toEqual(["ens9@ens9:up", "peer9:down"]);
    });

    it("leaves a link without an alias in the pod, under its name, as Go does (it cannot be renamed to the empty alias)", async () => {
      await pod.ip("link", "add", "net1", "type", "veth", "peer", "name", "podpeer");
      await expect(moveLinkOut(pod.ns, "net1", host.ns)).rejects.toThrow(
        /^failed to restore "temp_\d+" to original name "": /,
      );
      expect(links(pod)).toEqual(["net1:down", "podpeer:down"]);
    });
  },
);
