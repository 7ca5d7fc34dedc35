import { ApiError } from '../../../src/common/errors/api-error';

/** The ApiError `run` throws (the test fails when it throws none). */
export function errorOf(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected an error');
}
