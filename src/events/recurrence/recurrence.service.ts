import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  BeforeApplicationShutdown,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DateTime, FixedOffsetZone, type Zone } from 'luxon';
import { DataSource, EntityManager, In, IsNull, LessThan, Not } from 'typeorm';
import type { TrackedChange } from '../../writes/change-tracker';
import type { WriteUnit } from '../../writes/write-unit';
import { Writes } from '../../writes/writes.service';
import { ApiError } from '../../common/errors/api-error';
import { nowEpoch, parseZone } from '../../common/time/dates';
import { failureText, PeriodicTask } from '../../common/time/periodic-task';
import { appConfig } from '../../config/app.config';
import { adjustTermCounts, countedTermsOfEvents } from '../../terms/term-counts';
import { MAX_RECURRENCE_LINE } from '../dto/create-event.dto';
import { Event } from '../entities/event.entity';
import { loadEvents, lockEventRow } from '../event-store';
import { parseRecurrence } from './recurrence-lines';
import { deleteOccurrences, extendSeries, materializeSeries, seriesHorizon } from './series-store';

/** The horizon job runs this often, and once at start-up. */
const EXTEND_INTERVAL_MS = 60 * 60 * 1000;
/** Series extended per run at most: a run never does unbounded work; the next run continues. */
const EXTEND_PER_RUN = 1000;

/**
 * Recurring series (docs/api.md §16), called inside the event writes'
 * transactions, and the job that moves their horizon on as time passes.
 */
@Injectable()
export class RecurrenceService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RecurrenceService.name);
  private readonly horizonJob = new PeriodicTask(
    () => this.extendHorizons(),
    (error) => this.logger.error(`recurrence horizon job failed: ${failureText(error)}`),
    'recurrence_horizon',
  );
  /** The clock writes and the horizon job read "today" from (tests set it). */
  now: () => DateTime = () => DateTime.now();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly writes: Writes,
  ) {}

  /**
   * The `recurrence` column a write sets: the lines checked in the event's
   * zone (400 naming the line), null for `null` or [], undefined when not sent.
   */
  columnOf(lines: string[] | null | undefined, timezone: string): string | null | undefined {
    if (lines === undefined) return undefined;
    if (lines === null || lines.length === 0) return null;
    parseRecurrence(lines, parseZone(timezone) ?? FixedOffsetZone.utcInstance);
    return JSON.stringify(lines.map((line) => line.trim()));
  }

  /** A write to an occurrence: it cannot carry a rule, and it leaves its series' edits from now on. */
  occurrenceColumns(lines: string[] | null | undefined): Partial<Event> {
    if (lines?.length) throw ApiError.invalid('recurrence', 'recurrenceOnOccurrence');
    return { detached: true };
  }

  /**
   * After a write of a series or of an event that just lost its rule: the
   * occurrences follow it (see materializeSeries). Detached occurrences of an
   * event that is no series any more become events of their own (its children).
   */
  async afterSeriesWrite(unit: WriteUnit, id: number, wasSeries: boolean): Promise<void> {
    const { manager } = unit;
    const series = (await loadEvents(manager, [id])).get(id) as Event;
    if (series.recurrence !== null) {
      const changes = await materializeSeries(
        unit,
        series,
        this.now(),
        this.config.recurrenceHorizonMonths,
      );
      unit.record([
        ...changed(changes.created, 'created'),
        ...changed(changes.updated, 'updated'),
        ...changed(changes.deleted, 'deleted', true),
      ]);
    } else if (wasSeries) {
      unit.record(changed(await deleteOccurrences(unit, id, false), 'deleted', true));
      const detached = await manager.find(Event, {
        where: { seriesId: id, id: Not(id) },
        select: { id: true },
      });
      await manager.update(Event, { seriesId: id }, { seriesId: null, detached: false });
      await manager.update(Event, id, { materializedUntil: null });
      unit.record(
        changed(
          detached.map((row) => row.id),
          'updated',
        ),
      );
    }
  }

  /**
   * An occurrence was edited: the series' revision grows, because the
   * iCalendar export writes the series and its edited occurrences under one
   * UID whose SEQUENCE is the series' (docs/api.md §14).
   */
  async occurrenceChanged(manager: EntityManager, seriesId: number): Promise<void> {
    await manager.update(Event, seriesId, { revision: () => 'revision + 1' });
  }

  /**
   * Deleting one occurrence (trash or for good): its date joins the series'
   * `EXDATE;VALUE=DATE` line, so no later series edit brings it back. A date,
   * not a date-time: a date-time in the series' zone would fall on another
   * date once the series moves to another zone or time of day.
   */
  async excludeOccurrence(unit: WriteUnit, occurrence: Event): Promise<void> {
    const { manager } = unit;
    const seriesId = occurrence.seriesId as number;
    const series = await manager.findOne(Event, {
      where: { id: seriesId },
      select: { id: true, recurrence: true },
    });
    if (!series?.recurrence || !occurrence.occurrenceDate) return;
    const lines = JSON.parse(series.recurrence) as string[];
    const value = occurrence.occurrenceDate.replace(/-/g, '');
    const prefix = 'EXDATE;VALUE=DATE:';
    const index = lines.findIndex(
      (line) => line.startsWith(prefix) && line.length + value.length < MAX_RECURRENCE_LINE,
    );
    if (index >= 0) lines[index] = `${lines[index]},${value}`;
    else lines.push(`${prefix}${value}`);
    await manager.update(Event, seriesId, {
      recurrence: JSON.stringify(lines),
      modifiedAt: nowEpoch(),
      revision: () => 'revision + 1',
    });
    unit.record(changed([seriesId], 'updated'));
  }

  /**
   * Trashing one occurrence: its date becomes an EXDATE (excludeOccurrence)
   * and it is detached, so series edits keep it, trashed and restorable (§4).
   */
  async trashOccurrence(unit: WriteUnit, occurrence: Event): Promise<void> {
    const { manager } = unit;
    await this.excludeOccurrence(unit, occurrence);
    await manager.update(Event, occurrence.id, { detached: true });
  }

  /**
   * Restoring a trashed occurrence: its date leaves the series' EXDATE lines,
   * so the iCalendar export shows it again (it stays detached: an occurrence
   * written on its own). Values naming other dates are kept as written.
   */
  async restoreOccurrence(unit: WriteUnit, occurrence: Event): Promise<void> {
    const { manager } = unit;
    const seriesId = occurrence.seriesId as number;
    const series = await manager.findOne(Event, {
      where: { id: seriesId },
      select: { id: true, recurrence: true, timezone: true },
    });
    if (!series?.recurrence || !occurrence.occurrenceDate) return;
    const zone = parseZone(series.timezone) ?? FixedOffsetZone.utcInstance;
    const lines = JSON.parse(series.recurrence) as string[];
    const kept = lines.flatMap((line) =>
      withoutDate(line, occurrence.occurrenceDate as string, zone),
    );
    if (kept.length === lines.length && kept.every((line, i) => line === lines[i])) return;
    await manager.update(Event, seriesId, {
      recurrence: JSON.stringify(kept),
      modifiedAt: nowEpoch(),
      revision: () => 'revision + 1',
    });
    unit.record(changed([seriesId], 'updated'));
  }

  /**
   * Restoring a series: the occurrences that went to the trash with it come
   * back with its status. The ones not detached are rewritten from it anyway
   * (afterSeriesWrite); this brings back the detached ones, except those
   * trashed on their own (their date is one of the series' EXDATEs).
   */
  async restoreOccurrences(unit: WriteUnit, seriesId: number): Promise<void> {
    const { manager } = unit;
    const series = (await loadEvents(manager, [seriesId])).get(seriesId);
    if (!series?.recurrence) return;
    const zone = parseZone(series.timezone) ?? FixedOffsetZone.utcInstance;
    const excluded = new Set(
      parseRecurrence(JSON.parse(series.recurrence) as string[], zone).excluded,
    );
    const rows = await manager.find(Event, {
      where: { seriesId, id: Not(seriesId), status: 'trash', detached: true },
      select: { id: true, occurrenceDate: true },
    });
    const ids = rows
      .filter((row) => !excluded.has(row.occurrenceDate as string))
      .map((row) => row.id);
    if (ids.length === 0) return;
    await manager.update(Event, { id: In(ids) }, { status: series.status, modifiedAt: nowEpoch() });
    await adjustTermCounts(unit, [], await countedTermsOfEvents(manager, ids));
    unit.record(changed(ids, 'updated'));
  }

  /** Trashing a series trashes every occurrence, detached ones included. */
  async trashOccurrences(unit: WriteUnit, seriesId: number): Promise<void> {
    const { manager } = unit;
    const rows = await manager.find(Event, {
      where: { seriesId, id: Not(seriesId), status: Not('trash') },
      select: { id: true },
    });
    const ids = rows.map((row) => row.id);
    await adjustTermCounts(unit, await countedTermsOfEvents(manager, ids), []);
    await manager.update(
      Event,
      { seriesId, id: Not(seriesId) },
      { status: 'trash', modifiedAt: nowEpoch() },
    );
    unit.record(changed(ids, 'deleted', false));
  }

  /** Deleting a series for good deletes every occurrence, detached ones included. */
  async deleteAllOccurrences(unit: WriteUnit, seriesId: number): Promise<void> {
    unit.record(changed(await deleteOccurrences(unit, seriesId, true), 'deleted', true));
  }

  /**
   * The horizon job: every series whose occurrences end before the horizon
   * at `now` gets the missing ones. Safe with several instances: a series
   * is claimed by moving its `materialized_until` on only if it still has
   * the value read (a compare-and-set inside the transaction that adds the
   * occurrences), so exactly one instance extends it; the unique
   * (series_id, occurrence_date) index backs that up. Returns the number of
   * occurrences added.
   */
  async extendHorizons(now: DateTime = this.now()): Promise<number> {
    // Today is at least yesterday in UTC in every zone: series behind that bound are due.
    const due = DateTime.fromISO(now.toUTC().minus({ days: 1 }).toISODate() as string)
      .plus({ months: this.config.recurrenceHorizonMonths })
      .toISODate() as string;
    const candidates = await this.dataSource.manager.find(Event, {
      where: { materializedUntil: LessThan(due), recurrence: Not(IsNull()) },
      select: { id: true, materializedUntil: true },
      order: { materializedUntil: 'ASC', id: 'ASC' },
      take: EXTEND_PER_RUN,
    });
    let added = 0;
    for (const candidate of candidates) {
      added += await this.extendOne(candidate, now);
    }
    // Each transaction that added occurrences bumped the data version with them (the commit pipeline).
    return added;
  }

  /**
   * One series of the horizon job. A rule the expansion refuses (more
   * occurrences or steps than its caps by the new horizon) is logged and
   * skipped, so it does not stop the series after it.
   */
  private async extendOne(
    candidate: Pick<Event, 'id' | 'materializedUntil'>,
    now: DateTime,
  ): Promise<number> {
    try {
      // A background job: its transactions belong to no request.
      return await this.writes.run(undefined, async (unit) => {
        const { manager } = unit;
        // The claim: the series row locked first (MySQL), so every read after it sees the latest commit.
        await lockEventRow(manager, candidate.id);
        const series = (await loadEvents(manager, [candidate.id])).get(candidate.id);
        const after = candidate.materializedUntil as string;
        // Another instance (or a series edit) moved it on since the candidates were read.
        if (!series?.recurrence || series.materializedUntil !== after) return 0;
        const through = seriesHorizon(series, now, this.config.recurrenceHorizonMonths);
        if (through <= after) return 0;
        await manager.update(Event, series.id, { materializedUntil: through });
        const ids = await extendSeries(unit, series, after, through);
        unit.record(changed(ids, 'created'));
        return ids.length;
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.logger.warn(
        `recurrence horizon job: series ${candidate.id} not extended: ${JSON.stringify(error.details.invalid ?? error.key)}`,
      );
      return 0;
    }
  }

  onApplicationBootstrap(): void {
    this.horizonJob.start(0, EXTEND_INTERVAL_MS);
  }

  /** Stops the job and waits for a run in progress, before the database closes. */
  beforeApplicationShutdown(): Promise<void> {
    return this.horizonJob.stop();
  }
}

/**
 * An EXDATE line without the values that fall on `date` in the series' zone
 * (no line when none is left); any other line as it is.
 */
function withoutDate(line: string, date: string, zone: Zone): string[] {
  const colon = line.indexOf(':');
  if (!/^EXDATE[;:]/i.test(line) || colon < 0) return [line];
  const head = line.slice(0, colon);
  const values = line
    .slice(colon + 1)
    .split(',')
    .filter((value) => !parseRecurrence([`${head}:${value}`], zone).excluded.includes(date));
  return values.length > 0 ? [`${head}:${values.join(',')}`] : [];
}

/** Change-tracker entries for occurrences (docs/api.md §12, §15: they appear like any event). */
function changed(
  ids: number[],
  action: TrackedChange['action'],
  permanent?: boolean,
): TrackedChange[] {
  return ids.map((id) => ({
    kind: 'event' as const,
    id,
    action,
    ...(permanent === undefined ? {} : { permanent }),
  }));
}
