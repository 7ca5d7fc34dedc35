/**
 * Rows by ID: those in `kept` (rows a write kept, see WriteUnit.keep) from
 * there, the others loaded. IDs that name no row are left out.
 */
export async function keptOrLoaded<R>(
  ids: readonly number[],
  kept: ReadonlyMap<number, R> | undefined,
  load: (ids: number[]) => Promise<Map<number, R>>,
): Promise<Map<number, R>> {
  const unique = [...new Set(ids)];
  const missing = kept ? unique.filter((id) => !kept.has(id)) : unique;
  const loaded = missing.length > 0 ? await load(missing) : new Map<number, R>();
  if (!kept || missing.length === unique.length) return loaded;
  return new Map(
    unique.flatMap((id) => {
      const row = kept.get(id) ?? loaded.get(id);
      return row ? [[id, row] as const] : [];
    }),
  );
}
