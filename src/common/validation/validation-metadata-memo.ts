import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/*
 * class-validator resolves a class's checks on every validate() call, for the
 * body and for each nested object: it scans every registered class for the
 * target's ancestors and filters and groups the result anew, a few kB of
 * arrays and closures per call (typestack/class-validator#2686). The result
 * depends only on the checks registered, which are fixed once the DTO classes
 * are loaded; so it is kept per target and options, and dropped whenever a
 * check is registered (PartialType and the like register copies when their
 * classes are defined).
 */

type Storage = ReturnType<typeof getMetadataStorage>;
type TargetLookup = Storage['getTargetValidationMetadatas'];
type Grouped = Record<string, ValidationMetadata[]>;

/** Installed once per storage (the pipe of every application of a test process asks). */
const installed = new WeakSet<Storage>();

/**
 * Makes `storage` keep what it resolves per target class and options (and
 * each result's grouping by property) until a check is registered. Callers
 * only read the arrays (class-validator's executor filters them into new ones).
 */
export function memoizeValidationMetadata(storage: Storage = getMetadataStorage()): void {
  if (installed.has(storage)) return;
  installed.add(storage);
  // Not write state: a cache of resolved metadata, keyed by the DTO class it belongs to.
  let byTarget = new WeakMap<object, Map<string, ValidationMetadata[]>>();
  let groupedOf = new WeakMap<ValidationMetadata[], Grouped>();
  const resolve: TargetLookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const register = storage.addValidationMetadata.bind(storage);

  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (typeof target !== 'function') return resolve(target, schema, always, strictGroups, groups);
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0001') ?? ''}`;
    let resolved = byTarget.get(target);
    if (!resolved) byTarget.set(target, (resolved = new Map()));
    let metadatas = resolved.get(key);
    if (!metadatas)
      resolved.set(key, (metadatas = resolve(target, schema, always, strictGroups, groups)));
    return metadatas;
  };
  storage.groupByPropertyName = (metadatas) => {
    let grouped = groupedOf.get(metadatas);
    if (!grouped) groupedOf.set(metadatas, (grouped = group(metadatas)));
    return grouped;
  };
  storage.addValidationMetadata = (metadata) => {
    byTarget = new WeakMap();
    groupedOf = new WeakMap();
    register(metadata);
  };
}
