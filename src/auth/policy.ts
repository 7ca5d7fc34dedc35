import { AuthUser, roleAtLeast } from './auth-user';

export const POST_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** What the policy needs to know of an event, venue or organizer. */
export interface OwnedItem {
  authorId: number;
  status: PostStatus;
}

export type Taxonomy = 'tribe_events_cat' | 'post_tag';

const isOwner = (user: AuthUser | undefined, item: OwnedItem) =>
  user !== undefined && user.id === item.authorId;

/**
 * The role table of docs/api.md §3, §4 in one place. Services ask it;
 * nothing else decides who may do what.
 */
export const AccessPolicy = {
  canCreateItem(user: AuthUser | undefined): boolean {
    return roleAtLeast(user, 'contributor');
  },

  /** Update or delete an event, venue or organizer. */
  canEditItem(user: AuthUser | undefined, item: OwnedItem): boolean {
    if (roleAtLeast(user, 'editor')) return true;
    if (!isOwner(user, item)) return false;
    if (roleAtLeast(user, 'author')) return true;
    return (
      roleAtLeast(user, 'contributor') && (item.status === 'draft' || item.status === 'pending')
    );
  },

  /** Read one item: anyone sees published ones; owners and editors see the rest. */
  canSeeItem(user: AuthUser | undefined, item: OwnedItem): boolean {
    if (item.status === 'publish') return true;
    if (roleAtLeast(user, 'editor')) return true;
    return roleAtLeast(user, 'contributor') && isOwner(user, item);
  },

  /** Whether a caller may ask lists for statuses other than publish. */
  canListUnpublished(user: AuthUser | undefined): boolean {
    return roleAtLeast(user, 'contributor');
  },

  /** Editors see every unpublished item in lists; lower roles only their own. */
  seesAllUnpublished(user: AuthUser | undefined): boolean {
    return roleAtLeast(user, 'editor');
  },

  canManageTerms(user: AuthUser | undefined, taxonomy: Taxonomy): boolean {
    return roleAtLeast(user, taxonomy === 'tribe_events_cat' ? 'author' : 'editor');
  },

  /** Webhooks (docs/api.md §15) are administrators' business only. */
  canManageWebhooks(user: AuthUser | undefined): boolean {
    return roleAtLeast(user, 'administrator');
  },

  /** Imports (docs/api.md "Imports") write as their administrator, on a schedule: administrators only. */
  canManageImports(user: AuthUser | undefined): boolean {
    return roleAtLeast(user, 'administrator');
  },

  canForceDelete(user: AuthUser | undefined): boolean {
    return roleAtLeast(user, 'editor');
  },

  canAssignAuthor(user: AuthUser | undefined, authorId: number): boolean {
    return user !== undefined && (authorId === user.id || roleAtLeast(user, 'editor'));
  },

  /**
   * The status an item gets: contributors cannot publish, so `publish` and
   * `future` become `pending`, and their creates without a status are drafts.
   */
  effectiveStatus(
    user: AuthUser | undefined,
    requested: PostStatus | undefined,
    creating: boolean,
  ): PostStatus | undefined {
    const limited = !roleAtLeast(user, 'author');
    if (requested === undefined) return creating ? (limited ? 'draft' : 'publish') : undefined;
    if (limited && (requested === 'publish' || requested === 'future')) return 'pending';
    return requested;
  },
};
