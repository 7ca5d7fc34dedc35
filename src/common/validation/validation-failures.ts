import { ValidationError } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';

/*
 * Which of a parameter's failed checks names the problem. Class-validator
 * runs a property's checks in the order its decorators were applied (bottom
 * up), so the first failure may be a length or size check on a value of the
 * wrong type ("too long" for `[1]`). Every check runs; a type check wins.
 */

/** One failed check of one parameter. */
export interface Failure {
  name: string;
  /** The class-validator constraint name, `each…` when it held for the items of a list. */
  constraint: string;
}

/** Type checks, reported before any other failed check of the same parameter. */
const TYPE_CHECKS = [
  'isArray',
  'isObject',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'nestedValidation',
];

const rank = (constraint: string) => {
  const index = TYPE_CHECKS.indexOf(constraint);
  return index === -1 ? TYPE_CHECKS.length : index;
};

/** Every parameter's most telling failure, in the order of the errors. */
export function failuresOf(errors: ValidationError[], prefix = ''): Failure[] {
  return errors.flatMap((error) => {
    const name = prefix ? `${prefix}.${error.property}` : error.property;
    const constraints = Object.keys(error.constraints ?? {});
    const own = constraints.length ? [{ name, constraint: mostTelling(error, constraints) }] : [];
    return [...own, ...failuresOf(error.children ?? [], name)];
  });
}

function mostTelling(error: ValidationError, constraints: string[]): string {
  if (constraints.includes('isDefined')) return 'isDefined';
  // A stable sort: among checks of equal rank the first applied wins.
  const [first] = [...constraints].sort((a, b) => rank(a) - rank(b));
  return checksItems(error.target, error.property, first) ? `each${capitalize(first)}` : first;
}

/** Whether the property's `constraint` is declared with `{ each: true }`. */
function checksItems(target: object | undefined, property: string, constraint: string): boolean {
  if (!target) return false;
  const storage = getMetadataStorage();
  return storage
    .getTargetValidationMetadatas(target.constructor, '', true, false)
    .some(
      (metadata) =>
        metadata.propertyName === property &&
        metadata.each &&
        storage
          .getTargetValidatorConstraints(metadata.constraintCls)
          .some((c) => c.name === constraint),
    );
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
