import { firstTagId, SeedPlan } from '../plan';
import { Random, STREAM } from '../prng';
import { LANGUAGES, Row, translationId } from '../schema';
import {
  CATEGORY_NAMES,
  CATEGORY_QUALIFIERS,
  CITIES,
  Pair,
  TAG_NAMES,
  TERM_DESCRIPTIONS,
} from '../words';
import { publishedAt } from './common';
import { slugOf } from './slug';

export const CATEGORY = 'tribe_events_cat';
export const TAG = 'post_tag';

export interface TermRows {
  terms: Row[];
  translations: Row[];
}

/** Category `index` (0-based): the list, then "<category> <qualifier>", then numbered. */
export function categoryName(index: number): Pair {
  const n = CATEGORY_NAMES.length;
  if (index < n) return CATEGORY_NAMES[index];
  const k = index - n;
  const [nl, en] = CATEGORY_NAMES[k % n];
  const round = Math.floor(k / n);
  const [qnl, qen] = CATEGORY_QUALIFIERS[round % CATEGORY_QUALIFIERS.length];
  const suffix = round >= CATEGORY_QUALIFIERS.length ? ` ${Math.floor(round / CATEGORY_QUALIFIERS.length) + 1}` : '';
  return [`${nl} ${qnl}${suffix}`, `${en} ${qen}${suffix}`];
}

/** Tag `index` (0-based): the list, then "<tag> <city>", then numbered. */
export function tagName(index: number): Pair {
  const n = TAG_NAMES.length;
  if (index < n) return TAG_NAMES[index];
  const k = index - n;
  const [nl, en] = TAG_NAMES[k % n];
  const round = Math.floor(k / n);
  const city = CITIES[round % CITIES.length].name.toLowerCase();
  const suffix = round >= CITIES.length ? ` ${Math.floor(round / CITIES.length) + 1}` : '';
  return [`${nl} ${city}${suffix}`, `${en} ${city}${suffix}`];
}

/** Every category and tag with both translations. Names and slugs are unique per taxonomy and language. */
export function termRows(plan: SeedPlan): TermRows {
  const terms: Row[] = [];
  const translations: Row[] = [];
  const total = plan.categories + plan.tags;
  const taken = new Map<string, Set<string>>();
  /** `value`, or `value` + `suffix` when its key (lower case) is taken in `scope`. */
  const free = (scope: string, value: string, suffix: string): string => {
    let set = taken.get(scope);
    if (!set) taken.set(scope, (set = new Set()));
    const result = set.has(value.toLowerCase()) ? `${value}${suffix}` : value;
    set.add(result.toLowerCase());
    return result;
  };

  for (let id = 1; id <= total; id++) {
    const isCategory = id < firstTagId(plan);
    const taxonomy = isCategory ? CATEGORY : TAG;
    const names = isCategory ? categoryName(id - 1) : tagName(id - firstTagId(plan));
    const rng = Random.of(plan.seed, STREAM.term, id);
    terms.push([id, taxonomy, 0, publishedAt(rng, id, total, plan.now), 0]);
    LANGUAGES.forEach((language, i) => {
      const name = free(`${taxonomy}:${language}:name`, names[i], ` ${id}`);
      const slug = free(`${taxonomy}:${language}:slug`, slugOf(name, 'term'), `-${id}`);
      const description = isCategory ? TERM_DESCRIPTIONS[i].replace('%', name) : null;
      translations.push([
        translationId(id, language),
        id,
        taxonomy,
        0,
        language,
        name,
        name.toLowerCase(),
        slug,
        description,
      ]);
    });
  }
  return { terms, translations };
}
