/**
 * Moving a host link into a pod's network namespace and back, step for step
 * as the Go plugin does it (its host-device.go, itself from the CNI
 * host-device plugin), with the same error texts, and undoing the steps
 * already taken when a later one fails, as the Go code's deferred calls do:
 *
 * - in: set it down, rename it `temp_<index>` (no clash with the pod's
 *   links), move it into the pod's namespace, set its alias to its host
 *   name, rename it to the new name, set it up;
 * - out: in the pod's namespace set it down, rename it `temp_<index>`, move
 *   it to the host's namespace, rename it to its alias. It stays down.
 *
 * Go changes a link by its index, `ip` by its name, so this code follows
 * the link's name through the renames. Undo steps that fail are ignored, as
 * in Go.
 */
import { goQuote as quote } from "@nri-ts/common";
import { type Link, NetworkNamespace } from "./links.js";

/** Runs a step; its failure is `<what>: <the tool's message>`. */
async function step<T>(what: string, action: Promise<T>): Promise<T> {
  try {
    return await action;
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}`, { cause: error });
  }
}

/** Runs an undo step; true where it worked. */
const undone = (action: Promise<unknown>): Promise<boolean> =>
  action.then(
    () => true,
    () => false,
  );

/** Renames a link to `temp_<index>` and reads it again, with the Go plugin's errors. */
async function toTemp(ns: NetworkNamespace, link: Link): Promise<Link> {
  const temp = `temp_${link.index}`;
  await step(`failed to rename device ${quote(link.name)} to ${quote(temp)}`, ns.rename(link.name, temp));
  return step(`failed to find ${quote(link.name)} after rename to ${quote(temp)}`, ns.link(temp));
}

/**
 * Moves the link `name` of the host's namespace into `pod` as `newName`.
 * @param host the namespace the link is in; default the plugin's own
 * @throws Error why it did not; the steps taken are undone
 */
export async function moveLinkIn(
  pod: NetworkNamespace,
  name: string,
  newName: string,
  host = new NetworkNamespace(),
): Promise<void> {
  await pod.check();
  const link = await host.link(name);
  await step(`failed to set ${quote(link.name)} down`, host.setDown(link.name));
  // What the host knows the link as, for the undo steps; undefined where it is not there.
  let hostName: string | undefined = link.name;
  try {
    const temp = await toTemp(host, link).catch((error: Error) => {
      hostName = undefined;
      throw new Error(`failed to rename device ${quote(link.name)} to temporary name: ${error.message}`, {
        cause: error,
      });
    });
    hostName = temp.name;
    await step(`failed to move ${quote(temp.name)} to container ns`, host.moveTo(temp.name, pod));
    hostName = undefined;
    await step(`failed to find ${quote(temp.name)}`, pod.link(temp.name));
    let podName = temp.name;
    try {
      await step(`failed to set alias to ${quote(temp.name)}`, pod.setAlias(temp.name, link.name));
      await step(`failed to rename device ${quote(temp.name)} to ${quote(newName)}`, pod.rename(temp.name, newName));
      podName = newName;
      try {
        await step(`failed to set ${quote(newName)} up`, pod.setUp(podName));
        try {
          await step(`failed to find ${quote(newName)}`, pod.link(newName));
        } catch (error) {
          await undone(pod.setDown(podName));
          throw error;
        }
      } catch (error) {
        if (await undone(pod.rename(podName, temp.name))) podName = temp.name;
        throw error;
      }
    } catch (error) {
      // Back to the host, where the outer undo steps find it by its temporary name.
      await undone(pod.moveTo(podName, host));
      hostName = (await host.link(temp.name).catch(() => undefined))?.name;
      throw error;
    }
  } catch (error) {
    if (hostName !== undefined) {
      if (await undone(host.rename(hostName, link.name))) hostName = link.name;
      if (link.up) await undone(host.setUp(hostName));
    }
    throw error;
  }
}

/**
 * Moves the link `newName` of `pod` back into the host's namespace under
 * its alias, down.
 * @param host where it goes; default the plugin's own namespace
 * @throws Error why it did not; the link is back in the pod, as the Go plugin leaves it
 */
export async function moveLinkOut(
  pod: NetworkNamespace,
  newName: string,
  host = new NetworkNamespace(),
): Promise<void> {
  await pod.check();
  const link = await step(`failed to find ${quote(newName)}`, pod.link(newName));
  await step(`failed to set ${quote(newName)} down`, pod.setDown(newName));
  // The link as last read (Go looks at its flags: down once it has its temporary name).
  let current = link;
  let temp: Link;
  try {
    temp = await step(`failed to rename device ${quote(newName)} to temporary name`, toTemp(pod, link));
    current = temp;
    await step(`failed to move ${quote(temp.name)} to host netns`, pod.moveTo(temp.name, host));
  } catch (error) {
    // Its name back so that it can be released again, and up again if it was.
    const renamed = await undone(pod.rename(current.name, newName));
    if (current.up) await undone(pod.setUp(renamed ? newName : current.name));
    throw error;
  }
  const back = await step(`failed to find ${quote(temp.name)} in host namespace`, host.link(temp.name));
  try {
    await host.rename(back.name, back.alias);
  } catch (error) {
    // Into the pod's namespace again, as it was, so that it can be released later.
    await undone(host.moveTo(back.name, pod));
    const renamed = await undone(pod.rename(back.name, newName));
    if (link.up) await undone(pod.setUp(renamed ? newName : back.name));
    throw new Error(
      `failed to restore ${quote(back.name)} to original name ${quote(back.alias)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
