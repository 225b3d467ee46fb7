/**
 * How an export's format takes its records: the engine fetches pages in ID
 * order and hands them over; the format decides what goes to the sink and
 * when, and keeps the checkpoint's state (rows, bytes, sha256, last ID) at
 * what the sink holds complete.
 */
import type { Digest, Page } from './pager.js';

export interface FormatWriter<P> {
  /** What a page's records are made into, record by record as they arrive (in the chunk that fetched them). */
  newDigest(): Digest<P>;
  /** Writes what comes before the first record (the sink is empty). */
  head(): Promise<void>;
  /** Takes the next page, in ID order. */
  page(page: Page<P>): Promise<void>;
  /** Writes what is left and what comes after the last record. */
  end(): Promise<void>;
  /** Records taken so far, written or held (for the progress line). */
  readonly seen: number;
}
