import type { AuthUser } from '../../auth/auth-user';
import { AccessPolicy, PostStatus } from '../../auth/policy';
import type { PostColumns } from '../../database/post-columns';
import { ApiError } from '../errors/api-error';
import type { RequestContext } from '../http/request-context';
import { nowEpoch, parseDateInput, parseZone } from '../time/dates';
import { parseImageInput } from './record-fields';

/** The translated fields of a write, the name under its own key. */
export interface TextsInput {
  name?: string;
  description?: string;
  excerpt?: string;
  slug?: string;
}

/** The shared post fields of a write, as the DTOs validated them. */
export interface PostInput {
  status?: PostStatus;
  author?: number;
  date?: string | number;
  date_utc?: string | number;
  image?: string | number | null;
}

/** One create or update of a venue or organizer, split by where each part is stored. */
export interface ContentWrite<E> {
  texts: TextsInput;
  post: PostInput;
  /** The kind's own shared columns; only those sent. */
  columns: Partial<E>;
}

/**
 * Builds a ContentWrite from a validated body whose name is sent as `name`.
 * Columns left undefined (not sent) are dropped, so updates keep them.
 */
export function contentWrite<E>(
  input: Omit<TextsInput, 'name'> & PostInput,
  name: string | undefined,
  columns: { [K in keyof E]?: E[K] | undefined },
): ContentWrite<E> {
  return {
    texts: { name, description: input.description, excerpt: input.excerpt, slug: input.slug },
    post: input,
    columns: Object.fromEntries(
      Object.entries(columns).filter(([, value]) => value !== undefined),
    ) as Partial<E>,
  };
}

/** Optional strings are stored as NULL when sent empty; undefined stays "not sent". */
export function emptyToNull(value: string | undefined): string | null | undefined {
  return value === '' ? null : value;
}

/** Create needs the role table's right (contract §3). */
export function assertCanCreate(user: AuthUser | undefined): void {
  if (!AccessPolicy.canCreateItem(user)) throw ApiError.forbidden();
}

/**
 * The shared post columns of a write (contract §3, §4, §6): status with the
 * contributor scale-back, author (others only for editors+, else 403),
 * publication date (`date_utc` in UTC wins over `date` in the site zone;
 * default now on create), image, and the modification time.
 */
export function postColumns(
  input: PostInput,
  ctx: RequestContext,
  siteZone: string,
  creating: boolean,
): Partial<PostColumns> {
  const now = nowEpoch();
  const columns: Partial<PostColumns> = { modifiedAt: now };
  const status = AccessPolicy.effectiveStatus(ctx.user, input.status, creating);
  if (status !== undefined) columns.status = status;
  if (input.author !== undefined) {
    if (!AccessPolicy.canAssignAuthor(ctx.user, input.author)) throw ApiError.forbidden();
    columns.authorId = input.author;
  } else if (creating && ctx.user) {
    columns.authorId = ctx.user.id;
  }
  const published = publicationDate(input, siteZone);
  if (published !== undefined) columns.publishedAt = published;
  else if (creating) columns.publishedAt = now;
  if (input.image !== undefined) Object.assign(columns, parseImageInput(input.image));
  return columns;
}

function publicationDate(input: PostInput, siteZone: string): number | undefined {
  const [value, zone] =
    input.date_utc !== undefined ? [input.date_utc, 'UTC'] : [input.date, siteZone];
  if (value === undefined) return undefined;
  const parsed = parseDateInput(value, parseZone(zone) ?? parseZone('UTC')!);
  return parsed ? Math.floor(parsed.toSeconds()) : undefined;
}
