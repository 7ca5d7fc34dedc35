import { Column, ColumnOptions, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Absolute instants are stored as unix seconds (BIGINT): the same type, order
 * and comparisons on MySQL and SQLite, with no driver time-zone conversion.
 */
const epochTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

export function EpochColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'bigint', transformer: epochTransformer, ...options });
}

export function IdColumn(): PropertyDecorator {
  return PrimaryGeneratedColumn({ type: 'int' });
}

/** A column of long text (MEDIUMTEXT on MySQL through the migration; TEXT on SQLite). */
export function LongTextColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'text', ...options });
}
