import { AccessPolicy, PostStatus } from '../auth/policy';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { nowEpoch, parseDateInput, parseZone } from '../common/time/dates';
import type { PostColumns } from '../database/post-columns';
import type { ExternalKey } from './external-keys';
import { parseImageInput } from './post-fields';

/** The shared post fields of a write, as the DTOs validated them (PostWriteDto). */
export interface PostInput {
  status?: PostStatus;
  author?: number;
  date?: string | number;
  date_utc?: string | number;
  image?: string | number | null;
  external_id?: ExternalKey | null;
}

/**
 * The shared post columns of a write (docs/api.md §3, §4, §6): status with the
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
