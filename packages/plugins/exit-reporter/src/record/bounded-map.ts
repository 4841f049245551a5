/**
 * A Map that holds at most `capacity` entries: setting a new key beyond it
 * drops the oldest one. Setting an existing key makes it the newest.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly capacity: number) {
    super();
  }

  /** Sets the entry; returns the entry dropped to make room, if any. */
  put(key: K, value: V): [K, V] | undefined {
    this.delete(key);
    super.set(key, value);
    if (this.size <= this.capacity) return undefined;
    const [oldest] = this.entries();
    this.delete(oldest[0]);
    return oldest;
  }

  override set(key: K, value: V): this {
    this.put(key, value);
    return this;
  }
}
