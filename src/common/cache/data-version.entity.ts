import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One row whose version goes up with every acknowledged write (in its
 * transaction when it tracks changes, else right after it), so every
 * instance can tell whether what it cached is still exact.
 */
@Entity('data_version')
export class DataVersion {
  @PrimaryColumn({ type: 'int' })
  id: number;

  @Column({
    type: 'bigint',
    transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) },
  })
  version: number;
}
