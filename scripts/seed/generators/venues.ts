import { SeedPlan } from '../plan';
import { Random, STREAM } from '../prng';
import { LANGUAGES, Row, translationId } from '../schema';
import { CITIES, City, PROPER_NAMES, STREETS_BE, STREETS_NL, STREETS_OTHER, VENUE_TYPES } from '../words';
import { slugOf } from './slug';
import { authorId, digits, modifiedAt, publishedAt } from './common';

const CITY_WEIGHTS = CITIES.map((city) => [city, city.weight] as const);

/** What events need to know of a venue, drawn first from the venue's stream. */
export interface VenueCore {
  rng: Random;
  city: City;
  /** Name per language: [nl, en]. */
  names: readonly [string, string];
}

export function venueCore(plan: SeedPlan, id: number): VenueCore {
  const rng = Random.of(plan.seed, STREAM.venue, id);
  const city = rng.weighted(CITY_WEIGHTS);
  const [typeNl, typeEn] = rng.pick(VENUE_TYPES);
  const proper = rng.pick(PROPER_NAMES);
  const place = rng.chance(0.5) ? ` ${city.name}` : '';
  return { rng, city, names: [`${typeNl} ${proper}${place}`, `${proper} ${typeEn}${place}`] };
}

export interface VenueRows {
  venues: Row[];
  translations: Row[];
}

const VENUE_STATUSES = [
  ['publish', 96],
  ['draft', 2],
  ['trash', 2],
] as const;

/** Venues `from`..`to` (inclusive) with both translations. */
export function venueRows(plan: SeedPlan, from: number, to: number): VenueRows {
  const venues: Row[] = [];
  const translations: Row[] = [];
  for (let id = from; id <= to; id++) {
    const { rng, city, names } = venueCore(plan, id);
    const streets = city.postal === 'nl' ? STREETS_NL : city.postal === 'be' ? STREETS_BE : STREETS_OTHER;
    const street = rng.pick(streets);
    const address = `${street} ${rng.int(1, 250)}`;
    const published = publishedAt(rng, id, plan.venues, plan.now);
    const hasGeo = rng.chance(0.95);
    const capacity = rng.pick([40, 80, 120, 250, 400, 800, 1500]);
    const accessible = rng.chance(0.6);
    venues.push([
      id,
      authorId(rng),
      rng.weighted(VENUE_STATUSES),
      published,
      modifiedAt(rng, published, plan.now),
      null,
      rng.chance(0.3) ? `https://images.example.org/venues/${id}.jpg` : null,
      address,
      city.name,
      city.country,
      city.province || null,
      city.state ?? null,
      zip(rng, city),
      rng.chance(0.8) ? `${city.phone} ${digits(rng, 3)} ${digits(rng, 4)}` : null,
      rng.chance(0.6) ? `https://venue-${id}.example.org/` : null,
      city.state ?? (city.province || null),
      hasGeo ? round6(city.lat + (rng.float() - 0.5) * 0.08) : null,
      hasGeo ? round6(city.lng + (rng.float() - 0.5) * 0.12) : null,
      rng.chance(0.95) ? 1 : 0,
      rng.chance(0.9) ? 1 : 0,
    ]);
    const excerpt = rng.chance(0.5);
    LANGUAGES.forEach((language, i) => {
      const name = names[i];
      const first =
        i === 0
          ? `${name} ligt aan de ${address} in ${city.name}.`
          : `${name} is located at ${address} in ${city.name}.`;
      const rest =
        i === 0
          ? ` Er is plaats voor ${capacity} bezoekers.${accessible ? ' De zaal is rolstoeltoegankelijk.' : ''}`
          : ` There is room for ${capacity} visitors.${accessible ? ' The venue is wheelchair accessible.' : ''}`;
      translations.push([
        translationId(id, language),
        id,
        language,
        `${slugOf(name, 'venue')}-${id}`,
        `<p>${first}${rest}</p>`,
        excerpt ? first : null,
        name,
        name.toLowerCase(),
      ]);
    });
  }
  return { venues, translations };
}

function zip(rng: Random, city: City): string | null {
  switch (city.postal) {
    case 'nl':
      return `${city.zipBase + rng.int(0, 80)} ${letter(rng)}${letter(rng)}`;
    case 'be':
      return String(city.zipBase + rng.int(0, 9) * 10);
    case 'us':
      return String(city.zipBase + rng.int(0, 280));
    default:
      return city.zipBase ? String(city.zipBase + rng.int(0, 50)) : null;
  }
}

function letter(rng: Random): string {
  return 'ABCDEGHJKLMNPRSTVWXZ'.charAt(rng.int(0, 19));
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
