export const ROLES = ['subscriber', 'contributor', 'author', 'editor', 'administrator'] as const;
export type Role = (typeof ROLES)[number];

/** The authenticated caller, from a verified bearer token. */
export interface AuthUser {
  id: number;
  role: Role;
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function roleAtLeast(user: AuthUser | undefined, minimum: Role): boolean {
  return user !== undefined && ROLES.indexOf(user.role) >= ROLES.indexOf(minimum);
}
