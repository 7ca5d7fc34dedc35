import { Injectable, PipeTransform } from '@nestjs/common';
import { ApiError } from '../errors/api-error';
import { MAX_ID } from '../validation/input-parsing';

/**
 * Path IDs: any run of digits (docs/api.md §1). Anything else is not a route
 * (404 rest_no_route); a number that can name no record becomes 0, which the
 * service reports as not found.
 */
@Injectable()
export class IdParamPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^\d+$/.test(value)) throw ApiError.noRoute();
    const id = Number(value);
    return id >= 1 && id <= MAX_ID ? id : 0;
  }
}

/**
 * By-slug paths: any characters but `/`, not empty (else no route). A slug
 * longer than any stored one becomes '', which the service reports as not found.
 */
@Injectable()
export class SlugParamPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (value === '' || value.includes('/')) throw ApiError.noRoute();
    return value.length > 200 ? '' : value;
  }
}
