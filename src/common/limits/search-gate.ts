import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { appConfig } from '../../config/app.config';
import { ApiError } from '../errors/api-error';

/** A turn is a search's statements: seconds at most, so a client may ask again soon. */
const RETRY_AFTER_SECONDS = '1';

/** Searches that may wait for a turn, per search that may run. */
const WAITING_PER_TURN = 8;

interface Waiting {
  admit: () => void;
}

/**
 * At most SEARCH_MAX_CONCURRENT full-text searches of this instance read
 * the database at once (0: no bound). A common prefix (`search=ver`) makes
 * InnoDB read hundreds of thousands of index entries, seconds of a
 * connection and a core each, and the database finishes a statement whose
 * request has timed out: a dozen of them held every pooled connection for
 * more than half a minute at 1M events, so lists and writes got 503 too. A
 * search that finds no turn within SEARCH_WAIT_MS (or a full queue) is 503
 * with Retry-After; other requests keep the rest of the pool. The turn is
 * held until the search's statements have settled, not only until its
 * request ended.
 */
@Injectable()
export class SearchGate {
  private running = 0;
  private readonly waiting: Waiting[] = [];
  private readonly turns: number;
  private readonly waitMs: number;

  constructor(@Inject(appConfig.KEY) config: ConfigType<typeof appConfig>) {
    this.turns = config.search.maxConcurrent;
    this.waitMs = config.search.waitMs;
  }

  /**
   * Runs `read` in a turn of its own when it is a full-text search
   * (`searching`), else at once: its result or error as it settles; 503 when
   * no turn comes. `patient`: waits for a turn however long it takes, for
   * the reads of an answer whose first bytes are sent (a feed's later
   * batches), which a 503 could only cut off.
   */
  run<T>(
    searching: boolean,
    read: () => Promise<T>,
    options: { patient?: boolean } = {},
  ): Promise<T> {
    // Not a search: straight through, no promise of the gate's own on every list.
    if (!searching || this.turns === 0) return read();
    return this.inTurn(read, options.patient === true);
  }

  private async inTurn<T>(read: () => Promise<T>, patient: boolean): Promise<T> {
    await this.enter(patient);
    try {
      return await read();
    } finally {
      this.leave();
    }
  }

  private enter(patient: boolean): Promise<void> {
    if (this.running < this.turns) {
      this.running++;
      return Promise.resolve();
    }
    if (patient) return new Promise((resolve) => this.waiting.push({ admit: resolve }));
    if (this.waiting.length >= this.turns * WAITING_PER_TURN) return Promise.reject(busy());
    return new Promise((resolve, reject) => {
      const entry: Waiting = {
        admit: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(entry), 1);
        reject(busy());
      }, this.waitMs);
      this.waiting.push(entry);
    });
  }

  private leave(): void {
    // The turn passes to the longest waiting search, if any; else it is free.
    const next = this.waiting.shift();
    if (next) next.admit();
    else this.running--;
  }
}

function busy(): ApiError {
  return new ApiError('rest_search_busy', { headers: { 'Retry-After': RETRY_AFTER_SECONDS } });
}
