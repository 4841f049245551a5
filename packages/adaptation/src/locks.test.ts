import { describe, expect, test } from "vitest";
import { Mutex, ReadWriteLock } from "./locks.js";

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("Mutex", () => {
  test("grants in arrival order, one at a time", async () => {
    const mutex = new Mutex();
    const order: string[] = [];
    const first = await mutex.lock();
    const second = mutex.lock().then((release) => {
      order.push("second");
      return release;
    });
    const third = mutex.lock().then((release) => {
      order.push("third");
      release();
    });
    await settle();
    expect(order).toEqual([]);
    first();
    first();
    (await second)();
    await third;
    expect(order).toEqual(["second", "third"]);
  });

  test("run releases when the body throws", async () => {
    const mutex = new Mutex();
    await expect(mutex.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(mutex.run(async () => "free")).resolves.toBe("free");
  });
});

describe("ReadWriteLock", () => {
  test("readers share; a writer waits for them and holds off later readers", async () => {
    const lock = new ReadWriteLock();
    const events: string[] = [];
    const reader1 = await lock.read();
    const reader2 = await lock.read();
    const writer = lock.write().then((release) => {
      events.push("writer");
      return release;
    });
    const lateReader = lock.read().then((release) => {
      events.push("late reader");
      return release;
    });
    await settle();
    expect(events).toEqual([]);
    reader1();
    await settle();
    expect(events).toEqual([]);
    reader2();
    reader2();
    const releaseWriter = await writer;
    await settle();
    expect(events).toEqual(["writer"]);
    releaseWriter();
    (await lateReader)();
    expect(events).toEqual(["writer", "late reader"]);
  });

  test("readers queued behind a writer are let in together", async () => {
    const lock = new ReadWriteLock();
    const releaseWriter = await lock.write();
    const readers = [lock.read(), lock.read()];
    releaseWriter();
    const releases = await Promise.all(readers);
    expect(releases).toHaveLength(2);
    for (const release of releases) release();
    (await lock.write())();
  });
});
