import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { DtoClass } from './limits';

/** The operation ID of a controller method, as the document names it. */
export const operationIdOf = (controller: string, method: string) =>
  `${controller.replace(/Controller$/, '')}_${method}`;

/**
 * The argument classes of every controller method (its query and body DTOs),
 * by operation ID: where the document's query parameters came from.
 */
export function argumentClasses(app: INestApplication): Map<string, DtoClass[]> {
  const byOperation = new Map<string, DtoClass[]>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as DtoClass | null;
      if (!controller?.prototype) continue;
      const prototype = controller.prototype as object;
      for (const method of Object.getOwnPropertyNames(prototype)) {
        if (method === 'constructor') continue;
        const types = (Reflect.getMetadata('design:paramtypes', prototype, method) ??
          []) as unknown[];
        const classes = types.filter((t): t is DtoClass => typeof t === 'function');
        byOperation.set(operationIdOf(controller.name, method), classes);
      }
    }
  }
  return byOperation;
}
