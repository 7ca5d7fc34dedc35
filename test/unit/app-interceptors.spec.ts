import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { catchError, firstValueFrom, map, Observable, of, throwError } from 'rxjs';
import { AppInterceptors } from '../../src/app-interceptors';

const context = {} as ExecutionContext;

/** A layer that notes when it runs and wraps what is inside it in its name. */
function wrapping(name: string, seen: string[]) {
  return {
    intercept: (_context: ExecutionContext, next: CallHandler): Observable<unknown> => {
      seen.push(name);
      return next.handle().pipe(map((value) => `${name}(${String(value)})`));
    },
  };
}

function composed(layers: unknown[]): AppInterceptors {
  const [timeout, readValidator, idempotency, writeVersion] = layers;
  return new AppInterceptors(
    timeout as never,
    readValidator as never,
    idempotency as never,
    writeVersion as never,
  );
}

describe('AppInterceptors', () => {
  it('runs the four layers outermost first around the handler, each once', async () => {
    const seen: string[] = [];
    let handled = 0;
    const interceptors = composed(['a', 'b', 'c', 'd'].map((name) => wrapping(name, seen)));
    const answer = interceptors.intercept(context, {
      handle: () => {
        handled++;
        return of('handler');
      },
    });
    // Inner layers and the handler run when the outer ones subscribe, not before.
    expect(seen).toEqual(['a']);
    expect(handled).toBe(0);
    await expect(firstValueFrom(answer)).resolves.toBe('a(b(c(d(handler))))');
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
    expect(handled).toBe(1);
  });

  it('hands what an inner layer throws to the outer layers as an error', async () => {
    const caught: string[] = [];
    const catching = (name: string) => ({
      intercept: (_context: ExecutionContext, next: CallHandler) =>
        next.handle().pipe(
          catchError((error: Error) => {
            caught.push(`${name}: ${error.message}`);
            return throwError(() => error);
          }),
        ),
    });
    const throwing = {
      intercept: () => {
        throw new Error('invalid key');
      },
    };
    let handled = 0;
    const interceptors = composed([catching('a'), catching('b'), throwing, catching('d')]);
    const answer = interceptors.intercept(context, {
      handle: () => {
        handled++;
        return of('handler');
      },
    });
    await expect(firstValueFrom(answer)).rejects.toThrow('invalid key');
    expect(caught).toEqual(['b: invalid key', 'a: invalid key']);
    expect(handled).toBe(0);
  });

  it('lets a layer answer without the layers inside it and the handler', async () => {
    const seen: string[] = [];
    const answering = { intercept: () => of('kept answer') };
    let handled = 0;
    const interceptors = composed([
      wrapping('a', seen),
      answering,
      wrapping('c', seen),
      wrapping('d', seen),
    ]);
    const answer = interceptors.intercept(context, {
      handle: () => {
        handled++;
        return of('handler');
      },
    });
    await expect(firstValueFrom(answer)).resolves.toBe('a(kept answer)');
    expect(seen).toEqual(['a']);
    expect(handled).toBe(0);
  });
});
