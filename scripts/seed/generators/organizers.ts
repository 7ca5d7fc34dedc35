import { SeedPlan } from '../plan';
import { Random, STREAM } from '../prng';
import { LANGUAGES, Row, translationId } from '../schema';
import { CITIES, FIRST_NAMES, ORGANIZER_FORMS, ORGANIZER_NAMES, SURNAMES } from '../words';
import { slugOf } from './slug';
import { authorId, digits, modifiedAt, publishedAt } from './common';

export interface OrganizerRows {
  organizers: Row[];
  translations: Row[];
}

const ORGANIZER_STATUSES = [
  ['publish', 97],
  ['draft', 2],
  ['trash', 1],
] as const;

/** Organizers `from`..`to` (inclusive) with both translations. */
export function organizerRows(plan: SeedPlan, from: number, to: number): OrganizerRows {
  const organizers: Row[] = [];
  const translations: Row[] = [];
  for (let id = from; id <= to; id++) {
    const rng = Random.of(plan.seed, STREAM.organizer, id);
    const city = rng.pick(CITIES);
    const names = organizerNames(rng, city.name);
    const published = publishedAt(rng, id, plan.organizers, plan.now);
    organizers.push([
      id,
      authorId(rng),
      rng.weighted(ORGANIZER_STATUSES),
      published,
      modifiedAt(rng, published, plan.now),
      null,
      rng.chance(0.25) ? `https://images.example.org/organizers/${id}.png` : null,
      rng.chance(0.7) ? `${city.phone} ${digits(rng, 3)} ${digits(rng, 4)}` : null,
      rng.chance(0.5) ? `https://organizer-${id}.example.org/` : null,
      rng.chance(0.8) ? `info${id}@example.org` : null,
    ]);
    const years = rng.int(2, 60);
    const excerpt = rng.chance(0.4);
    LANGUAGES.forEach((language, i) => {
      const name = names[i];
      const first =
        i === 0
          ? `${name} organiseert al ${years} jaar evenementen in ${city.name}.`
          : `${name} has organised events in ${city.name} for ${years} years.`;
      translations.push([
        translationId(id, language),
        id,
        language,
        `${slugOf(name, 'organizer')}-${id}`,
        `<p>${first}</p>`,
        excerpt ? first : null,
        name,
        name.toLowerCase(),
      ]);
    });
  }
  return { organizers, translations };
}

/** [nl, en]: an organisation ("Stichting Zomerzin" / "Zomerzin Foundation") or a person's events. */
function organizerNames(rng: Random, city: string): readonly [string, string] {
  if (rng.chance(0.25)) {
    const person = `${rng.pick(FIRST_NAMES)} ${rng.pick(SURNAMES)}`;
    return [`${person} Evenementen`, `${person} Events`];
  }
  const [nl, en] = rng.pick(ORGANIZER_FORMS);
  const part = rng.chance(0.3) ? city : rng.pick(ORGANIZER_NAMES);
  return [nl.replace('%', part), en.replace('%', part)];
}
