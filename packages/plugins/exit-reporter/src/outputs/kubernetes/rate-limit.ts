/**
 * Token buckets: the API writes the Kubernetes output may make, per pod
 * and overall. A bucket holds up to `burst` tokens and gains one every
 * `refillMs`; each write takes one.
 */
import { BoundedMap } from "../../record/bounded-map.js";

export interface BucketLimits {
  burst: number;
  /** Milliseconds to gain one token. */
  refillMs: number;
}

export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly limits: BucketLimits,
    now: number,
  ) {
    this.tokens = limits.burst;
    this.at = now;
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    this.tokens = Math.min(this.limits.burst, this.tokens + (now - this.at) / this.limits.refillMs);
    this.at = now;
  }

  /** Milliseconds until a token is there (0: now). */
  waitMs(now: number): number {
    this.refill(now);
    return this.tokens >= 1 ? 0 : Math.ceil((1 - this.tokens) * this.limits.refillMs);
  }

  /** Takes a token; false when there is none. */
  take(now: number): boolean {
    if (this.waitMs(now) > 0) return false;
    this.tokens -= 1;
    return true;
  }

  /** Gives a token back (the write it was taken for did not happen). */
  give(): void {
    this.tokens = Math.min(this.limits.burst, this.tokens + 1);
  }
}

/** A bucket per key (a pod), the most recently used kept up to `maxKeys`; a full bucket is as good as none. */
export class KeyedBuckets {
  private readonly buckets: BoundedMap<string, TokenBucket>;

  constructor(
    private readonly limits: BucketLimits,
    maxKeys = 4096,
  ) {
    this.buckets = new BoundedMap(maxKeys);
  }

  private bucket(key: string, now: number): TokenBucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(this.limits, now);
      this.buckets.put(key, bucket);
    }
    return bucket;
  }

  waitMs(key: string, now: number): number {
    return this.buckets.get(key)?.waitMs(now) ?? 0;
  }

  take(key: string, now: number): boolean {
    return this.bucket(key, now).take(now);
  }

  give(key: string): void {
    this.buckets.get(key)?.give();
  }
}
