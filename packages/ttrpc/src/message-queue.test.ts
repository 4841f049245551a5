import { describe, expect, it } from "vitest";
import { MessageQueue, QUEUE_HIGH_WATER } from "./message-queue.js";

describe("MessageQueue", () => {
  it("yields what was pushed, then ends, or fails after the queued messages", async () => {
    const queue = new MessageQueue<number>();
    queue.push(1);
    queue.push(2);
    queue.end(new Error("broken"));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of queue) seen.push(item);
      })(),
    ).rejects.toThrow("broken");
    expect(seen).toEqual([1, 2]);
  });

  it("reports pressure above the high-water mark and relief at half of it", async () => {
    const pressure: boolean[] = [];
    const queue = new MessageQueue<number>({ pressure: (high) => pressure.push(high) });
    for (let i = 0; i <= QUEUE_HIGH_WATER; i++) queue.push(i);
    expect(pressure).toEqual([true]);
    queue.end();
    let read = 0;
    for await (const _ of queue) {
      read++;
      if (pressure.length === 2) break;
    }
    expect(pressure).toEqual([true, false]);
    expect(read).toBe(QUEUE_HIGH_WATER + 1 - QUEUE_HIGH_WATER / 2);
  });

  it("tells when the consumer leaves early, and drops later messages", async () => {
    let abandoned = 0;
    const queue = new MessageQueue<number>({ abandoned: () => abandoned++ });
    queue.push(1);
    for await (const _ of queue) break;
    expect(abandoned).toBe(1);
    expect(queue.finished).toBe(true);
    queue.push(2);
  });
});
