/**
 * A setting the environment gets wrong (shared/config.ts says which). Its own module, free of
 * zod, so that the CLI can recognise it without loading the config schema: `soulgraph --help`
 * loads neither.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
