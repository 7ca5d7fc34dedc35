import { createHmac } from 'node:crypto';
import { firstTagId, SeedPlan } from '../plan';
import { Random, STREAM } from '../prng';
import { LANGUAGES, Row, translationId } from '../schema';
import { formatDay, SECONDS_PER_DAY, ZoneClock } from '../time';
import {
  ADJECTIVES,
  AUDIENCES,
  CITIES,
  ENSEMBLES,
  EVENT_KINDS,
  FIRST_NAMES,
  Pair,
  SENTENCES,
  SUBJECTS,
  SURNAMES,
  WEEKDAYS,
} from '../words';
import { authorId, capitalize, modifiedAt, STATUSES } from './common';
import { slugOf } from './slug';
import { venueCore } from './venues';

export interface EventRows {
  events: Row[];
  translations: Row[];
  terms: Row[];
  organizers: Row[];
}

/** Five years either side of today. */
export const HALF_WINDOW_DAYS = 5 * 365 + 1;
/** How far an event's date strays from the date its ID stands for. */
const JITTER_DAYS = 90;

/** Start hours, weighted towards the evening. */
const HOURS = [
  [9, 2], [10, 4], [11, 4], [12, 2], [13, 3], [14, 5], [15, 4], [16, 3], [17, 3],
  [18, 3], [19, 6], [20, 9], [21, 4], [22, 2],
] as const;

/** Zones of events whose venue does not decide one. */
const ZONES = [
  ['Europe/Amsterdam', 85],
  ['UTC', 7],
  ['Europe/Brussels', 5],
  ['America/New_York', 2],
  ['UTC+2', 1],
] as const;

/** Zones of the venues abroad. */
const CITY_ZONES: Record<string, string> = {
  'New York': 'America/New_York',
  London: 'Europe/London',
  Berlin: 'Europe/Berlin',
  Köln: 'Europe/Berlin',
};

/** Stored cost strings (a JSON array, as the service keeps them); null: no cost. */
const COSTS = [
  [null, 45],
  [['10 - 20 €'], 8],
  [['€15'], 8],
  [['5,50'], 5],
  [['Gratis'], 7],
  [['Free'], 3],
  [['€ 7,50'], 5],
  [['25'], 4],
  [['0 - 12,50 €'], 4],
  [['€10', '€15', '€22,50'], 3],
  [['$25'], 2],
  [['£12'], 1],
] as const;
const COST_JSON = COSTS.map(([cost, weight]) => [cost ? JSON.stringify(cost) : null, weight] as const);

const clocks = new Map<string, ZoneClock>();
function clock(zone: string): ZoneClock {
  let found = clocks.get(zone);
  if (!found) clocks.set(zone, (found = new ZoneClock(zone)));
  return found;
}

/** The stored form of the service's password hash (src/events/event-password.ts), with a seeded salt. */
export function passwordHash(key: Buffer, salt: string, password: string): string {
  return `${salt}:${createHmac('sha256', key).update(`${salt}:${password}`).digest('hex')}`;
}

/**
 * Events `from`..`to` (inclusive) with both translations and their links.
 * IDs follow the date they stand for, give or take three months, so the
 * ten years around today fill evenly. `publishedTerms[termId]` is
 * incremented for each link of a published event.
 */
export function eventRows(
  plan: SeedPlan,
  from: number,
  to: number,
  publishedTerms?: Int32Array,
): EventRows {
  const out: EventRows = { events: [], translations: [], terms: [], organizers: [] };
  const firstDay = plan.today - HALF_WINDOW_DAYS;
  const windowDays = 2 * HALF_WINDOW_DAYS + 1;

  for (let id = from; id <= to; id++) {
    const rng = Random.of(plan.seed, STREAM.event, id);
    const base = firstDay + Math.floor(((id - 0.5) / plan.events) * windowDays);
    const day = Math.min(
      firstDay + windowDays - 1,
      Math.max(firstDay, base + rng.int(-JITTER_DAYS, JITTER_DAYS)),
    );
    pushEvent(plan, rng, id, day, out, publishedTerms);
  }
  return out;
}

/**
 * One event `id` on `day` (days since 1970-01-01) drawn from `rng`, with
 * both translations and its links, appended to `out`. Also the first row of
 * a seeded series (generators/series.ts).
 */
export function pushEvent(
  plan: SeedPlan,
  rng: Random,
  id: number,
  day: number,
  out: EventRows,
  publishedTerms?: Int32Array,
): void {
  const venueId = plan.venues > 0 ? rng.skewed(plan.venues, 1.6) + 1 : null;
  const venue = venueId === null ? undefined : venueCore(plan, venueId);
  const city = venue?.city.name ?? rng.pick(CITIES).name;
  const zone = (venue && CITY_ZONES[venue.city.name]) ?? rng.weighted(ZONES);
  const times = eventTimes(rng, clock(zone), day);

  const status = rng.weighted(STATUSES);
  const published = Math.min(
    times.startAt - rng.int(7, 180) * SECONDS_PER_DAY,
    plan.now - rng.int(60, 30 * SECONDS_PER_DAY),
  );
  const protectedEvent = rng.chance(0.02);
  const hash = protectedEvent ? passwordHash(plan.passwordKey, salt(rng), plan.password) : null;

  out.events.push([
    id,
    authorId(rng),
    status,
    published,
    modifiedAt(rng, published, plan.now),
    null,
    rng.chance(0.35) ? `https://images.example.org/events/${id}.jpg` : null,
    zone,
    times.startLocal,
    times.endLocal,
    times.startAt,
    times.endAt,
    times.allDay ? 1 : 0,
    rng.weighted(COST_JSON),
    rng.chance(0.25) ? `https://tickets.example.org/e/${id}` : null,
    rng.chance(0.95) ? 1 : 0,
    rng.chance(0.9) ? 1 : 0,
    rng.chance(0.03) ? 1 : 0,
    rng.chance(0.01) ? 1 : 0,
    rng.chance(0.1) ? 1 : 0,
    rng.chance(0.15) ? 1 : 0,
    id > 1 && rng.chance(0.01) ? Math.max(1, id - rng.int(1, 20)) : null,
    hash,
    venueId,
  ]);

  const termIds = [
    ...rng.distinctSkewed(plan.categories, 2, 1.5).map((i) => i + 1),
    ...rng.distinctSkewed(plan.tags, 3, 1.5).map((i) => i + firstTagId(plan)),
  ].sort((a, b) => a - b);
  for (const termId of termIds) {
    out.terms.push([id, termId]);
    if (publishedTerms && status === 'publish') publishedTerms[termId]++;
  }
  if (plan.organizers > 0) {
    const organizerIds = rng.distinctSkewed(plan.organizers, rng.chance(0.65) ? 1 : 2, 1.6);
    organizerIds.forEach((index, position) => out.organizers.push([id, index + 1, position]));
  }

  const texts = eventTexts(rng, city, venue?.names, day);
  LANGUAGES.forEach((language, i) => {
    const { title, description, excerpt } = texts[i];
    out.translations.push([
      translationId(id, language),
      id,
      language,
      `${slugOf(title, 'event')}-${id}`,
      title,
      description,
      excerpt,
    ]);
  });
}

interface Times {
  allDay: boolean;
  startLocal: string;
  endLocal: string;
  startAt: number;
  endAt: number;
}

/** On the hour or half hour, 1–4 hours; about 5 % all-day (some over two or three days). */
function eventTimes(rng: Random, zone: ZoneClock, day: number): Times {
  if (rng.chance(0.05)) {
    const endDay = day + (rng.chance(0.2) ? rng.int(1, 2) : 0);
    return {
      allDay: true,
      startLocal: `${formatDay(day)} 00:00:00`,
      endLocal: `${formatDay(endDay)} 23:59:59`,
      startAt: zone.toEpoch(day, 0, 0, 0),
      endAt: zone.toEpoch(endDay, 23, 59, 59),
    };
  }
  const hour = rng.weighted(HOURS);
  const minute = rng.chance(0.6) ? 0 : 30;
  const startAt = zone.toEpoch(day, hour, minute, 0);
  const endAt = startAt + rng.int(2, 8) * 30 * 60;
  return {
    allDay: false,
    startLocal: zone.toLocal(startAt),
    endLocal: zone.toLocal(endAt),
    startAt,
    endAt,
  };
}

interface Texts {
  title: string;
  description: string;
  excerpt: string | null;
}

/** Title, description and excerpt in [nl, en], saying the same in both. */
function eventTexts(
  rng: Random,
  city: string,
  venueNames: readonly [string, string] | undefined,
  day: number,
): [Texts, Texts] {
  const kind = rng.pick(EVENT_KINDS);
  const adjective = rng.pick(ADJECTIVES);
  const adjNl = kind.het ? adjective[1] : adjective[0];
  let titles: Pair;
  switch (rng.int(0, 3)) {
    case 0:
      titles = [`${adjNl} ${kind.nl} in ${city}`, `${adjective[2]} ${kind.en} in ${city}`];
      break;
    case 1: {
      const person = `${rng.pick(FIRST_NAMES)} ${rng.pick(SURNAMES)}`;
      const ensemble = rng.chance(0.5) ? rng.pick(ENSEMBLES) : undefined;
      titles = ensemble
        ? [`${kind.nl} met ${person} ${ensemble[0]}`, `${kind.en} with ${person} ${ensemble[1]}`]
        : [`${kind.nl} met ${person}`, `${kind.en} with ${person}`];
      break;
    }
    case 2: {
      const subject = rng.pick(SUBJECTS);
      titles = [`${kind.nl} over ${subject[0]}`, `${kind.en} about ${subject[1]}`];
      break;
    }
    default: {
      const audience = rng.pick(AUDIENCES);
      titles = [
        `${adjNl} ${kind.nl} voor ${audience[0]}`,
        `${adjective[2]} ${kind.en} for ${audience[1]}`,
      ];
    }
  }

  const subject = rng.pick(SUBJECTS);
  const audience = rng.pick(AUDIENCES);
  const weekday = WEEKDAYS[(day + 3) % 7];
  const picks = [0, ...rng.distinctSkewed(SENTENCES.length - 1, 3, 1).map((i) => i + 1)];
  const withExcerpt = rng.chance(0.7);
  const values = (i: 0 | 1): Record<string, string> => ({
    kind: i === 0 ? kind.nl : kind.en,
    subject: subject[i],
    audience: audience[i],
    venue: venueNames ? venueNames[i] : city,
    city,
    weekday: weekday[i],
  });
  const texts = ([0, 1] as const).map((i): Texts => {
    const fill = values(i);
    const sentences = picks.map((p) =>
      SENTENCES[p][i].replace(/\{(\w+)\}/g, (_, key: string) => fill[key] ?? ''),
    );
    return {
      title: capitalize(titles[i]),
      description: `<p>${sentences.slice(0, 2).join(' ')}</p><p>${sentences.slice(2).join(' ')}</p>`,
      excerpt: withExcerpt ? sentences[0] : null,
    };
  });
  return [texts[0], texts[1]];
}

/** 16 random bytes in hex, as the service's salts. */
function salt(rng: Random): string {
  let out = '';
  for (let i = 0; i < 4; i++) out += rng.int(0, 0xffffffff).toString(16).padStart(8, '0');
  return out;
}
