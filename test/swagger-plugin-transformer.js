// Lets ts-jest apply the @nestjs/swagger CLI plugin, as `nest build` does, so
// the OpenAPI document (and the index built from it) is the same in tests.
const transformer = require('@nestjs/swagger/plugin');

module.exports.name = 'nestjs-swagger-transformer';
// Bump when the options change, to invalidate ts-jest's cache.
module.exports.version = 1;
module.exports.factory = (cs) =>
  transformer.before(
    {
      introspectComments: true,
      dtoFileNameSuffix: ['.dto.ts'],
      controllerFileNameSuffix: ['.controller.ts'],
    },
    cs.program,
  );
