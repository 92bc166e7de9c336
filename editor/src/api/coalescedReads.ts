/**
 * One read of a list at a time, and none lost: a request while a read is under way is answered
 * by one more read after it (that read may have started before the change the caller knows
 * of), however many requests came in meanwhile. The page's comments and files read their lists
 * through it.
 */
export class CoalescedReads {
  readonly #read: () => Promise<void>;
  #inFlight: Promise<void> | null = null;
  #again = false;

  constructor(read: () => Promise<void>) {
    this.#read = read;
  }

  get running(): boolean {
    return this.#inFlight !== null;
  }

  /** Resolves once a read that started after this call has finished. */
  request(): Promise<void> {
    if (this.#inFlight) {
      this.#again = true;
      return this.#inFlight;
    }
    this.#inFlight = (async () => {
      do {
        this.#again = false;
        await this.#read();
      } while (this.#again);
    })().finally(() => (this.#inFlight = null));
    return this.#inFlight;
  }
}
