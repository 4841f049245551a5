/**
 * Asynchronous locks: the adaptation serializes its requests with a mutex,
 * and keeps a newly connected plugin's synchronization apart from the
 * runtime's critical sections with a readers-writer lock.
 */

/** Releases what was acquired; calling it again does nothing. */
export type Release = () => void;

function once(release: () => void): Release {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}

/** A first-come, first-served mutex. */
export class Mutex {
  #locked = false;
  readonly #waiters: Array<() => void> = [];

  /** Resolves once the mutex is held, with the function that releases it. */
  lock(): Promise<Release> {
    return new Promise((resolve) => {
      const grant = () => {
        this.#locked = true;
        resolve(once(() => this.#unlock()));
      };
      if (this.#locked) this.#waiters.push(grant);
      else grant();
    });
  }

  /** Runs `body` holding the mutex. */
  async run<T>(body: () => Promise<T>): Promise<T> {
    const release = await this.lock();
    try {
      return await body();
    } finally {
      release();
    }
  }

  #unlock(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#locked = false;
  }
}

/**
 * A readers-writer lock that does not starve writers: once a writer waits,
 * new readers queue behind it (as with Go's sync.RWMutex).
 */
export class ReadWriteLock {
  #readers = 0;
  #writing = false;
  readonly #queue: Array<{ write: boolean; grant: () => void }> = [];

  /** Shared access. */
  read(): Promise<Release> {
    return new Promise((resolve) => {
      const grant = () => {
        this.#readers++;
        resolve(once(() => this.#releaseRead()));
      };
      if (!this.#writing && this.#queue.length === 0) grant();
      else this.#queue.push({ write: false, grant });
    });
  }

  /** Exclusive access. */
  write(): Promise<Release> {
    return new Promise((resolve) => {
      const grant = () => {
        this.#writing = true;
        resolve(once(() => this.#releaseWrite()));
      };
      if (!this.#writing && this.#readers === 0 && this.#queue.length === 0) grant();
      else this.#queue.push({ write: true, grant });
    });
  }

  #releaseRead(): void {
    this.#readers--;
    this.#dispatch();
  }

  #releaseWrite(): void {
    this.#writing = false;
    this.#dispatch();
  }

  #dispatch(): void {
    while (this.#queue.length > 0 && !this.#writing) {
      if (this.#queue[0]!.write && this.#readers > 0) return;
      this.#queue.shift()!.grant();
    }
  }
}
