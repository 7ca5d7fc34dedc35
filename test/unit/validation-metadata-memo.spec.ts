import 'reflect-metadata';
import { PartialType } from '@nestjs/mapped-types';
import { getMetadataStorage, IsInt, IsString, Min, validate } from 'class-validator';
import { CreateEventDto } from '../../src/events/dto/create-event.dto';
import { ListEventsQueryDto } from '../../src/events/dto/list-events.query.dto';
import { UpdateEventDto } from '../../src/events/dto/update-event.dto';
import { CreateVenueDto } from '../../src/venues/dto/create-venue.dto';
import { memoizeValidationMetadata } from '../../src/common/validation/validation-metadata-memo';

class Base {
  @IsString()
  name!: string;

  @IsInt({ groups: ['admin'] })
  level!: number;
}

class Child extends Base {
  @IsInt()
  @Min(1)
  count!: number;
}

const storage = getMetadataStorage();
type Lookup = [target: object, always: boolean, strictGroups: boolean, groups?: string[]];

/** Every option combination the executor and the service's own readers pass. */
const lookups = (target: object): Lookup[] => [
  [target, false, false, undefined],
  [target, true, false, undefined],
  [target, false, true, undefined],
  [target, false, false, ['admin']],
  [target, false, true, ['admin']],
];

const summary = ([target, always, strictGroups, groups]: Lookup) =>
  storage
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    .getTargetValidationMetadatas(target as Function, '', always, strictGroups, groups)
    .map((m) => `${String(m.target === target)}:${m.propertyName}:${m.type}:${m.name ?? ''}`);

const targets: object[] = [
  Base,
  Child,
  CreateEventDto,
  UpdateEventDto,
  ListEventsQueryDto,
  CreateVenueDto,
];

describe('memoizeValidationMetadata', () => {
  // Resolved before the memo is installed: what class-validator answers on its own.
  const before = new Map(targets.flatMap((t) => lookups(t)).map((l) => [l, summary(l)]));
  const groupedBefore = storage.groupByPropertyName(
    storage.getTargetValidationMetadatas(Child, '', false, false),
  );
  memoizeValidationMetadata();

  it('answers what class-validator resolves, for every target and option combination', () => {
    for (const [lookup, expected] of before) expect(summary(lookup)).toEqual(expected);
    expect(before.size).toBe(targets.length * 5);
    // Inherited checks are there (the executor's own scan found them).
    expect(summary([Child, false, false, undefined])).toEqual(
      expect.arrayContaining([expect.stringMatching(/^false:name:/)]),
    );
  });

  it('keeps one resolution per target and options, and its grouping', () => {
    const first = storage.getTargetValidationMetadatas(Child, '', false, false);
    expect(storage.getTargetValidationMetadatas(Child, '', false, false)).toBe(first);
    expect(storage.getTargetValidationMetadatas(Child, '', false, false, ['admin'])).not.toBe(
      first,
    );
    const grouped = storage.groupByPropertyName(first);
    expect(storage.groupByPropertyName(first)).toBe(grouped);
    expect(Object.keys(grouped).sort()).toEqual(Object.keys(groupedBefore).sort());
  });

  it('installs once: a second call changes nothing', () => {
    const lookup = storage.getTargetValidationMetadatas;
    memoizeValidationMetadata();
    expect(storage.getTargetValidationMetadatas).toBe(lookup);
  });

  it('sees checks registered later: new subclasses and copies of existing ones', () => {
    const kept = storage.getTargetValidationMetadatas(Child, '', false, false);
    class Later extends Child {
      @IsString()
      extra!: string;
    }
    expect(summary([Later, false, false, undefined])).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^true:extra:/),
        expect.stringMatching(/^false:count:/),
        expect.stringMatching(/^false:name:/),
      ]),
    );
    // A registration drops what was kept: Child is resolved again (same content).
    const again = storage.getTargetValidationMetadatas(Child, '', false, false);
    expect(again).not.toBe(kept);
    expect(again).toEqual(kept);
    // PartialType copies its parent's checks onto the new class as it is defined.
    class Partial extends PartialType(Child) {}
    expect(summary([Partial, false, false, undefined]).map((s) => s.split(':')[1])).toEqual(
      expect.arrayContaining(['count', 'name']),
    );
  });

  it('validates as class-validator documents: own and inherited checks, groups as asked', async () => {
    const child = Object.assign(new Child(), { name: 7, level: 'x', count: 0 });
    const failed = async (options?: Parameters<typeof validate>[1]) =>
      (await validate(child, options)).map((e) => e.property).sort();
    // No groups asked: every check runs; one group: its checks only; strict: none of a group's.
    expect(await failed()).toEqual(['count', 'level', 'name']);
    expect(await failed({ groups: ['admin'] })).toEqual(['level']);
    expect(await failed({ strictGroups: true })).toEqual(['count', 'name']);
    const fine = Object.assign(new Child(), { name: 'a', level: 1, count: 2 });
    expect(await validate(fine)).toEqual([]);
  });
});
