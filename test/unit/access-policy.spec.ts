import { AuthUser, Role } from '../../src/auth/auth-user';
import { AccessPolicy, OwnedItem, PostStatus } from '../../src/auth/policy';

/** The role table of docs/api.md §3/§4, row by row. */
const ME = 10;
const OTHER = 20;
const as = (role: Role): AuthUser => ({ id: ME, role });
const item = (status: PostStatus, authorId = ME): OwnedItem => ({ authorId, status });
const ROLES: Array<Role | 'anonymous'> = [
  'administrator',
  'editor',
  'author',
  'contributor',
  'subscriber',
  'anonymous',
];
const user = (role: Role | 'anonymous') => (role === 'anonymous' ? undefined : as(role));

function row(check: (u: AuthUser | undefined) => boolean): boolean[] {
  return ROLES.map((role) => check(user(role)));
}

describe('AccessPolicy: the role table', () => {
  it('create event, venue, organizer: contributor and up', () => {
    expect(row((u) => AccessPolicy.canCreateItem(u))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it("update/delete someone else's item: editor and up", () => {
    expect(row((u) => AccessPolicy.canEditItem(u, item('publish', OTHER)))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(row((u) => AccessPolicy.canEditItem(u, item('draft', OTHER)))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('update/delete own published item: author and up', () => {
    expect(row((u) => AccessPolicy.canEditItem(u, item('publish')))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it('update/delete own draft or pending item: contributor and up', () => {
    for (const status of ['draft', 'pending'] as const) {
      expect(row((u) => AccessPolicy.canEditItem(u, item(status)))).toEqual([
        true,
        true,
        true,
        true,
        false,
        false,
      ]);
    }
  });

  it('categories: author and up; tags: editor and up', () => {
    expect(row((u) => AccessPolicy.canManageTerms(u, 'tribe_events_cat'))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(row((u) => AccessPolicy.canManageTerms(u, 'post_tag'))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('see unpublished items: editors all, authors and contributors their own, others none', () => {
    for (const status of ['draft', 'pending', 'private', 'future', 'trash'] as const) {
      expect(row((u) => AccessPolicy.canSeeItem(u, item(status, OTHER)))).toEqual([
        true,
        true,
        false,
        false,
        false,
        false,
      ]);
      expect(row((u) => AccessPolicy.canSeeItem(u, item(status)))).toEqual([
        true,
        true,
        true,
        true,
        false,
        false,
      ]);
    }
    expect(row((u) => AccessPolicy.canSeeItem(u, item('publish', OTHER)))).toEqual(
      ROLES.map(() => true),
    );
  });

  it('force delete and setting another author: editor and up', () => {
    expect(row((u) => AccessPolicy.canForceDelete(u))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(row((u) => AccessPolicy.canAssignAuthor(u, OTHER))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(row((u) => AccessPolicy.canAssignAuthor(u, ME))).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it('lists: contributors and up may ask for unpublished items; editors see everyone’s', () => {
    expect(row((u) => AccessPolicy.canListUnpublished(u))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(row((u) => AccessPolicy.seesAllUnpublished(u))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('AccessPolicy.effectiveStatus: contributor scale-back', () => {
  it('turns a contributor’s publish and future into pending, and a create without status into a draft', () => {
    expect(AccessPolicy.effectiveStatus(as('contributor'), 'publish', true)).toBe('pending');
    expect(AccessPolicy.effectiveStatus(as('contributor'), 'future', false)).toBe('pending');
    expect(AccessPolicy.effectiveStatus(as('contributor'), 'draft', true)).toBe('draft');
    expect(AccessPolicy.effectiveStatus(as('contributor'), undefined, true)).toBe('draft');
    expect(AccessPolicy.effectiveStatus(as('contributor'), undefined, false)).toBeUndefined();
  });

  it('keeps what authors and up ask for, publish by default', () => {
    expect(AccessPolicy.effectiveStatus(as('author'), 'publish', true)).toBe('publish');
    expect(AccessPolicy.effectiveStatus(as('editor'), 'future', false)).toBe('future');
    expect(AccessPolicy.effectiveStatus(as('administrator'), undefined, true)).toBe('publish');
  });
});
